// erode, dilate, open, close: the steps of morphology_steps (filter_math.hpp), ping-ponging
// between two device images. A step is one kernel (naive, columns), or a row and a column van
// Herk/Gil-Werman pass per run of equal element rows (vhgw); image2d runs on images
// (morphology_image.cpp).
#include <algorithm>
#include <stdexcept>

#include "filter_math.hpp"
#include "morphology.hpp"
#include "ops.hpp"

namespace parfilter::opencl {
namespace {

static_assert(sizeof(int) == sizeof(cl_int), "element tables are uploaded as int");

std::size_t ceil_div(std::size_t n, std::size_t d) { return (n + d - 1) / d; }

/// The default's choice. On a CPU device van Herk/Gil-Werman (about 3 operations per sample
/// and pass whatever the element) wins once a rect covers this many pixels, and the 16-lane loop
/// is fastest for small elements. On a GPU the rows kernel takes the small rects it fits (H200,
/// 7680x4320 RGBA, rect 3x3: 0.21 ms against 0.35 for columns), and the columns kernel won at
/// every other size measured (rect 31x31 1.8 ms against 4.0 for vHGW).
constexpr int kVhgwMinRectArea = 49;
constexpr int kVectorMaxCpuSamples = 64;

/// morph_rect_rows: the samples its rect may reach either side of a 16-byte vector (the 8
/// bytes it loads there), and the most rows it keeps in registers.
constexpr int kRectRowsReach = 8;
constexpr int kRectRowsMaxHeight = 15;

/// Whether every pixel of the element is set (a rect, or an ellipse or cross as small as one).
bool full_rect(const StructuringElement& se) {
  return std::all_of(se.mask.begin(), se.mask.end(), [](std::uint8_t m) { return m != 0; });
}

/// Whether morph_rect_rows can run this element on this image: a rect within its reach, and
/// rows that start 16-byte aligned.
bool rect_rows_fit(const MorphologySetup& s) {
  const StructuringElement& se = s.se;
  const int left = se.anchor_x * s.channels;
  const int right = (se.width - 1 - se.anchor_x) * s.channels;
  const std::size_t row_samples = s.pixels().x * static_cast<std::size_t>(s.channels);
  return full_rect(se) && left <= kRectRowsReach && right <= kRectRowsReach &&
         se.height <= kRectRowsMaxHeight && row_samples % kVectorLanes == 0;
}

std::string_view chosen_variant(std::string_view variant, const MorphologySetup& setup,
                                bool cpu_device) {
  const StructuringElement& se = setup.se;
  if (variant == kMorphRows && !rect_rows_fit(setup)) variant = kMorphDefault;
  if (variant != kMorphDefault) return variant;
  if (!cpu_device && rect_rows_fit(setup)) return kMorphRows;
  const auto set = std::count(se.mask.begin(), se.mask.end(), std::uint8_t{1});
  if (cpu_device && full_rect(se) && set >= kVhgwMinRectArea) {
    return kMorphVhgw;
  }
  return cpu_device && set <= kVectorMaxCpuSamples ? kMorphVector : kMorphColumns;
}

/// Runs the steps of one variant on device buffers; holds the variant's tables.
class BufferSteps {
 public:
  BufferSteps(Lane& rt, const MorphologySetup& setup, std::string_view variant)
      : rt_(rt), setup_(setup), variant_(variant) {
    if (variant == kMorphColumns) {
      const ColumnGroups groups = column_groups(setup.se);
      std::vector<cl_int4> table;
      for (const ColumnGroup& g : groups.groups) table.push_back({{g.y0, g.y1, g.first, g.count}});
      group_count_ = static_cast<cl_int>(table.size());
      groups_ = rt.upload(table.data(), table.size() * sizeof(cl_int4), "column groups");
      columns_ =
          rt.upload(groups.columns.data(), groups.columns.size() * sizeof(int), "element columns");
    } else if (variant == kMorphVhgw) {
      runs_ = row_runs(setup.se);
      const std::size_t bytes = image_bytes(setup.width, setup.height, setup.channels);
      rows_pass_ = rt.buffer(bytes, "vhgw row pass");
      columns_pass_ = rt.buffer(bytes, "vhgw column pass");
    } else if (variant != kMorphNaive && variant != kMorphVector && variant != kMorphRows) {
      throw std::logic_error("BufferSteps: unknown morphology variant");
    }
  }

