// parfilter-serial and image I/O: the save options (--png-level, --jpeg-quality), gray results
// written with one channel, and the loader review's cases where the executable must print one
// line, exit with its code (2: bad input or usage, 1: a runtime failure) and write nothing: a
// JPEG whose DC predictor overflows, an output below a regular file, an output directory where no
// file can be created (found before the input is opened), a write over the file-size limit.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "parfilter/error.hpp"
#include "parfilter/image_io.hpp"
#include "reference.hpp"
#include "support/image_files.hpp"
#include "support/run_process.hpp"
#include "support/test_images.hpp"

namespace parfilter {
namespace {

namespace fs = std::filesystem;
using test::files::Bytes;
using test::files::read_bytes;
using test::files::write_bytes;
using test::files::write_text;

constexpr const char* kExe = PARFILTER_SERIAL_EXE;
constexpr const char* kProgramPrefix = "parfilter-serial: ";
constexpr int kExitRuntime = 1;
constexpr int kExitBad = 2;
constexpr int kWidth = 23;
constexpr int kHeight = 17;
constexpr std::uint32_t kSeed = 3;
// Runs that must not block: a regression that opened the FIFO input would wait for a writer.
constexpr auto kNoHang = std::chrono::seconds(20);

class CliIo : public ::testing::Test {
 protected:
  test::ProcessResult run(const std::vector<std::string>& args,
                          const test::ProcessLimits& limits = {}) {
    std::vector<std::string> argv{kExe};
    argv.insert(argv.end(), args.begin(), args.end());
    return test::run_process(argv, capture_.path(), {}, limits);
  }

  fs::path rgb_input(const std::string& name = "in.png") {
    const fs::path path = work_ / name;
    save_image(test::synthetic_image(kWidth, kHeight, 3, kSeed), path);
    return path;
  }

