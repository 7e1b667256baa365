// libFuzzer target: the TIFF decoder (libtiff behind io::decode_tiff) alone, so that the fuzzer
// spends its time inside the TIFF layouts rather than on the other formats' magic bytes. The
// promises are load_image's (fuzz_load_image.cpp): one-line InputErrors naming the input, and a
// decoded image within the limit, of 1, 3 or 4 channels at 8 or 16 bits.
#include <cstdint>
#include <span>
#include <string>

#include "codecs.hpp"
#include "parfilter/error.hpp"
#include "parfilter/image_io.hpp"

namespace {

constexpr const char* kInputName = "fuzz-input";
constexpr std::uint64_t kSmallLimit = std::uint64_t{64} * 1024;

void check(bool promise) {
  if (!promise) __builtin_trap();
}

void load(std::span<const std::uint8_t> bytes, std::uint64_t limit) {
  try {
    parfilter::LoadOptions options;
    options.max_bytes = limit;
    const parfilter::Image image = parfilter::io::decode_tiff(bytes, kInputName, options);
    check(image.width() > 0 && image.height() > 0);
    check(image.channels() == 1 || image.channels() == 3 || image.channels() == 4);
    check(image.size_bytes() <= limit);
  } catch (const parfilter::InputError& e) {
    const std::string message = e.what();
    check(message.rfind(std::string(kInputName) + ": ", 0) == 0);
    check(message.find('\n') == std::string::npos);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (!parfilter::io::have_tiff()) return 0;
  const std::span<const std::uint8_t> bytes(data, size);
  load(bytes, parfilter::kDefaultMaxImageBytes);
  load(bytes, kSmallLimit);
  return 0;
}