  void run(MorphOp step, const Buffer& src, const Buffer& dst) {
    const MorphologySetup& s = setup_;
    const StructuringElement& se = s.se;
    const Defines defines = s.defines(step);
    if (variant_ == kMorphNaive || variant_ == kMorphVector) {
      const bool vector = variant_ == kMorphVector;
      const Range items{
          vector ? ceil_div(s.pixels().x * static_cast<std::size_t>(s.channels), kVectorLanes)
                 : s.pixels().x,
          s.pixels().y};
      rt_.run(kMorphologyProgram, vector ? "morph_vector" : "morph_naive", defines, items, kTile,
              src, dst, s.width, s.height, s.spans, se.width, se.height, se.anchor_x, se.anchor_y);
    } else if (variant_ == kMorphRows) {
      Defines rect = defines;
      rect.add("STRIP", kStripRows).add("RECT_W", se.width).add("RECT_H", se.height);
      rect.add("RECT_AX", se.anchor_x).add("RECT_AY", se.anchor_y);
      const std::size_t row_samples = s.pixels().x * static_cast<std::size_t>(s.channels);
      rt_.run(kMorphologyProgram, "morph_rect_rows", rect,
              {row_samples / kVectorLanes,
               ceil_div(s.pixels().y, static_cast<std::size_t>(kStripRows))},
              kTile, src, dst, s.width, s.height, s.spans);
    } else if (variant_ == kMorphColumns) {
      rt_.run(kMorphologyProgram, "morph_columns", defines, s.pixels(), kColumnTile, src, dst,
              s.width, s.height, groups_, group_count_, columns_, se.width, se.anchor_x,
              se.anchor_y);
    } else {
      run_vhgw(defines, src, dst);
    }
  }

 private:
  /// Per run of equal rows: the row pass over the run's span, then the column pass over the
  /// run's rows, combined into dst (the first run writes it).
  void run_vhgw(const Defines& defines, const Buffer& src, const Buffer& dst) {
    const MorphologySetup& s = setup_;
    const auto width = static_cast<std::size_t>(s.width);
    const auto height = static_cast<std::size_t>(s.height);
    for (std::size_t r = 0; r < runs_.size(); ++r) {
      const RowRun& run = runs_[r];
      const int row_window = run.x1 - run.x0;
      const int row_offset = run.x0 - s.se.anchor_x;
      const int column_window = run.y1 - run.y0;
      const int column_offset = run.y0 - s.se.anchor_y;
      rt_.run(kMorphologyProgram, "vhgw_rows", defines,
              {vhgw_blocks(s.width, row_window, row_offset), height}, kTile, src, rows_pass_,
              s.width, s.height, row_window, row_offset);
      rt_.run(kMorphologyProgram, "vhgw_columns", defines,
              {width, vhgw_blocks(s.height, column_window, column_offset)}, kTile, rows_pass_,
              columns_pass_, dst, src, s.width, s.height, column_window, column_offset,
              static_cast<cl_int>(r == 0 ? 1 : 0));
    }
  }

  Lane& rt_;
  const MorphologySetup& setup_;
  std::string_view variant_;
  Buffer groups_;
  Buffer columns_;
  cl_int group_count_ = 0;
  std::vector<RowRun> runs_;
  Buffer rows_pass_;
  Buffer columns_pass_;
};

DeviceImage run_buffers(Lane& rt, const MorphologySetup& setup, const std::vector<MorphOp>& steps,
                        const DeviceImage& input, std::string_view variant) {
  const std::size_t bytes = image_bytes(setup.width, setup.height, setup.channels);
  const Buffer& in = input.buffer();
  const Buffer ping_pong[2] = {rt.buffer(bytes, "morphology output"),
                               rt.buffer(bytes, "morphology output")};
  BufferSteps runner(rt, setup, variant);
  const Buffer* src = &in;
  int target = 0;
  for (const MorphOp step : steps) {
    runner.run(step, *src, ping_pong[target]);
    src = &ping_pong[target];
    target = 1 - target;
  }
  return {*src, setup.width, setup.height, setup.channels};
}

Buffer upload_spans(Lane& rt, const StructuringElement& se) {
  std::vector<cl_int2> spans(se.row_spans.size());
  for (std::size_t j = 0; j < spans.size(); ++j) {
    spans[j].s[0] = se.row_spans[j].x0;
    spans[j].s[1] = se.row_spans[j].x1;
  }
  return rt.upload(spans.data(), spans.size() * sizeof(cl_int2), "element spans");
}

}  // namespace

DeviceResult run_morphology_op(Lane& rt, Op op, const DeviceImage& input, const OpParams& params,
                               std::string_view variant) {
  MorphologySetup setup{input.width(), input.height(), input.channels(),
                        make_structuring_element(params.se), Buffer()};
  setup.spans = upload_spans(rt, setup.se);
  const std::vector<MorphOp> steps = morphology_steps(op, params.iterations);
  DeviceResult output;
  const std::string_view chosen = chosen_variant(variant, setup, rt.cpu_schedules());
  output.image = chosen == kMorphImage2d ? run_morphology_images(rt, setup, steps, input)
                                         : run_buffers(rt, setup, steps, input, chosen);
  return output;
}

}  // namespace parfilter::opencl
