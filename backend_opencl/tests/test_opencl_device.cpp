// The OpenCL backend on a real device (PoCL in CI; skipped with the reason where there is
// none): the program cache, availability, stage times and the CLI's exit.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "cl_device.hpp"
#include "cl_runtime.hpp"
#include "opencl_backend_test.hpp"
#include "parfilter/backends/opencl.hpp"
#include "parfilter/error.hpp"
#include "parfilter/image_io.hpp"
#include "program_cache.hpp"
#include "support/test_images.hpp"

namespace parfilter::opencl {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kSource =
    "__kernel void add_one(__global int* v) { v[get_global_id(0)] += 1; }\n";

class ProgramCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    DeviceList list;
    const DeviceChoice choice = test_choice(list);
    if (!choice.device) GTEST_SKIP() << choice.reason;
    runtime_ = &Runtime::of(list.devices[*choice.device].id);
  }
  [[nodiscard]] ProgramCache fresh_cache() const {
    return {runtime_->context_handle(), runtime_->device(), dir_.path()};
  }
  [[nodiscard]] fs::path entry(const std::string& options = "") const {
    return *fresh_cache().entry_path("add_one", kSource, options);
  }
  void expect_kernel(const Program& program) const {
    cl_int error = CL_SUCCESS;
    const Kernel kernel(clCreateKernel(program.get(), "add_one", &error));
    EXPECT_EQ(error, CL_SUCCESS) << error_name(error);
  }

  Runtime* runtime_ = nullptr;
  test::TempDir dir_;
};

TEST_F(ProgramCacheTest, SecondBuildHitsTheCache) {
  ProgramCache first = fresh_cache();
  double build_ms = 0.0;
  expect_kernel(first.get("add_one", kSource, "", &build_ms));
  EXPECT_EQ(first.stats().compiled, 1);
  EXPECT_TRUE(fs::exists(entry()));
  EXPECT_GT(build_ms, 0.0);
  (void)first.get("add_one", kSource, "");
  EXPECT_EQ(first.stats().memory_hits, 1);  // once per process

  ProgramCache second = fresh_cache();  // a new process, as far as the cache can tell
  expect_kernel(second.get("add_one", kSource, ""));
  EXPECT_EQ(second.stats().loaded, 1);
  EXPECT_EQ(second.stats().compiled, 0);
  EXPECT_NE(entry(), entry("-D OTHER=1"));  // options are part of the key
}

TEST_F(ProgramCacheTest, ACorruptEntryIsRebuilt) {
  (void)fresh_cache().get("add_one", kSource, "");
  const fs::path path = entry();
  std::ifstream in(path, std::ios::binary);
  const std::string good((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  in.close();
  ASSERT_GT(good.size(), 64U);
  std::string flipped = good;
  flipped[flipped.size() / 2] = static_cast<char>(flipped[flipped.size() / 2] ^ 0x5A);
  const std::vector<std::pair<std::string, std::string>> corruptions = {
      {"empty", ""},
      {"truncated", good.substr(0, good.size() / 2)},
      {"flipped byte", flipped},
      {"garbage", std::string(good.size(), 'x')},
      {"trailing bytes", good + "extra"}};
  for (const auto& [what, bytes] : corruptions) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
    ProgramCache cache = fresh_cache();
    expect_kernel(cache.get("add_one", kSource, ""));
    EXPECT_EQ(cache.stats().rejected, 1) << what;
    EXPECT_EQ(cache.stats().compiled, 1) << what;
    ProgramCache next = fresh_cache();  // the entry was rewritten whole
    (void)next.get("add_one", kSource, "");
    EXPECT_EQ(next.stats().loaded, 1) << what;
  }
}

TEST_F(ProgramCacheTest, WithoutADirectoryItBuildsInMemory) {
  ProgramCache cache(runtime_->context_handle(), runtime_->device(), std::nullopt);
  expect_kernel(cache.get("add_one", kSource, ""));
  EXPECT_EQ(cache.stats().compiled, 1);
  EXPECT_FALSE(cache.entry_path("add_one", kSource, ""));
}

TEST_F(ProgramCacheTest, ABuildFailurePrintsTheLog) {
  ProgramCache cache = fresh_cache();
  ::testing::internal::CaptureStderr();
  try {
    (void)cache.get("broken", "__kernel void f( {\n", "");
    FAIL() << "a broken program built";
  } catch (const RuntimeError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("clBuildProgram(broken): CL_BUILD_PROGRAM_FAILURE", 0),
              0U)
        << e.what();
  }
  EXPECT_NE(::testing::internal::GetCapturedStderr().find("OpenCL build log of broken"),
            std::string::npos);
}

// ---- the backend -------------------------------------------------------------------------
TEST(OpenClBackend, AnUnknownDeviceIsAbsentWithItsReason) {
  const auto backend = make_opencl_backend({0, "", "no-such-device"});
  const Availability availability = backend->availability();
  EXPECT_FALSE(availability.present);
  EXPECT_TRUE(availability.reason == "no OpenCL device matching 'no-such-device'" ||
              availability.reason == "no OpenCL platform")
      << availability.reason;
  const Image image = test::synthetic_image(5, 4, 3, 1);
  EXPECT_THROW((void)backend->run(Op::gray, image.view(), {}), RuntimeError);
}

TEST_F(OpenClBackendTest, ReportsStageTimesAndListsItsDevice) {
  const Image image = test::synthetic_image(37, 23, 3, 2);
  StageTimes times;
  (void)backend_->run(Op::gaussian, image.view(), {}, &times);
  EXPECT_TRUE(times.upload_ms && times.download_ms && times.build_ms);
  EXPECT_GE(times.compute_ms, 0.0);
  EXPECT_NE(backend_->describe_devices().find("  * ["), std::string::npos);
}

TEST(OpenClCli, NoMatchingDeviceExitsOneWithOneLine) {
  test::TempDir dir;
  save_image(test::synthetic_image(4, 3, 3, 1), dir / "in.png");
  const std::string command = "PARFILTER_OPENCL_DEVICE=no-such-device '" +
                              std::string(PARFILTER_OPENCL_EXE) + "' gray '" +
                              (dir / "in.png").string() + "' '" + (dir / "out.png").string() +
                              "' 2> '" + (dir / "err").string() + "'";
  const int status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 1);
  std::ifstream err(dir / "err");
  const std::string text((std::istreambuf_iterator<char>(err)), std::istreambuf_iterator<char>());
  EXPECT_TRUE(text == "parfilter-opencl: no OpenCL device matching 'no-such-device'\n" ||
              text == "parfilter-opencl: no OpenCL platform\n")
      << text;
  EXPECT_FALSE(fs::exists(dir / "out.png"));
}

}  // namespace
}  // namespace parfilter::opencl
