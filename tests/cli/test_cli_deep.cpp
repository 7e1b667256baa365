// 16-bit files through the executables: a 16-bit PNG or TIFF comes back 16-bit with the
// reference's samples; --depth converts on load; a 16-bit result to an 8-bit format, or to a
// backend that runs 8 bits only, is refused with one line, exit 2 and no output file.
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

constexpr int kExitBad = 2;

class CliDeep : public ::testing::Test {
 protected:
  test::ProcessResult run(const std::string& exe, const std::vector<std::string>& args) {
    std::vector<std::string> argv{exe};
    argv.insert(argv.end(), args.begin(), args.end());
    return test::run_process(argv, capture_.path(), {}, {});
  }
  test::ProcessResult serial(const std::vector<std::string>& args) {
    return run(PARFILTER_SERIAL_EXE, args);
  }

  fs::path deep_input(const std::string& name) {
    const fs::path path = work_ / name;
    save_image(input_, path);
    return path;
  }

  Image input_ = test::synthetic_image_16(23, 17, 3, 4, 12);
  test::TempDir work_;
  test::TempDir capture_;
};

void expect_refused(const test::ProcessResult& r, const std::string& fragment) {
  EXPECT_EQ(r.exit_code, kExitBad) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find(fragment), std::string::npos) << r.err;
}

TEST_F(CliDeep, SixteenBitPngAndTiffStaySixteenBit) {
  std::vector<std::string> extensions = {".png", ".ppm"};
  if (io::have_tiff()) extensions.push_back(".tif");
  for (const std::string& in_ext : extensions) {
    for (const std::string& out_ext : extensions) {
      const fs::path input = deep_input("in" + in_ext);
      const fs::path output = work_ / ("out" + out_ext);
      const auto r = serial({"gaussian", input.string(), output.string()});
      ASSERT_EQ(r.exit_code, 0) << r.err;
      EXPECT_TRUE(
          test::same_image(reference::run(Op::gaussian, input_, {}).image, load_image(output)))
          << in_ext << " -> " << out_ext;
    }
  }
}

TEST_F(CliDeep, DepthConvertsOnLoad) {
  const fs::path input = deep_input("in.png");
  const fs::path output = work_ / "out.png";
  ASSERT_EQ(serial({"sharpen", "--depth", "8", input.string(), output.string()}).exit_code, 0);
  EXPECT_TRUE(test::same_image(
      reference::run(Op::sharpen, convert_depth(input_, Depth::u8), {}).image, load_image(output)));
  const fs::path eight = work_ / "eight.png";
  save_image(test::synthetic_image(9, 5, 1, 2), eight);
  ASSERT_EQ(serial({"gray", "--depth", "16", eight.string(), output.string()}).exit_code, 0);
  EXPECT_TRUE(test::same_image(convert_depth(test::synthetic_image(9, 5, 1, 2), Depth::u16),
                               load_image(output)));
}

TEST_F(CliDeep, EightBitFormatsRefuseASixteenBitResult) {
  const fs::path input = deep_input("in.png");
  for (const std::string name : {"out.jpg", "out.bmp", "out.tga"}) {
    const fs::path output = work_ / name;
    expect_refused(serial({"gaussian", input.string(), output.string()}), "--depth 8");
    EXPECT_FALSE(fs::exists(output)) << name;
  }
}

TEST_F(CliDeep, ConstantBorderAboveTheTopIsRefused) {
  const fs::path eight = work_ / "eight.png";
  save_image(test::synthetic_image(9, 5, 1, 2), eight);
  const fs::path output = work_ / "out.png";
  expect_refused(serial({"gaussian", "--border", "constant:300", eight.string(), output.string()}),
                 "constant:300");
  EXPECT_FALSE(fs::exists(output));
  const fs::path input = deep_input("in.png");
  EXPECT_EQ(
      serial({"gaussian", "--border", "constant:300", input.string(), output.string()}).exit_code,
      0);
}

TEST_F(CliDeep, HistogramCsvHas65536Rows) {
  const fs::path input = deep_input("in.png");
  const fs::path output = work_ / "hist.csv";
  ASSERT_EQ(serial({"histogram", input.string(), output.string()}).exit_code, 0);
  const test::files::Bytes bytes = test::files::read_bytes(output);
  const std::string csv(bytes.begin(), bytes.end());
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 65536 + 1);
}

TEST_F(CliDeep, JsonCarriesThe65536Bins) {
  const fs::path input = deep_input("in.png");
  const auto r = serial({"histogram", "--json", input.string(), (work_ / "hist.csv").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::size_t start = r.out.find("\"histogram\": [[");
  ASSERT_NE(start, std::string::npos) << r.out;
  const std::string bins = r.out.substr(start, r.out.find("]]", start) - start);
  EXPECT_EQ(std::count(bins.begin(), bins.end(), ','), 65536 - 1);
}

#ifdef PARFILTER_OPENCL_EXE
TEST_F(CliDeep, TheOpenClExecutableKeepsSixteenBits) {
  const fs::path input = deep_input("in.png");
  const fs::path output = work_ / "out.png";
  const auto r = run(PARFILTER_OPENCL_EXE, {"gaussian", input.string(), output.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(test::same_image(reference::run(Op::gaussian, input_, {}).image, load_image(output)));
}
#endif

}  // namespace
}  // namespace parfilter
