// The OpenCL backend's host-side logic that needs no device: device selection, error names,
// the structuring-element decompositions the morphology kernels take.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "cl_api.hpp"
#include "cl_device.hpp"
#include "morphology.hpp"
#include "parfilter/error.hpp"

namespace parfilter::opencl {
namespace {

// ---- device selection --------------------------------------------------------------------
TEST(DeviceRequest, EnvironmentForms) {
  const DeviceRequest both = parse_device_env("NVIDIA:H100");
  EXPECT_EQ(both.platform, "NVIDIA");
  EXPECT_EQ(both.device, "H100");
  EXPECT_EQ(both.source, "PARFILTER_OPENCL_DEVICE=NVIDIA:H100");
  const DeviceRequest platform_only = parse_device_env("pocl:");
  EXPECT_EQ(platform_only.platform, "pocl");
  EXPECT_EQ(platform_only.device, "");
  const DeviceRequest device_only = parse_device_env("1");
  EXPECT_EQ(device_only.platform, "");
  EXPECT_EQ(device_only.device, "1");
  const DeviceRequest leading_colon = parse_device_env(":gpu");
  EXPECT_EQ(leading_colon.platform, "");
  EXPECT_EQ(leading_colon.device, "gpu");
}

TEST(DeviceRequest, OptionsWinOverTheEnvironment) {
  const DeviceRequest from_options = device_request({0, "", "cpu"}, "NVIDIA:");
  EXPECT_EQ(from_options.platform, "");  // the environment is ignored entirely
  EXPECT_EQ(from_options.device, "cpu");
  EXPECT_EQ(from_options.source, "--platform/--device");
  const DeviceRequest from_env = device_request({}, "NVIDIA:");
  EXPECT_EQ(from_env.platform, "NVIDIA");
  const DeviceRequest fallback = device_request({}, "");
  EXPECT_TRUE(fallback.platform.empty() && fallback.device.empty());
  EXPECT_EQ(device_request({}, nullptr).device, "");
}

/// Two platforms: a CPU-only one first, then one with a CPU and two GPUs.
DeviceList two_platforms() {
  DeviceList list;
  list.platforms = {{nullptr, "Portable Computing Language", "The pocl project", "OpenCL 3.0"},
                    {nullptr, "NVIDIA CUDA", "NVIDIA Corporation", "OpenCL 3.0 CUDA"}};
  list.devices = {{nullptr, 0, 0, "pthread-skylake", "", "", CL_DEVICE_TYPE_CPU, 2, 0},
                  {nullptr, 1, 0, "Some CPU", "", "", CL_DEVICE_TYPE_CPU, 8, 0},
                  {nullptr, 1, 1, "NVIDIA H100 80GB HBM3", "", "", CL_DEVICE_TYPE_GPU, 132, 0},
                  {nullptr, 1, 2, "NVIDIA H200", "", "", CL_DEVICE_TYPE_GPU, 132, 0}};
  return list;
}

std::optional<std::size_t> chosen(const DeviceList& list, std::string platform,
                                  std::string device) {
  return choose_device(list, {std::move(platform), std::move(device), "test"}).device;
}

TEST(ChooseDevice, DefaultIsTheFirstGpuElseTheFirstDevice) {
  const DeviceList list = two_platforms();
  EXPECT_EQ(chosen(list, "", ""), 2U);
  EXPECT_EQ(chosen(list, "pocl", ""), 0U);  // no GPU there: its first device
}

TEST(ChooseDevice, IndexCountsTheSelectedPlatformsDevicesGpusFirst) {
  const DeviceList list = two_platforms();
  EXPECT_EQ(chosen(list, "", "0"), 2U);  // all platforms: the GPUs, then the others
  EXPECT_EQ(chosen(list, "", "1"), 3U);
  EXPECT_EQ(chosen(list, "", "2"), 0U);
  EXPECT_EQ(chosen(list, "", "3"), 1U);
  EXPECT_EQ(chosen(list, "1", "0"), 2U);  // within platform 1
  EXPECT_EQ(chosen(list, "nvidia", "2"), 1U);
  EXPECT_FALSE(chosen(list, "1", "3"));
  EXPECT_FALSE(chosen(list, "", "99999999999999999999999"));
}

TEST(ChooseDevice, RanksSpreadOverTheGpusWhereThereAreAny) {
  const DeviceList list = two_platforms();
  EXPECT_EQ(candidate_count(list, ""), 2U);  // the two GPUs, not the CPUs beside them
  EXPECT_EQ(candidate_count(list, "pocl"), 1U);
  EXPECT_EQ(candidate_count(DeviceList{}, ""), 0U);
}

TEST(ChooseDevice, NamesMatchCaseInsensitiveSubstringsOfNameVendorOrType) {
  const DeviceList list = two_platforms();
  EXPECT_EQ(chosen(list, "", "h200"), 3U);
  EXPECT_EQ(chosen(list, "", "CPU"), 0U);  // the type matches too
  EXPECT_EQ(chosen(list, "NVIDIA", "cpu"), 1U);
  EXPECT_EQ(chosen(list, "Portable", ""), 0U);     // platform name
  EXPECT_EQ(chosen(list, "corporation", ""), 2U);  // platform vendor
}

TEST(ChooseDevice, SaysWhyNothingMatches) {
  const DeviceList list = two_platforms();
  EXPECT_EQ(choose_device(DeviceList{}, {}).reason, "no OpenCL platform");
  EXPECT_EQ(choose_device(list, {"AMD", "", ""}).reason, "no OpenCL platform matching 'AMD'");
  EXPECT_EQ(choose_device(list, {"", "MI300", ""}).reason, "no OpenCL device matching 'MI300'");
  EXPECT_EQ(choose_device(list, {"pocl", "gpu", ""}).reason,
            "no OpenCL device matching 'gpu' on platform 'pocl'");
  DeviceList empty_platform;
  empty_platform.platforms = {{nullptr, "Empty", "Nobody", "OpenCL 1.2"}};
  EXPECT_EQ(choose_device(empty_platform, {}).reason, "no OpenCL device");
}

TEST(ChooseDevice, ListingMarksTheChoice) {
  const DeviceList list = two_platforms();
  const DeviceRequest request{"", "h200", "--platform/--device"};
  const std::string text = describe(list, request, choose_device(list, request));
  EXPECT_NE(text.find("  * [1] device 2: NVIDIA H200 (GPU"), std::string::npos) << text;
  EXPECT_NE(text.find("    [2] device 0: pthread-skylake (CPU"), std::string::npos) << text;
  EXPECT_NE(text.find("platform 1: NVIDIA CUDA"), std::string::npos) << text;
  const DeviceRequest none{"", "MI300", "test"};
  EXPECT_NE(describe(list, none, choose_device(list, none)).find("no OpenCL device matching"),
            std::string::npos);
  EXPECT_NE(describe(DeviceList{}, {}, choose_device(DeviceList{}, {})).find("no OpenCL platform"),
            std::string::npos);
}

// ---- errors ------------------------------------------------------------------------------
TEST(ClErrors, NameTheCallAndTheCode) {
  EXPECT_EQ(error_name(CL_INVALID_WORK_GROUP_SIZE), "CL_INVALID_WORK_GROUP_SIZE");
  EXPECT_EQ(error_name(CL_OUT_OF_RESOURCES), "CL_OUT_OF_RESOURCES");
  EXPECT_EQ(error_name(-12345), "CL error -12345");
  try {
    check(CL_INVALID_WORK_GROUP_SIZE, call_name("clEnqueueNDRangeKernel", "sharpen_local"));
    FAIL() << "check did not throw";
  } catch (const RuntimeError& e) {
    EXPECT_STREQ(e.what(), "clEnqueueNDRangeKernel(sharpen_local): CL_INVALID_WORK_GROUP_SIZE");
  }
  EXPECT_NO_THROW(check(CL_SUCCESS, "clFinish"));
}

// ---- structuring-element plans -----------------------------------------------------------
TEST(MorphologyPlan, ColumnGroupsOfACross) {
  const ColumnGroups cross = column_groups(make_structuring_element({SeShape::cross, 5, 3}));
  ASSERT_EQ(cross.groups.size(), 2U);
  // The short run (the middle row, columns 0 1 3 4) first, then the full middle column.
  EXPECT_EQ(cross.groups[0].y0, 1);
  EXPECT_EQ(cross.groups[0].y1, 2);
  EXPECT_EQ(cross.groups[0].count, 4);
  EXPECT_EQ(cross.groups[1].y0, 0);
  EXPECT_EQ(cross.groups[1].y1, 3);
  EXPECT_EQ(cross.columns, (std::vector<int>{0, 1, 3, 4, 2}));
}

TEST(MorphologyPlan, EveryShapeIsCoveredOnceAndClosedTowardItsAnchor) {
  for (const SeShape shape : {SeShape::rect, SeShape::cross, SeShape::ellipse}) {
    for (int w = 1; w <= 15; ++w) {
      for (int h = 1; h <= 15; ++h) {
        const StructuringElement se = make_structuring_element({shape, w, h});
        EXPECT_TRUE(closed_toward_anchor(se)) << to_string(SeSpec{shape, w, h});
        std::vector<int> covered(se.mask.size(), 0);
        const ColumnGroups groups = column_groups(se);
        for (const ColumnGroup& g : groups.groups) {
          for (int k = g.first; k < g.first + g.count; ++k) {
            for (int y = g.y0; y < g.y1; ++y) ++covered[y * w + groups.columns[k]];
          }
        }
        for (const RowRun& run : row_runs(se)) {
          for (int y = run.y0; y < run.y1; ++y) {
            for (int x = run.x0; x < run.x1; ++x) covered[y * w + x] += 2;
          }
        }
        for (std::size_t i = 0; i < covered.size(); ++i) {
          EXPECT_EQ(covered[i], se.mask[i] != 0 ? 3 : 0) << to_string(SeSpec{shape, w, h});
        }
      }
    }
  }
}

TEST(MorphologyPlan, RectCoversAreTheSetPixelsWithOneRectPerRowWidth) {
  const auto cover_of = [](SeShape shape, int w, int h) {
    return rect_cover(make_structuring_element({shape, w, h}));
  };
  EXPECT_EQ(cover_of(SeShape::rect, 31, 31), (std::vector<ElementRect>{{0, 31, 0, 31}}));
  // A 5x5 cross: its middle row and its middle column.
  EXPECT_EQ(cover_of(SeShape::cross, 5, 5), (std::vector<ElementRect>{{2, 3, 0, 5}, {0, 5, 2, 3}}));
  for (const SeShape shape : {SeShape::rect, SeShape::cross, SeShape::ellipse}) {
    for (int w = 1; w <= 17; ++w) {
      for (int h = 1; h <= 17; ++h) {
        const StructuringElement se = make_structuring_element({shape, w, h});
        std::vector<int> covered(se.mask.size(), 0);
        std::vector<std::pair<int, int>> widths;
        for (const ElementRect& r : rect_cover(se)) {
          widths.emplace_back(r.x0, r.x1);
          for (int y = r.y0; y < r.y1; ++y) {
            for (int x = r.x0; x < r.x1; ++x) covered[y * w + x] = 1;
          }
        }
        for (std::size_t i = 0; i < covered.size(); ++i) {
          EXPECT_EQ(covered[i], se.mask[i] != 0 ? 1 : 0) << to_string(SeSpec{shape, w, h});
        }
        std::sort(widths.begin(), widths.end());
        EXPECT_EQ(std::adjacent_find(widths.begin(), widths.end()), widths.end())
            << "two rects of one row span in " << to_string(SeSpec{shape, w, h});
      }
    }
  }
}

TEST(MorphologyPlan, SpanReachIsEachRowsReachAroundTheAnchor) {
  // A 5x3 cross: the anchor column, the whole middle row, the anchor column.
  const SpanReach cross = span_reach(make_structuring_element({SeShape::cross, 5, 3}));
  EXPECT_EQ(cross.left, (std::vector<int>{0, 2, 0}));
  EXPECT_EQ(cross.right, (std::vector<int>{0, 2, 0}));
  EXPECT_EQ(cross.max_left, 2);
  EXPECT_EQ(cross.max_right, 2);
  // An even width puts the anchor right of the middle: rect 4x1 spans [0, 4) around column 2.
  const SpanReach even = span_reach(make_structuring_element({SeShape::rect, 4, 1}));
  EXPECT_EQ(even.left, (std::vector<int>{2}));
  EXPECT_EQ(even.right, (std::vector<int>{1}));
  StructuringElement gap = make_structuring_element({SeShape::rect, 3, 3});
  gap.row_spans[0] = {0, 0};  // an empty row
  EXPECT_EQ(span_reach(gap).left.front(), -1);
}

TEST(MorphologyPlan, LevelReachIsEachLevelsReachOrEmpty) {
  const auto levels_of = [](SeShape shape, int w, int h) {
    return level_reach(make_structuring_element({shape, w, h}));
  };
  // A 7x7 ellipse's rows span [3,4) [1,6) [0,7) [0,7) [0,7) [1,6) [3,4).
  EXPECT_EQ(levels_of(SeShape::ellipse, 7, 7), (std::vector<int>{3, 3, 2, 0}));
  EXPECT_EQ(levels_of(SeShape::ellipse, 7, 5), (std::vector<int>{3, 3, 0}));
  EXPECT_EQ(levels_of(SeShape::cross, 5, 5), (std::vector<int>{2, 0, 0}));
  EXPECT_EQ(levels_of(SeShape::rect, 5, 3), (std::vector<int>{2, 2}));
  EXPECT_EQ(levels_of(SeShape::rect, 1, 1), (std::vector<int>{0}));
  // Not levels: an even height (no middle row), an even width (spans not centred on the
  // anchor), a farther row reaching farther than a nearer one.
  EXPECT_TRUE(levels_of(SeShape::rect, 3, 4).empty());
  EXPECT_TRUE(levels_of(SeShape::rect, 4, 3).empty());
  StructuringElement hourglass = make_structuring_element({SeShape::rect, 3, 3});
  hourglass.row_spans[1] = {1, 2};
  EXPECT_TRUE(level_reach(hourglass).empty());
}

TEST(MorphologyPlan, AnElementNotClosedTowardItsAnchorIsDetected) {
  StructuringElement ring = make_structuring_element({SeShape::rect, 3, 3});
  ring.row_spans[1] = {0, 1};  // the middle row no longer holds the anchor column
  EXPECT_FALSE(closed_toward_anchor(ring));
  StructuringElement hourglass = make_structuring_element({SeShape::rect, 3, 3});
  hourglass.row_spans[1] = {1, 2};  // narrower than the rows above and below it
  EXPECT_FALSE(closed_toward_anchor(hourglass));
}

TEST(MorphologyPlan, RectTileLayoutsFitTheLocalMemory) {
  constexpr std::size_t kNvidiaLocalBytes = 48 * 1024;
  constexpr std::size_t kMinimumLocalBytes = 32 * 1024;  // OpenCL 1.2's least for a GPU
  constexpr std::size_t kItems = 1024;
  // 31 x 31: eight segments of one chunk's 31 rows take 248 of 256 work items, so the results
  // go over the tile; in rows of their own, 256 work items would need 65 KB.
  EXPECT_EQ(rect_tile_layout(31, 31, kNvidiaLocalBytes, kItems), (RectTileLayout{256, 31, true}));
  EXPECT_GT(rect_tile_local_bytes(31, {256, 31, false}), kNvidiaLocalBytes);
  // 3 x 3: 85 segments of 30 rows are more than the work items, so rows of their own.
  EXPECT_EQ(rect_tile_layout(3, 3, kNvidiaLocalBytes, kItems), (RectTileLayout{192, 30, false}));
  // A device of at most 128 work items per group.
  EXPECT_EQ(rect_tile_layout(31, 31, kNvidiaLocalBytes, 128), (RectTileLayout{128, 31, true}));
  EXPECT_THROW(static_cast<void>(rect_tile_layout(31, 31, kNvidiaLocalBytes, 32)), RuntimeError);
  for (int w = 1; w <= 32; ++w) {
    for (int h = 1; h <= 32; ++h) {
      for (const std::size_t local : {kMinimumLocalBytes, kNvidiaLocalBytes}) {
        const RectTileLayout layout = rect_tile_layout(w, h, local, kItems);
        EXPECT_LE(rect_tile_local_bytes(w, layout), local) << w << "x" << h;
        EXPECT_EQ(layout.chunk_rows % h, 0) << w << "x" << h;
        EXPECT_GE(layout.items / w, 1) << w << "x" << h;
        if (layout.in_place) {
          EXPECT_LE(layout.chunk_rows * (layout.items / w), layout.items) << w << "x" << h;
        }
      }
    }
  }
}

TEST(MorphologyPlan, RectTileRowsAvoidLocalBankConflicts) {
  constexpr int kBanks = 32;
  constexpr int kWarp = 32;
  // 31 x 31 on 256 work items: a warp's 32 items read 4 rows x 8 segments. At the least stride
  // (284 words, 28 mod 32) item (r, k) hits bank 28 r - k, two to a bank; at 296 (8 mod 32),
  // 8 r - k, each bank once.
  const RectTileLayout wide{256, 31, true};
  EXPECT_EQ(rect_tile_stride(31, wide), 296);
  // 128 work items, 4 segments: the least stride (160, 0 mod 32) puts 8 rows on one bank.
  EXPECT_EQ(rect_tile_stride(31, {128, 31, true}), 164);
  for (const RectTileLayout& layout : {wide, RectTileLayout{128, 31, true}}) {
    const int segments = layout.items / 31;
    const int stride = rect_tile_stride(31, layout);
    for (int warp = 0; warp < layout.items; warp += kWarp) {
      std::set<int> banks;
      for (int t = warp; t < warp + kWarp; ++t) {
        banks.insert((t / segments * stride + t % segments * 31) % kBanks);
      }
      EXPECT_EQ(banks.size(), static_cast<std::size_t>(kWarp)) << layout.items << " items";
    }
  }
  // Every width: whole quads past the strip, its apron and a lead of up to 3 words, and at most
  // a bank row (32 words) of padding.
  for (int w = 1; w <= 32; ++w) {
    const RectTileLayout layout{256, 32 / w * w, false};
    const int columns = 256 / w * w + w - 1;
    const int stride = rect_tile_stride(w, layout);
    EXPECT_EQ(stride % 4, 0) << w;
    EXPECT_GE(stride, columns + 3) << w;
    EXPECT_LT(stride, columns + 6 + kBanks) << w;
  }
}

TEST(MorphologyPlan, VanHerkBlocks) {
  EXPECT_EQ(floor_div(-1, 3), -1);
  EXPECT_EQ(floor_div(-3, 3), -1);
  EXPECT_EQ(floor_div(-4, 3), -2);
  EXPECT_EQ(floor_div(4, 3), 1);
  EXPECT_EQ(vhgw_blocks(10, 3, -1), 4U);  // positions -1..8: blocks -1, 0, 1, 2
  EXPECT_EQ(vhgw_blocks(1, 255, -127), 1U);
  EXPECT_EQ(vhgw_blocks(9, 3, 0), 3U);
}

}  // namespace
}  // namespace parfilter::opencl
