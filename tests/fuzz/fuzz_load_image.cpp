// libFuzzer target: the image loader through load_image_from_memory, the function load_image
// (and so every executable) decodes with, once with the default size limit and once with a
// small one. Besides the sanitizers' findings, it traps on broken promises of image_io.hpp:
// bad input must be an InputError whose message is one line naming the input; a decoded image
// must be non-empty, 1, 3 or 4 channels, within the limit; and the limit must only ever refuse
// an image, never change its pixels.
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "codecs.hpp"
#include "parfilter/error.hpp"
#include "parfilter/image_io.hpp"

namespace {

constexpr const char* kInputName = "fuzz-input";
// Small enough to refuse most seeds (the data/ images are 100k to 800k bytes decoded), large
// enough that small images still decode under it.
constexpr std::uint64_t kSmallLimit = std::uint64_t{64} * 1024;

void check(bool promise) {
  if (!promise) __builtin_trap();
}

std::optional<parfilter::Image> load(std::span<const std::uint8_t> bytes, std::uint64_t limit,
                                     parfilter::io::CodecPath path) {
  try {
    parfilter::LoadOptions options;
    options.max_bytes = limit;
    parfilter::Image image = parfilter::io::decode_image(bytes, kInputName, options, path);
    check(image.width() > 0 && image.height() > 0);
    check(image.channels() == 1 || image.channels() == 3 || image.channels() == 4);
    check(image.size_bytes() == static_cast<std::uint64_t>(image.stride()) * image.height() *
                                    parfilter::bytes_per_sample(image.depth()));
    check(image.size_bytes() <= limit);
    return image;
  } catch (const parfilter::InputError& e) {
    const std::string message = e.what();
    check(message.rfind(std::string(kInputName) + ": ", 0) == 0);
    check(message.find('\n') == std::string::npos);
    return std::nullopt;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> bytes(data, size);
  // Both codec paths: the fast libraries, and stb_image (their fallback).
  for (const auto path : {parfilter::io::CodecPath::fast, parfilter::io::CodecPath::stb}) {
    const auto with_default_limit = load(bytes, parfilter::kDefaultMaxImageBytes, path);
    const auto with_small_limit = load(bytes, kSmallLimit, path);
    if (with_small_limit) check(with_default_limit && *with_default_limit == *with_small_limit);
  }
  return 0;
}
