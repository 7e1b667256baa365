// parfilter-serial and parfilter-openmp on images run in strips (--strip-rows, --max-memory):
// the same files as the whole-image run for every streamed format, depth and kind of op; one
// clear line for what cannot stream; and an image larger than the process may hold (ulimit -v)
// filtered correctly, where the whole-image run fails.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "codecs.hpp"
#include "parfilter/image_io.hpp"
#include "reference.hpp"
#include "support/image_files.hpp"
#include "support/run_process.hpp"
#include "support/test_images.hpp"

namespace parfilter {
namespace {

namespace fs = std::filesystem;

constexpr int kExitRuntime = 1;
constexpr int kExitBad = 2;
constexpr int kWidth = 37;
constexpr int kHeight = 101;  // several strips of 3 rows, and of a TIFF's own
constexpr int kTwelveBits = 12;
/// Forces the whole-image run.
constexpr const char* kWholeImage = "1g";

struct Executable {
  const char* path;
  const char* name;
};

std::vector<Executable> executables() {
  std::vector<Executable> list{{PARFILTER_SERIAL_EXE, "serial"}};
#ifdef PARFILTER_OPENMP_EXE
  list.push_back({PARFILTER_OPENMP_EXE, "openmp"});  // decoding and encoding on threads
#endif
  return list;
}

class CliStream : public ::testing::Test {
 protected:
  test::ProcessResult run(const char* exe, const std::vector<std::string>& args,
                          const test::ProcessLimits& limits = {}) {
    std::vector<std::string> argv{exe};
    argv.insert(argv.end(), args.begin(), args.end());
    return test::run_process(argv, capture_.path(), {}, limits);
  }

  /// `op` (a chain, with `options`) streamed in strips of 3 rows and run whole: the same
  /// bytes and the same stdout.
  void expect_same_as_whole(const fs::path& input, const std::string& op,
                            const std::string& extension,
                            const std::vector<std::string>& options = {}) {
    for (const Executable& exe : executables()) {
      const fs::path streamed = work_ / ("streamed" + extension);
      const fs::path whole = work_ / ("whole" + extension);
      std::vector<std::string> args{op, input.string()};
      args.insert(args.end(), options.begin(), options.end());
      std::vector<std::string> strip_args = args;
      strip_args.insert(strip_args.end(), {"--strip-rows", "3", streamed.string()});
      std::vector<std::string> whole_args = args;
      whole_args.insert(whole_args.end(), {"--max-memory", kWholeImage, whole.string()});
      const auto s = run(exe.path, strip_args);
      const auto w = run(exe.path, whole_args);
      const std::string where = std::string(exe.name) + " " + op + " " + input.filename().string();
      ASSERT_EQ(s.exit_code, 0) << where << ": " << s.err;
      ASSERT_EQ(w.exit_code, 0) << where << ": " << w.err;
      EXPECT_EQ(s.out, w.out) << where;
      EXPECT_EQ(test::files::read_bytes(streamed), test::files::read_bytes(whole)) << where;
    }
  }

  fs::path input(const std::string& name, const Image& image) {
    const fs::path path = work_ / name;
    save_image(image, path);
    return path;
  }

