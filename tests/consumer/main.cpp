// Uses an installed parfilter: runs sharpen and pool on a tiny image through the serial backend,
// checks them against hand-computed values and the reference, and looks serial up in the
// registry.
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "parfilter/backends/serial.hpp"
#include "parfilter/reference.hpp"

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
  if (!(sharpened.image ==
        parfilter::reference::run(parfilter::Op::sharpen, image, params).image)) {
    return fail("serial sharpen differs from the reference");
  }

  const auto pooled = backend->run(parfilter::Op::pool, image.view(), parfilter::OpParams{});
  if (pooled.image.width() != kPooledSize || pooled.image.height() != kPooledSize) {
    return fail("pool output has the wrong size");
  }
  if (pooled.image.at(0, 0) != kCentreValue) return fail("pool missed the maximum");
  const parfilter::BackendInfo* serial = parfilter::find_backend("serial");
  if (serial == nullptr) return fail("the registry does not list the serial backend");
  if (serial->create(parfilter::BackendOptions{})->name() != std::string_view("serial")) {
    return fail("the registry's serial factory makes another backend");
  }
  std::puts("consumer: parfilter works from an installed package");
  return EXIT_SUCCESS;
}
