// Uses an installed parfilter through its public headers only: sharpen and pool through the
// serial backend against hand-computed values, a chain, and an image saved and loaded back.
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "parfilter/backends/serial.hpp"
#include "parfilter/image_io.hpp"

namespace {

constexpr int kSize = 3;
constexpr int kCentreValue = 2;
// sharpen with a zero border: 5 * 2 - 0 - 0 - 0 - 0 at the centre of a 3x3 image of zeros.
constexpr int kSharpenedCentre = 5 * kCentreValue;
constexpr int kPooledSize = (kSize + 1) / 2;

int fail(const char* what) {
  std::fprintf(stderr, "consumer: %s\n", what);
  return EXIT_FAILURE;
}

}  // namespace

int main() {
  parfilter::Image image(kSize, kSize, 1);
  image.at(1, 1) = kCentreValue;

  auto backend = parfilter::make_serial_backend(parfilter::BackendOptions{});
  parfilter::OpParams params;
  params.border = parfilter::BorderMode{parfilter::BorderKind::constant, 0};
  const auto sharpened = backend->run(parfilter::Op::sharpen, image.view(), params);
  if (sharpened.image.at(1, 1) != kSharpenedCentre) return fail("sharpen centre is wrong");
  if (sharpened.image.at(0, 1) != 0) return fail("sharpen should saturate at 0");

  const auto pooled = backend->run(parfilter::Op::pool, image.view(), parfilter::OpParams{});
  if (pooled.image.width() != kPooledSize || pooled.image.height() != kPooledSize) {
    return fail("pool output has the wrong size");
  }
  if (pooled.image.at(0, 0) != kCentreValue) return fail("pool missed the maximum");

  const parfilter::OpChain chain{{parfilter::Op::sharpen, params}, {parfilter::Op::pool, {}}};
  const auto chained = backend->run_chain(chain, image.view());
  if (chained.image.at(0, 0) != kSharpenedCentre) return fail("the chain's result is wrong");

  const auto path = std::filesystem::temp_directory_path() / "parfilter_consumer.png";
  parfilter::save_image(sharpened.image, path);
  const parfilter::Image loaded = parfilter::load_image(path);
  std::filesystem::remove(path);
  if (!(loaded == sharpened.image)) return fail("a PNG did not load back the same");
  std::puts("consumer: parfilter works from an installed package");
  return EXIT_SUCCESS;
}
