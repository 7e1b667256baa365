// No data lost, shown on the real parfilter-serial: a failed run never clobbers an existing
// output, a run killed during its save leaves the old file or nothing (never a partial image),
// and in a batch one bad input or unwritable output does not stop the others.
#include <gtest/gtest.h>

#include <csignal>
#include <cstdint>
#include <string>
#include <vector>

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
using test::files::write_text;

constexpr const char* kExe = PARFILTER_SERIAL_EXE;
constexpr int kExitRuntime = 1;
constexpr int kExitBad = 2;
// The fault-injection point in write_file_atomically (image_io.cpp); test-only.
constexpr const char* kKillDuringSave = "PARFILTER_TEST_KILL_DURING_SAVE=1";
// Noise compresses badly: the encoded file is far larger than the file-size limit below.
constexpr int kSide = 64;
constexpr int kRgb = 3;
constexpr std::uint32_t kSeed = 5;
constexpr int kJpegMaxSide = 65535;

std::string contents(const fs::path& path) {
  const Bytes bytes = read_bytes(path);
  return {bytes.begin(), bytes.end()};
}

class DataSafety : public ::testing::Test {
 protected:
  test::ProcessResult run(const std::vector<std::string>& args,
                          const std::vector<std::string>& environment = {}) {
    std::vector<std::string> argv{kExe};
    argv.insert(argv.end(), args.begin(), args.end());
    return test::run_process(argv, capture_.path(), environment);
  }

  /// The same, with the output file size limited to a few blocks (ulimit -f 2; SIGXFSZ at its
  /// default, death: the executable ignores it itself, so that the write fails with EFBIG).
  test::ProcessResult run_with_small_file_limit(const std::vector<std::string>& args) {
    constexpr std::uint64_t kTwoBlocks = 2048;
    test::ProcessLimits limits;
    limits.file_size_bytes = kTwoBlocks;
    std::vector<std::string> argv{kExe};
    argv.insert(argv.end(), args.begin(), args.end());
    return test::run_process(argv, capture_.path(), {}, limits);
  }

  fs::path noise_png(const std::string& name) {
    const fs::path path = work_ / name;
    save_image(test::noise_image(kSide, kSide, kRgb, kSeed), path);
    return path;
  }

  test::TempDir work_;
  test::TempDir capture_;
};

TEST_F(DataSafety, FailedRunsNeverClobberAnExistingOutput) {
  const fs::path input = noise_png("in.png");
  const fs::path corrupt = work_ / "corrupt.png";
  write_text(corrupt, "\x89PNG\r\n\x1a\n but nothing after the signature");
  const fs::path wide = work_ / "wide.png";  // too wide for a JPEG
  save_image(Image(kJpegMaxSide + 1, 1, 1), wide);
  const fs::path output = work_ / "out.png";
  const fs::path jpeg_output = work_ / "out.jpg";
  write_text(output, "previous contents");
  write_text(jpeg_output, "previous jpeg");
  const auto files_before = work_.files();

  struct Case {
    std::string cause;  // a fragment of the error line
    int exit_code;
    test::ProcessResult result;
  };
  const std::vector<Case> cases{
      {"corrupt", kExitBad, run({"gray", corrupt.string(), output.string()})},
      {"--sigma", kExitBad, run({"gaussian", "--sigma", "-1", input.string(), output.string()})},
      {"over the limit", kExitBad,
       run({"gray", "--max-image-bytes", "100", input.string(), output.string()})},
      {"write error: file too large", kExitRuntime,
       run_with_small_file_limit({"sharpen", input.string(), output.string()})},
      {"too large for this format", kExitRuntime,
       run({"gray", wide.string(), jpeg_output.string()})},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.cause);
    EXPECT_EQ(c.result.signal, 0);
    EXPECT_EQ(c.result.exit_code, c.exit_code) << c.result.err;
    EXPECT_NE(c.result.err.find(c.cause), std::string::npos) << c.result.err;
    EXPECT_EQ(contents(output), "previous contents");
    EXPECT_EQ(contents(jpeg_output), "previous jpeg");
    EXPECT_EQ(work_.files(), files_before) << "a temporary file was left behind";
  }
}

/// The hidden temporaries write_file_atomically left in `dir` (".<name>.tmp.XXXXXX").
std::vector<std::string> stale_temporaries(const test::TempDir& dir, const std::string& name) {
  std::vector<std::string> found;
  for (const auto& file : dir.files()) {
    if (file.rfind("." + name + ".tmp.", 0) == 0) found.push_back(file);
  }
  return found;
}

TEST_F(DataSafety, KilledDuringSaveLeavesTheOldFileOrNothing) {
  const fs::path input = noise_png("in.png");
  const Image expected = reference::run(Op::sharpen, load_image(input), OpParams{}).image;

  // An existing output survives byte for byte.
  const fs::path old_output = noise_png("old.png");
  const Bytes old_bytes = read_bytes(old_output);
  const auto killed = run({"sharpen", input.string(), old_output.string()}, {kKillDuringSave});
  EXPECT_EQ(killed.signal, SIGKILL) << killed.err;
  EXPECT_EQ(read_bytes(old_output), old_bytes);
  // The temporary it was writing stays behind, hidden and partial: documented in image_io.hpp.
  const auto temporaries = stale_temporaries(work_, "old.png");
  ASSERT_EQ(temporaries.size(), 1U);
  EXPECT_GT(fs::file_size(work_ / temporaries[0]), 0U);

  // A new output is absent, not partial.
  const fs::path new_output = work_ / "new.png";
  EXPECT_EQ(run({"sharpen", input.string(), new_output.string()}, {kKillDuringSave}).signal,
            SIGKILL);
  EXPECT_FALSE(fs::exists(new_output));

  // The next run is not disturbed by the stale temporaries and writes the whole result.
  const auto rerun = run({"sharpen", input.string(), old_output.string()});
  ASSERT_EQ(rerun.exit_code, 0) << rerun.err;
  EXPECT_TRUE(test::same_image(expected, load_image(old_output)));

  // In a batch the process dies at its first save: that output is absent, nothing is partial.
  const fs::path out_dir = work_ / "batch";
  const auto batch = run(
      {"sharpen", "--out-dir", out_dir.string(), input.string(), noise_png("second.png").string()},
      {kKillDuringSave});
  EXPECT_EQ(batch.signal, SIGKILL);
  for (const auto& entry : fs::directory_iterator(out_dir)) {
    EXPECT_EQ(entry.path().filename().string().front(), '.') << entry.path();
  }
}

TEST_F(DataSafety, BatchGoesOnPastABadInputAndAnUnwritableOutput) {
  const fs::path out_dir = work_ / "out";
  fs::create_directories(out_dir / "c.png");  // a directory where c's result would go
  const fs::path bad = work_ / "b.png";
  write_text(bad, "not an image");
  const auto r = run({"gray", "--out-dir", out_dir.string(), noise_png("a.png").string(),
                      bad.string(), noise_png("c.png").string(), noise_png("d.png").string()});
  EXPECT_EQ(r.exit_code, kExitBad) << r.err;
  EXPECT_NE(r.err.find("b.png"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("c.png"), std::string::npos) << r.err;
  EXPECT_EQ(load_image(out_dir / "a.png").width(), kSide);
  EXPECT_EQ(load_image(out_dir / "d.png").width(), kSide);
  EXPECT_FALSE(fs::exists(out_dir / "b.png"));
  EXPECT_TRUE(fs::is_directory(out_dir / "c.png"));
}

}  // namespace
}  // namespace parfilter
