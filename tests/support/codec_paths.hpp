// Both codec paths of common/io/codecs.hpp, for the format tests: the fast libraries (libspng
// and parfilter's PNG encoder, libjpeg-turbo) and stb_image, their fallback. BMP, PNM and TGA
// take the same codec on both; where a build lacks a fast library, its path is stb as well.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <filesystem>
#include <string>

#include "codecs.hpp"
#include "support/image_files.hpp"

namespace parfilter::test {

inline constexpr std::array kCodecPaths{io::CodecPath::fast, io::CodecPath::stb};

/// "fast" or "stb": the name of a test instance.
[[nodiscard]] std::string codec_path_name(io::CodecPath path);

/// Names the instances of a suite parametrized over io::CodecPath.
struct CodecPathName {
  std::string operator()(const ::testing::TestParamInfo<io::CodecPath>& info) const {
    return codec_path_name(info.param);
  }
};

/// What the fast path of this build has (codecs.hpp); stb_image serves the rest.
[[nodiscard]] bool fast_png_decoder();  // libspng
[[nodiscard]] bool fast_png_encoder();  // the banded encoder over zlib
[[nodiscard]] bool fast_jpeg();         // libjpeg-turbo

/// Whether `path` encodes and decodes `format` with a fast library in this build.
[[nodiscard]] bool uses_fast_library(io::CodecPath path, ImageFormat format);

/// load_image and save_image on the chosen path: the same file handling (the size bound on
/// reading, the atomic write), the codec of `path`.
[[nodiscard]] Image load_with(io::CodecPath path, const std::filesystem::path& file,
                              const LoadOptions& options = {});
void save_with(io::CodecPath path, const Image& image, const std::filesystem::path& file,
               const SaveOptions& options = {});

/// The same in memory; `name` is the name in error messages.
[[nodiscard]] Image decode_with(io::CodecPath path, const files::Bytes& bytes,
                                const std::string& name = "image", const LoadOptions& options = {});
[[nodiscard]] files::Bytes encode_with(io::CodecPath path, const Image& image, ImageFormat format,
                                       const SaveOptions& options = {});

/// The InputError message of decoding `bytes` on `path`, or "" when it decodes.
[[nodiscard]] std::string decode_error(io::CodecPath path, const files::Bytes& bytes,
                                       const std::string& name = "image",
                                       const LoadOptions& options = {});

}  // namespace parfilter::test
