// Drives the real parfilter-serial executable (posix_spawn, no shell): exit codes, stdout,
// stderr and the files it writes or must not write.
#include <algorithm>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "parfilter/histogram_output.hpp"
#include "parfilter/image_io.hpp"
#include "reference.hpp"
#include "support/run_process.hpp"
#include "support/test_images.hpp"

namespace parfilter {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

constexpr const char* kExe = PARFILTER_SERIAL_EXE;
constexpr const char* kProgramPrefix = "parfilter-serial: ";
constexpr int kExitBad = 2;
constexpr int kSignalExitBase = 128;
constexpr int kWidth = 23;  // odd, not a multiple of 16
constexpr int kHeight = 17;
constexpr int kRgb = 3;
constexpr std::uint32_t kSeed = 7;

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_file(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::size_t count_lines(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

class CliTest : public ::testing::Test {
 protected:
  /// Runs parfilter-serial with `args`, stdout and stderr captured in files outside work_.
  RunResult run(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {kExe};
    argv.insert(argv.end(), args.begin(), args.end());
    const test::ProcessResult process = test::run_process(argv, capture_.path());
    RunResult result{process.exit_code, process.out, process.err};
    if (process.signal != 0) {
      result.exit_code = kSignalExitBase + process.signal;
      ADD_FAILURE() << "parfilter-serial crashed (signal " << process.signal << ")";
    }
    return result;
  }

  /// A synthetic RGB image saved as work_/name.
  fs::path image_file(const std::string& name, int width = kWidth, int height = kHeight) {
    const fs::path path = work_ / name;
    save_image(test::synthetic_image(width, height, kRgb, kSeed), path);
    return path;
  }

  fs::path raw_file(const std::string& name, const std::string& bytes) {
    const fs::path path = work_ / name;
    write_file(path, bytes);
    return path;
  }

  TempDir work_;
  TempDir capture_;
};

/// Exit 2, exactly one stderr line "parfilter-serial: ..." that names `file` and contains one of
/// `causes` (case-insensitive), nothing on stdout.
void expect_bad(const RunResult& r, const std::string& file,
                const std::vector<std::string>& causes) {
  EXPECT_EQ(r.exit_code, kExitBad) << r.err;
  EXPECT_EQ(count_lines(r.err), 1U) << r.err;
  EXPECT_EQ(r.err.rfind(kProgramPrefix, 0), 0U) << r.err;
  EXPECT_NE(r.err.find(file), std::string::npos) << "error does not name " << file << ": " << r.err;
  std::string lower = r.err;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  const bool names_cause = std::any_of(causes.begin(), causes.end(), [&](const std::string& c) {
    return lower.find(c) != std::string::npos;
  });
  EXPECT_TRUE(names_cause) << "error does not say the cause: " << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

/// A usage error: exit 2 and one line that contains `fragment`.
void expect_usage(const RunResult& r, const std::string& fragment) {
  EXPECT_EQ(r.exit_code, kExitBad) << r.err;
  EXPECT_EQ(count_lines(r.err), 1U) << r.err;
  EXPECT_EQ(r.err.rfind(kProgramPrefix, 0), 0U) << r.err;
  EXPECT_NE(r.err.find(fragment), std::string::npos) << r.err;
}

TEST_F(CliTest, HelpVersionAndListExitZero) {
  const RunResult help = run({"--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("--out-dir"), std::string::npos);
  EXPECT_NE(help.out.find("Exit codes"), std::string::npos);
  const RunResult version = run({"--version"});
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_EQ(version.out.rfind("parfilter-serial ", 0), 0U) << version.out;
  const RunResult list = run({"--list"});
  EXPECT_EQ(list.exit_code, 0) << list.err;
  EXPECT_NE(list.out.find("device present"), std::string::npos) << list.out;
  for (Op op : kAllOps) EXPECT_NE(list.out.find(std::string(op_name(op))), std::string::npos);
}

TEST_F(CliTest, EveryOpWritesTheReferenceResult) {
  const fs::path input = image_file("in.png");
  const Image image = load_image(input);
  for (Op op : kAllOps) {
    SCOPED_TRACE(std::string(op_name(op)));
    const bool csv = op == Op::histogram;
    const fs::path output = work_ / (std::string(op_name(op)) + (csv ? ".csv" : ".png"));
    const RunResult r = run({std::string(op_name(op)), input.string(), output.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(r.err.empty()) << r.err;
    const OpOutput expected = reference::run(op, image, OpParams{});
    if (csv) {
      EXPECT_EQ(read_file(output), histogram_csv(expected.histogram));
    } else {
      EXPECT_TRUE(test::same_image(expected.image, load_image(output)));
    }
  }
}

TEST_F(CliTest, OptionsReachTheOp) {
  const fs::path input = image_file("in.png");
  const Image image = load_image(input);
  OpParams params;
  params.border = BorderMode{BorderKind::constant, 9};
  params.sigma = 2.5;
  const fs::path blurred = work_ / "blurred.png";
  ASSERT_EQ(run({"gaussian", "--sigma", "2.5", "--border", "constant:9", input.string(),
                 blurred.string()})
                .exit_code,
            0);
  EXPECT_TRUE(
      test::same_image(reference::run(Op::gaussian, image, params).image, load_image(blurred)));

  OpParams morph;
  morph.se = SeSpec{SeShape::ellipse, 5, 3};
  morph.iterations = 2;
  const fs::path opened = work_ / "opened.bmp";
  ASSERT_EQ(
      run({"open", "--se", "ellipse:5x3", "--iterations", "2", input.string(), opened.string()})
          .exit_code,
      0);
  EXPECT_TRUE(test::same_image(reference::run(Op::open, image, morph).image, load_image(opened)));
}

// parfilter-serial runs on one thread: --threads would be ignored, so it is refused (as
// --device and --platform, which only the GPU backends take).
TEST_F(CliTest, OptionsTheBackendWouldIgnoreAreRefused) {
  const fs::path input = image_file("in.png");
  const fs::path output = work_ / "s.png";
  expect_usage(run({"sobel", "--threads", "2", input.string(), output.string()}), "--threads");
  expect_usage(run({"sobel", "--device", "0", input.string(), output.string()}), "--device");
  expect_usage(run({"sobel", "--platform", "0", input.string(), output.string()}), "--platform");
  expect_usage(run({"sobel", "--device-only", input.string(), output.string()}), "--device-only");
  EXPECT_FALSE(fs::exists(output));
}

TEST_F(CliTest, HistogramCsvAndChart) {
  const fs::path input = image_file("in.png");
  const fs::path csv = work_ / "h.csv";
  ASSERT_EQ(run({"histogram", "--per-channel", input.string(), csv.string()}).exit_code, 0);
  const std::string text = read_file(csv);
  EXPECT_EQ(text.rfind("value,r,g,b\n", 0), 0U) << text.substr(0, text.find('\n'));
  EXPECT_EQ(count_lines(text), static_cast<std::size_t>(kHistogramBins) + 1);

  const fs::path chart = work_ / "h.png";
  ASSERT_EQ(run({"histogram", "--per-channel", input.string(), chart.string()}).exit_code, 0);
  const Image picture = load_image(chart);
  EXPECT_GT(picture.width(), kHistogramBins);
  EXPECT_GT(picture.height(), picture.width() / 2);  // three panels stacked
}

TEST_F(CliTest, BatchWritesTheGoodInputsAndReportsTheBadOne) {
  const fs::path a = image_file("a.png");
  const fs::path bad = raw_file("bad.png", "this is not a png");
  const fs::path c = image_file("c.bmp");
  const fs::path out = work_ / "out" / "nested";  // created by the batch
  const RunResult r =
      run({"sharpen", "--out-dir", out.string(), a.string(), bad.string(), c.string()});
  // The bad input's one line, then the batch's summary line.
  const std::string summary = "batch: 3 image(s) in ";
  const std::size_t at = r.err.find(summary);
  ASSERT_NE(at, std::string::npos) << r.err;
  EXPECT_NE(r.err.find("2 written, 1 failed", at), std::string::npos) << r.err;
  expect_bad({r.exit_code, r.out, r.err.substr(0, at)}, "bad.png",
             {"magic", "format", "corrupt", "not"});
  EXPECT_TRUE(fs::exists(out / "a.png"));
  EXPECT_TRUE(fs::exists(out / "c.bmp"));
  EXPECT_FALSE(fs::exists(out / "bad.png"));
  EXPECT_EQ(std::distance(fs::directory_iterator(out), fs::directory_iterator{}), 2);
}

TEST_F(CliTest, BatchFormatAndHistogramDefault) {
  const fs::path a = image_file("a.png");
  const fs::path b = image_file("b.jpg");
  const fs::path out = work_ / "out";
  ASSERT_EQ(run({"histogram", "--out-dir", out.string(), a.string(), b.string()}).exit_code, 0);
  EXPECT_TRUE(fs::exists(out / "a.csv"));
  EXPECT_TRUE(fs::exists(out / "b.csv"));
  ASSERT_EQ(run({"pool", "--out-dir", out.string(), "--format", "tga", a.string()}).exit_code, 0);
  EXPECT_EQ(load_image(out / "a.tga").width(), (kWidth + 1) / 2);
  expect_usage(run({"pool", "--out-dir", out.string(), "--format", "xyz", a.string()}), "xyz");
  // a.png and a.bmp both become a.csv: refused before anything is written.
  const fs::path a_bmp = image_file("a.bmp");
  expect_usage(
      run({"histogram", "--out-dir", (work_ / "clash").string(), a.string(), a_bmp.string()}),
      "both write");
  EXPECT_FALSE(fs::exists(work_ / "clash" / "a.csv"));
}

TEST_F(CliTest, TimingRepeatAndThreshold) {
  const fs::path input = image_file("in.png");
  const fs::path output = work_ / "out.png";
  const RunResult timed = run(
      {"otsu", "--timing", "--repeat", "3", "--print-threshold", input.string(), output.string()});
  ASSERT_EQ(timed.exit_code, 0) << timed.err;
  for (const char* stage : {"load ", "compute ", "save "}) {
    EXPECT_NE(timed.err.find(stage), std::string::npos) << stage << " missing: " << timed.err;
  }
  EXPECT_NE(timed.err.find("median of 3 runs"), std::string::npos) << timed.err;
  EXPECT_EQ(count_lines(timed.err), 3U) << timed.err;
  const OpOutput expected = reference::run(Op::otsu, load_image(input), OpParams{});
  ASSERT_TRUE(expected.threshold.has_value());
  EXPECT_EQ(timed.out, std::to_string(*expected.threshold) + "\n");
}

TEST_F(CliTest, TruncatedFile) {
  const fs::path good = image_file("good.png", 64, 64);
  const std::string bytes = read_file(good);
  const fs::path input = raw_file("truncated.png", bytes.substr(0, bytes.size() / 2));
  const fs::path output = work_ / "out.png";
  expect_bad(run({"gray", input.string(), output.string()}), "truncated.png",
             {"truncat", "corrupt", "bad", "short", "end"});
  EXPECT_FALSE(fs::exists(output));
}

TEST_F(CliTest, WrongMagicAndEmptyFile) {
  const fs::path output = work_ / "out.png";
  const fs::path text = raw_file("text.png", "GIF89a but not really an image at all");
  expect_bad(run({"gray", text.string(), output.string()}), "text.png",
             {"magic", "format", "not", "unknown", "unsupported"});
  const fs::path empty = raw_file("empty.bmp", "");
  expect_bad(run({"gray", empty.string(), output.string()}), "empty.bmp",
             {"empty", "truncat", "short", "format", "magic"});
  EXPECT_FALSE(fs::exists(output));
}

/// A 24-bit BMP whose header claims `width` x `height`.
std::string bmp_header(std::int32_t width, std::int32_t height) {
  constexpr std::uint32_t kFileHeaderBytes = 14;
  constexpr std::uint32_t kInfoHeaderBytes = 40;
  constexpr std::uint16_t kBitsPerPixel = 24;
  std::string bytes = "BM";
  const auto put32 = [&](std::uint32_t v) {
    for (int i = 0; i < 4; ++i) bytes += static_cast<char>((v >> (8 * i)) & 0xFFU);
  };
  const auto put16 = [&](std::uint16_t v) {
    bytes += static_cast<char>(v & 0xFFU);
    bytes += static_cast<char>(v >> 8);
  };
  put32(kFileHeaderBytes + kInfoHeaderBytes + 64);
  put32(0);
  put32(kFileHeaderBytes + kInfoHeaderBytes);
  put32(kInfoHeaderBytes);
  put32(static_cast<std::uint32_t>(width));
  put32(static_cast<std::uint32_t>(height));
  put16(1);
  put16(kBitsPerPixel);
  for (int i = 0; i < 6; ++i) put32(0);  // no compression, sizes and palette left at 0
  bytes += std::string(64, '\x7f');
  return bytes;
}

TEST_F(CliTest, ZeroDimension) {
  const fs::path output = work_ / "out.png";
  const fs::path bmp = raw_file("zero.bmp", bmp_header(0, 10));
  expect_bad(run({"gray", bmp.string(), output.string()}), "zero.bmp",
             {"zero", "dimension", "empty", "width", "size", "corrupt"});
  const fs::path pnm = raw_file("zero.pgm", "P5\n0 10\n255\n" + std::string(16, 'x'));
  expect_bad(run({"gray", pnm.string(), output.string()}), "zero.pgm",
             {"zero", "dimension", "empty", "width", "size", "corrupt"});
  EXPECT_FALSE(fs::exists(output));
}

TEST_F(CliTest, DimensionsOverTheLimit) {
  const fs::path output = work_ / "out.png";
  const fs::path huge = raw_file("huge.pgm", "P5\n100000 100000\n255\n" + std::string(64, 'x'));
  expect_bad(run({"gray", huge.string(), output.string()}), "huge.pgm",
             {"limit", "large", "exceed", "too big", "bytes"});
  const fs::path small = image_file("small.png", 64, 64);
  expect_bad(run({"gray", "--max-image-bytes", "1000", small.string(), output.string()}),
             "small.png", {"limit", "large", "exceed", "too big", "bytes"});
  EXPECT_FALSE(fs::exists(output));
  EXPECT_EQ(run({"gray", "--max-image-bytes", "100000", small.string(), output.string()}).exit_code,
            0);
}

TEST_F(CliTest, UnreadablePath) {
  const fs::path output = work_ / "out.png";
  const fs::path missing = work_ / "missing.png";
  expect_bad(run({"gray", missing.string(), output.string()}), "missing.png",
             {"no such", "cannot", "not found", "exist", "open", "read"});
  fs::create_directory(work_ / "folder.png");
  expect_bad(run({"gray", (work_ / "folder.png").string(), output.string()}), "folder.png",
             {"director", "cannot", "read", "open", "not a"});
  EXPECT_FALSE(fs::exists(output));
}

TEST_F(CliTest, UnknownOutputExtensionIsCheckedBeforeLoading) {
  const fs::path input = image_file("in.png");
  const fs::path output = work_ / "out.xyz";
  expect_bad(run({"gray", input.string(), output.string()}), "out.xyz", {"extension"});
  // The output is checked first: a bad input is not even opened.
  expect_bad(run({"gray", (work_ / "missing.png").string(), output.string()}), "out.xyz",
             {"extension"});
  expect_bad(run({"histogram", input.string(), (work_ / "h.txt").string()}), "h.txt",
             {"extension"});
  EXPECT_FALSE(fs::exists(output));
  expect_bad(run({"gray", input.string(), (work_ / "no_dir" / "out.png").string()}), "no_dir",
             {"does not exist"});
}

TEST_F(CliTest, OutputPathProblems) {
  const fs::path input = image_file("in.png");
  fs::create_directory(work_ / "dir.png");
  expect_bad(run({"gray", input.string(), (work_ / "dir.png").string()}), "dir.png",
             {"is a directory"});
  // A place nobody may create files in (even root): found before the load by creating a file
  // there (check_output_directory), a bad output argument: exit 2, one line.
  const RunResult r = run({"gray", input.string(), "/proc/parfilter-test.png"});
  EXPECT_EQ(r.exit_code, kExitBad) << r.err;
  EXPECT_EQ(count_lines(r.err), 1U) << r.err;
  EXPECT_NE(r.err.find("/proc"), std::string::npos) << r.err;
}

TEST_F(CliTest, BadInputNeverClobbersAnExistingOutputOrLeavesTemporaries) {
  const fs::path input = raw_file("bad.png", "\x89PNG\r\n\x1a\n garbage after the signature");
  const fs::path output = raw_file("keep.png", "previous contents");
  const auto before = work_.files();
  expect_bad(run({"gray", input.string(), output.string()}), "bad.png",
             {"corrupt", "truncat", "bad", "format", "not", "chunk"});
  EXPECT_EQ(read_file(output), "previous contents");
  EXPECT_EQ(work_.files(), before);

  const fs::path good = image_file("good.png");
  expect_usage(run({"gray", good.string(), good.string()}), "overwrite its input");
  EXPECT_TRUE(fs::exists(good));
}

TEST_F(CliTest, UsageErrors) {
  const fs::path input = image_file("in.png");
  const std::string in = input.string();
  const std::string out = (work_ / "out.png").string();
  expect_usage(run({"blur", in, out}), "unknown op 'blur'");
  expect_usage(run({"gaussian", "--border", "wrap", in, out}), "--border");
  expect_usage(run({"erode", "--se", "star:3x3", in, out}), "--se");
  expect_usage(run({"erode", "--se", "rect:0x3", in, out}), "--se");
  expect_usage(run({"gaussian", "--se", "rect:3x3", in, out}), "--se does not apply to gaussian");
  expect_usage(run({"sobel", "--sigma", "2", in, out}), "--sigma does not apply to sobel");
  expect_usage(run({"segment", "--window", "15", in, out}), "--window needs --adaptive");
  expect_usage(run({"segment", "--adaptive", "--window", "4", in, out}), "--window");
  expect_usage(run({"gaussian", "--sigma", "-1", in, out}), "--sigma");
  expect_usage(run({"gaussian", "--variant", "nope", in, out}), "nope");
  expect_usage(run({"gray", in}), "<input> <output>");
  expect_usage(run({"gray", "--no-such-option", in, out}), "--no-such-option");
  expect_usage(run({"gray", "--repeat", "0", in, out}), "--repeat");
  expect_usage(run({"gray", "--threads", "-1", in, out}), "--threads");
  expect_usage(run({"gray", "--format", "png", in, out}), "--format needs --out-dir");
  expect_usage(run({}), "missing the op");
  EXPECT_FALSE(fs::exists(out));
}

}  // namespace
}  // namespace parfilter