  test::TempDir work_;
  test::TempDir capture_;
};

/// Exit `code` with no signal and no timeout, nothing on stdout, exactly one stderr line
/// "parfilter-serial: ..." that contains each of `fragments`.
void expect_one_line(const test::ProcessResult& r, int code,
                     const std::vector<std::string>& fragments) {
  EXPECT_FALSE(r.timed_out) << "killed after hanging";
  EXPECT_EQ(r.signal, 0) << r.err;
  EXPECT_EQ(r.exit_code, code) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.err.rfind(kProgramPrefix, 0), 0U) << r.err;
  for (const auto& fragment : fragments) {
    EXPECT_NE(r.err.find(fragment), std::string::npos) << "no '" << fragment << "': " << r.err;
  }
  EXPECT_TRUE(r.out.empty()) << r.out;
}

// ---- the save options

TEST_F(CliIo, EveryPngLevelIsAcceptedAndWritesTheResult) {
  const fs::path input = rgb_input();
  const Image expected = reference::run(Op::gray, load_image(input), OpParams{}).image;
  for (int level = kMinPngLevel; level <= kMaxPngLevel; ++level) {
    const fs::path output = work_ / ("level" + std::to_string(level) + ".png");
    const auto r =
        run({"gray", "--png-level", std::to_string(level), input.string(), output.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(test::same_image(expected, load_image(output))) << "level " << level;
  }
}

TEST_F(CliIo, JpegQualitiesFromOneToAHundredAreAccepted) {
  const fs::path input = rgb_input();
  for (const int quality : {kMinJpegQuality, 2, 50, kDefaultJpegQuality, 99, kMaxJpegQuality}) {
    const fs::path output = work_ / ("q" + std::to_string(quality) + ".jpg");
    const auto r = run(
        {"sharpen", "--jpeg-quality", std::to_string(quality), input.string(), output.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(load_image(output).width(), kWidth) << "quality " << quality;
  }
}

TEST_F(CliIo, LevelAndQualityOutsideTheirRangesAreRefusedBeforeAnyWork) {
  const fs::path input = rgb_input();
  const fs::path output = work_ / "out.png";
  const std::vector<std::vector<std::string>> cases{
      {"--png-level", "-1"},   {"--png-level", "10"},     {"--png-level", "fast"},
      {"--jpeg-quality", "0"}, {"--jpeg-quality", "101"}, {"--jpeg-quality", "high"}};
  for (const auto& option : cases) {
    SCOPED_TRACE(option[0] + " " + option[1]);
    expect_one_line(run({"gray", option[0], option[1], input.string(), output.string()}), kExitBad,
                    {option[0]});
  }
  EXPECT_FALSE(fs::exists(output));
}

// ---- gray results: one channel in PNG, JPEG and BMP

TEST_F(CliIo, GrayResultsAreWrittenWithOneChannel) {
  constexpr std::size_t kPngColorType = 25;
  constexpr std::uint8_t kPngGray = 0;
  constexpr std::size_t kBmpBitsPerPixel = 28;
  const fs::path input = rgb_input();
  for (const std::string extension : {".png", ".jpg", ".bmp", ".tga"}) {
    const fs::path output = work_ / ("gray" + extension);
    const auto r = run({"gray", input.string(), output.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(load_image(output).channels(), 1) << extension;
  }
  EXPECT_EQ(read_bytes(work_ / "gray.png")[kPngColorType], kPngGray);
  EXPECT_EQ(read_bytes(work_ / "gray.bmp")[kBmpBitsPerPixel], 8);
}

// ---- the loader review's bad inputs

TEST_F(CliIo, JpegWhoseDcPredictorOverflowsIsBadInput) {
  // 2048 x 2056: past INT_MAX at block 65539 (test_io_review.cpp explains both paths).
  const fs::path input = work_ / "dc_overflow.jpg";
  write_bytes(input, test::files::make_dc_overflow_jpeg(2048, 2056, true));
  const fs::path output = work_ / "out.png";
  expect_one_line(run({"gray", input.string(), output.string()}), kExitBad,
                  {input.string(), "corrupt"});
  EXPECT_FALSE(fs::exists(output));
}

TEST_F(CliIo, OutputBelowARegularFileIsNotADirectory) {
  const fs::path input = rgb_input();
  const fs::path file = work_ / "x";
  write_text(file, "a regular file");
  const auto before = work_.files();
  for (const fs::path& output : {file / "out.png", file / "sub" / "out.png"}) {
    SCOPED_TRACE(output.string());
    expect_one_line(run({"gray", input.string(), output.string()}), kExitBad,
                    {output.string(), "'" + file.string() + "' is not a directory"});
  }
  EXPECT_EQ(work_.files(), before);
}

/// The check_output_directory of /proc/self must fail here (the tests run as root, and even
/// root cannot create files there); "" when it does, else why the test cannot run.
std::string proc_self_refuses_files() {
  try {
    check_output_directory("/proc/self/parfilter-probe.png");
  } catch (const InputError&) {
    return "";
  }
  return "a file could be created in /proc/self here";
}

// The output directory is tried (a file created and removed) before the input is opened: a
// FIFO input with no writer would block the load forever, a missing one would fail first.
TEST_F(CliIo, UnwritableOutputDirectoryIsFoundBeforeTheInputIsOpened) {
  if (const std::string why = proc_self_refuses_files(); !why.empty()) GTEST_SKIP() << why;
  const fs::path fifo = work_ / "fifo.png";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const fs::path output = "/proc/self/parfilter-test.png";
  test::ProcessLimits limits;
  limits.timeout = kNoHang;
  for (const fs::path& input : {fifo, work_ / "missing.png"}) {
    SCOPED_TRACE(input.string());
    const auto r = run({"gray", input.string(), output.string()}, limits);
    expect_one_line(r, kExitBad, {output.string(), "cannot create a file in /proc/self"});
    EXPECT_EQ(r.err.find(input.filename().string()), std::string::npos) << r.err;
  }
  // A batch checks each output before its input too.
  auto batch = run({"gray", "--out-dir", "/proc/self", fifo.string()}, limits);
  // The job's one line, then the batch's summary line.
  const std::size_t summary = batch.err.find("batch: 1 image(s) in ");
  ASSERT_NE(summary, std::string::npos) << batch.err;
  EXPECT_NE(batch.err.find("0 written, 1 failed", summary), std::string::npos) << batch.err;
  batch.err.resize(summary);
  expect_one_line(batch, kExitBad, {"/proc/self/fifo.png", "cannot create a file in /proc/self"});
}

// ulimit -f: the write fails with EFBIG instead of SIGXFSZ killing the process (the CLI ignores
// the signal); one line, a runtime failure, no output and no temporary left behind.
TEST_F(CliIo, WriteOverTheFileSizeLimitFailsWithOneLine) {
  constexpr std::uint64_t kFileSizeLimit = 4096;
  const fs::path input = work_ / "noise.png";
  save_image(test::noise_image(64, 64, 3, kSeed), input);  // ~12 KB as PNG or BMP
  const auto before = work_.files();
  test::ProcessLimits limits;
  limits.file_size_bytes = kFileSizeLimit;
  for (const std::string name : {"out.png", "out.bmp"}) {
    const fs::path output = work_ / name;
    const auto r = run({"sharpen", input.string(), output.string()}, limits);
    expect_one_line(r, kExitRuntime, {output.string(), "file too large"});
    EXPECT_FALSE(fs::exists(output));
  }
  EXPECT_EQ(work_.files(), before) << "a temporary file was left behind";
}

}  // namespace
}  // namespace parfilter