  test::TempDir work_;
  test::TempDir capture_;
};

TEST_F(CliStream, EveryStreamedFormatGivesTheWholeImageRunsFile) {
  std::vector<std::string> extensions{".png", ".pgm", ".bmp"};
  if (io::have_tiff()) extensions.push_back(".tif");
  if (io::have_fast_jpeg()) extensions.push_back(".jpg");
  const Image gray = test::synthetic_image(kWidth, kHeight, 1, 5);
  for (const std::string& extension : extensions) {
    const fs::path in = input("in" + extension, gray);
    expect_same_as_whole(in, "gaussian", extension);
    expect_same_as_whole(in, "equalize", extension);  // two passes over the file
    expect_same_as_whole(in, "sharpen,segment,erode", extension,
                         {"--adaptive", "--window", "7", "--se", "ellipse:5x7"});
  }
  const fs::path rgb = input("rgb.png", test::synthetic_image(kWidth, kHeight, 3, 6));
  expect_same_as_whole(rgb, "pool,gaussian,otsu", ".png", {"--print-threshold"});
  expect_same_as_whole(rgb, "histogram", ".csv", {"--per-channel"});
}

TEST_F(CliStream, SixteenBitsStreamAsTheyRunWhole) {
  const Image deep = test::synthetic_image_16(kWidth, kHeight, 3, 7, kTwelveBits);
  const fs::path png = input("deep.png", deep);
  expect_same_as_whole(png, "sobel", ".png");
  expect_same_as_whole(png, "equalize,open", ".png", {"--iterations", "2"});
  if (io::have_tiff()) {
    const fs::path tif = input("deep.tif", deep);
    expect_same_as_whole(tif, "gaussian,dilate", ".tif", {"--compression", "lzw"});
    expect_same_as_whole(tif, "histogram", ".csv");
  }
}

TEST_F(CliStream, DepthConversionStreams) {
  const fs::path gray = input("gray.pgm", test::synthetic_image(kWidth, kHeight, 1, 11));
  expect_same_as_whole(gray, "gaussian", ".pgm", {"--depth", "16"});
  const fs::path deep =
      input("deep.png", test::synthetic_image_16(kWidth, kHeight, 3, 12, kTwelveBits));
  expect_same_as_whole(deep, "sharpen,equalize", ".png", {"--depth", "8"});
}

TEST_F(CliStream, WhatCannotStreamIsOneLineAndNoFile) {
  const fs::path in = input("in.png", test::synthetic_image(kWidth, kHeight, 3, 8));
  const fs::path tga_out = work_ / "out.tga";
  auto r =
      run(PARFILTER_SERIAL_EXE, {"gaussian", "--strip-rows", "4", in.string(), tga_out.string()});
  EXPECT_EQ(r.exit_code, kExitBad) << r.err;
  EXPECT_NE(r.err.find("not written in strips"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_FALSE(fs::exists(tga_out));

  const fs::path out = work_ / "out.png";
  r = run(PARFILTER_SERIAL_EXE,
          {"gaussian", "--strip-rows", "4", "--max-memory", "1k", in.string(), out.string()});
  EXPECT_EQ(r.exit_code, kExitRuntime) << r.err;
  EXPECT_NE(r.err.find("--max-memory"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_FALSE(fs::exists(out));
}

TEST_F(CliStream, AFullDiskMidImageIsOneLineAndNoFile) {
  const fs::path in = input("in.png", test::synthetic_image(kWidth, kHeight, 3, 10));
  const fs::path out = work_ / "out.pgm";
  constexpr std::uint64_t kFileLimit = 1024;  // a third of the output: the disk fills mid-image
  test::ProcessLimits limits;
  limits.file_size_bytes = kFileLimit;
  for (const Executable& exe : executables()) {
    const auto r = run(exe.path, {"gray", "--strip-rows", "3", in.string(), out.string()}, limits);
    EXPECT_EQ(r.exit_code, kExitRuntime) << exe.name << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << exe.name << ": " << r.err;
    EXPECT_NE(r.err.find("out.pgm"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(out)) << exe.name;
    for (const auto& entry : fs::directory_iterator(work_.path())) {
      EXPECT_EQ(entry.path().filename().string().find(".out.pgm.tmp"), std::string::npos)
          << exe.name << ": a temporary was left";
    }
  }
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized = true;  // the sanitizers reserve terabytes of address space
#else
constexpr bool kSanitized = false;
#endif

TEST_F(CliStream, AnImageLargerThanTheProcessMayHoldIsFiltered) {
  if (kSanitized || !io::have_tiff()) GTEST_SKIP() << "needs libtiff and no sanitizer";
  // 32 MiB of 16-bit samples: the whole-image run holds them twice, over the 40 MiB limit.
  constexpr int kSide = 4096;
  constexpr std::uint64_t kAddressSpace = std::uint64_t{40} << 20;
  const Image big = test::synthetic_image_16(kSide, kSide, 1, 9, kTwelveBits);
  const fs::path in = work_ / "big.tif";
  SaveOptions options;
  options.tiff_compression = TiffCompression::none;
  save_image(big, in, options);
  const fs::path out = work_ / "out.tif";
  test::ProcessLimits limits;
  limits.address_space_bytes = kAddressSpace;
  const auto whole =
      run(PARFILTER_SERIAL_EXE,
          {"gaussian", "--max-memory", kWholeImage, in.string(), out.string()}, limits);
  EXPECT_NE(whole.exit_code, 0) << "the limit is no limit: the test proves nothing";
  EXPECT_FALSE(fs::exists(out));
  const auto r = run(PARFILTER_SERIAL_EXE, {"gaussian", in.string(), out.string()}, limits);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Image expected = reference::run(Op::gaussian, big, OpParams{}).image;
  EXPECT_TRUE(test::same_image(expected, load_image(out)));
}

}  // namespace
}  // namespace parfilter
