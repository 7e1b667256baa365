// erode, dilate, open, close: the steps of morphology_steps (filter_math.hpp), ping-ponging
// between two device images. A step is one kernel (naive, vector, rows, columns, spans, quads), one
// per rectangle of the element's cover (tile), or a row and a column van Herk/Gil-Werman pass per
// run of equal element rows (vhgw); image2d runs on images (morphology_image.cpp).
#include <algorithm>
#include <stdexcept>
#include <string>

#include "filter_math.hpp"
#include "morphology.hpp"
#include "ops.hpp"

namespace parfilter::opencl {
namespace {

static_assert(sizeof(int) == sizeof(cl_int), "element tables are uploaded as int");

std::size_t ceil_div(std::size_t n, std::size_t d) { return (n + d - 1) / d; }

/// The default's choice. On a CPU device van Herk/Gil-Werman (about 3 operations per sample
/// and pass whatever the element) wins once a rect covers this many pixels, and the 16-lane loop
/// is fastest for small elements. On a GPU (H200, 7680x4320 RGBA) RGBA takes quads for elements
/// within 3x3 (rect 3x3 0.068 ms against 0.100 for spans), spans where the element fits it
/// (ellipse 7x7 0.15 ms, against 0.86 for columns), else the rectangle tile for a rect (31x31
/// 0.15 ms against 1.8 for columns); the rest take rows where they fit, else columns.
constexpr int kVhgwMinRectArea = 49;
constexpr int kVectorMaxCpuSamples = 64;

/// morph_rect_rows: the samples its rect may reach either side of a 16-byte vector (the 8
/// bytes it loads there), and the most rows it keeps in registers.
constexpr int kRectRowsReach = 8;
constexpr int kRectRowsMaxHeight = 15;

/// morph_rect_tile (kernels/morphology_tile.cl; its work-group and chunk: rect_tile_layout): the
/// largest rectangle side it takes (a ring of that many words per work item) and the output
/// rows per work-group (each re-reads the rectangle's height - 1 rows above its strip). On the
/// H200 (erode rect 31x31, 7680x4320 RGBA, in place with 256 work items) strips of 512 rows took
/// 0.146 ms, 256 rows 0.156 and 1024 rows 0.209; with padded rows and one wait per chunk, 512
/// rows 0.115 and 540 (every group in one wave) 0.120.
constexpr int kRectTileMaxSide = 32;
constexpr int kRectTileStripRows = 512;
constexpr std::string_view kMorphologyTileProgram = "morphology_tile";
/// morph_spans (kernels/morphology_spans.cl): its work-group, the farthest its element's spans
/// reach either side of the anchor column and its most rows (registers per work item), the
/// input rows per pass through local memory and the output rows per work-group.
constexpr int kSpansItems = 128;
constexpr int kSpansMaxReach = 8;
constexpr int kSpansMaxHeight = 17;
constexpr int kSpansChunkRows = 16;
constexpr int kSpansStripRows = 32;
constexpr std::string_view kMorphologySpansProgram = "morphology_spans";
/// morph_levels (kernels/morphology_levels.cl): its work-group, the output rows per work-group it
/// aims at (rounded to whole chunks of 2 M + 2 input rows), its most levels M (two rings of 2 M
/// + 2 accumulators in registers) and the farthest a level reaches (the words it loads either
/// side of its strip).
constexpr int kLevelsItems = 128;
constexpr int kLevelsTargetStripRows = 64;
constexpr int kLevelsMaxLevel = 7;
constexpr int kLevelsMaxReach = 8;
/// The least element height whose default is levels rather than spans: on the H200 levels took
/// 0.135 against 0.141 ms at a 7x7 ellipse and 0.201 against 0.268 at 15x15, but 0.124 against
/// 0.119 at a 5x5 cross (7680x4320 RGBA).
constexpr int kLevelsMinDefaultHeight = 7;
constexpr std::string_view kMorphologyLevelsProgram = "morphology_levels";
/// morph_quads (the same program as morph_spans): the farthest its element reaches either side of
/// the anchor column and its most rows.
constexpr int kQuadsMaxReach = 1;
constexpr int kQuadsMaxHeight = 3;

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

/// Whether morph_rect_tile can run this element on this image: RGBA, and rectangles it takes.
bool rect_tile_fits(const MorphologySetup& s) {
  const auto cover = rect_cover(s.se);
  return s.channels == kRgbaChannels &&
         std::all_of(cover.begin(), cover.end(), [](const ElementRect& r) {
           return r.x1 - r.x0 <= kRectTileMaxSide && r.y1 - r.y0 <= kRectTileMaxSide;
         });
}

/// Whether morph_spans can run this element on this image: RGBA, and a small element closed
/// toward its anchor.
bool spans_fit(const MorphologySetup& s) {
  const SpanReach reach = span_reach(s.se);
  return s.channels == kRgbaChannels && closed_toward_anchor(s.se) &&
         s.se.height <= kSpansMaxHeight && reach.max_left <= kSpansMaxReach &&
         reach.max_right <= kSpansMaxReach;
}

/// Whether morph_levels can run this element on this image: RGBA, an element of levels within
/// its bounds.
bool levels_fit(const MorphologySetup& s) {
  const std::vector<int> reach = level_reach(s.se);
  return s.channels == kRgbaChannels && !reach.empty() &&
         static_cast<int>(reach.size()) - 1 <= kLevelsMaxLevel && reach.front() <= kLevelsMaxReach;
}

/// morph_levels' output rows per work-group for M levels: the input rows (strip plus 2 M) fill
/// whole chunks of 2 M + 2.
int levels_strip_rows(int levels) {
  const int chunk = 2 * levels + 2;
  const int chunks = (kLevelsTargetStripRows + 2 * levels + chunk - 1) / chunk;
  return chunks * chunk - 2 * levels;
}

/// Whether morph_quads can run this element on this image: as spans, within 3x3.
bool quads_fit(const MorphologySetup& s) {
  const SpanReach reach = span_reach(s.se);
  return spans_fit(s) && s.se.height <= kQuadsMaxHeight && reach.max_left <= kQuadsMaxReach &&
         reach.max_right <= kQuadsMaxReach;
}

/// A brace list for a build option: {a,b,c}.
std::string brace_list(const std::vector<int>& values) {
  std::string text = "{";
  for (std::size_t i = 0; i < values.size(); ++i) {
    text += (i > 0 ? "," : "") + std::to_string(values[i]);
  }
  return text + "}";
}

std::string_view chosen_variant(std::string_view variant, const MorphologySetup& setup,
                                bool cpu_device) {
  const StructuringElement& se = setup.se;
  if (variant == kMorphRows && !rect_rows_fit(setup)) variant = kMorphDefault;
  if (variant == kMorphTile && !rect_tile_fits(setup)) variant = kMorphDefault;
  if (variant == kMorphSpans && !spans_fit(setup)) variant = kMorphDefault;
  if (variant == kMorphQuads && !quads_fit(setup)) variant = kMorphDefault;
  if (variant == kMorphLevels && !levels_fit(setup)) variant = kMorphDefault;
  if (variant != kMorphDefault) return variant;
  if (!cpu_device && quads_fit(setup)) return kMorphQuads;
  // A rect's tile costs about the same whatever its size (H200, 7680x4320 RGBA: 0.126 ms at 7x7
  // and 0.124 at 15x15, against spans' 0.135 and 0.229).
  if (!cpu_device && full_rect(se) && rect_tile_fits(setup)) return kMorphTile;
  if (!cpu_device && se.height >= kLevelsMinDefaultHeight && levels_fit(setup)) return kMorphLevels;
  if (!cpu_device && spans_fit(setup)) return kMorphSpans;
  // Beyond levels and spans the tile runs once per rectangle of the element's cover, and still
  // beats columns: a 31x31 cross 0.47 against 2.59 ms, a 31x31 ellipse 2.36 against 3.90.
  if (!cpu_device && rect_tile_fits(setup)) return kMorphTile;
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
    } else if (variant == kMorphTile) {
      cover_ = rect_cover(setup.se);
    } else if (variant == kMorphSpans || variant == kMorphQuads) {
      const SpanReach reach = span_reach(setup.se);
      spans_.add("SPAN_H", setup.se.height).add("SPAN_AY", setup.se.anchor_y);
      spans_.add("SPAN_MAX_LEFT", reach.max_left).add("SPAN_MAX_RIGHT", reach.max_right);
      spans_.add("SPAN_LEFT", brace_list(reach.left)).add("SPAN_RIGHT", brace_list(reach.right));
      if (variant == kMorphQuads) {
        spans_ = quad_strip_defines(spans_);
      } else {
        spans_.add("SPAN_ITEMS", kSpansItems).add("SPAN_STRIP", kSpansStripRows);
        spans_.add("SPAN_CHUNK", std::max(1, kSpansChunkRows / setup.se.height) * setup.se.height);
      }
    } else if (variant == kMorphLevels) {
      const std::vector<int> reach = level_reach(setup.se);
      const int levels = static_cast<int>(reach.size()) - 1;
      levels_strip_ = levels_strip_rows(levels);
      levels_.add("LEVELS_M", levels).add("LEVELS_REACH", brace_list(reach));
      levels_.add("LEVELS_ITEMS", kLevelsItems).add("LEVELS_STRIP", levels_strip_);
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
    } else if (variant_ == kMorphTile) {
      run_tile(step, src, dst);
    } else if (variant_ == kMorphSpans) {
      Defines d = spans_;
      d.add("CN", s.channels).add("OP_ERODE", step == MorphOp::erode ? 1 : 0);
      rt_.run(kMorphologySpansProgram, "morph_spans", d,
              {ceil_div(s.pixels().x, static_cast<std::size_t>(kSpansItems)) * kSpansItems,
               ceil_div(s.pixels().y, static_cast<std::size_t>(kSpansStripRows))},
              {static_cast<std::size_t>(kSpansItems), 1}, src, dst, s.width, s.height);
    } else if (variant_ == kMorphLevels) {
      Defines d = levels_;
      d.add("CN", s.channels).add("OP_ERODE", step == MorphOp::erode ? 1 : 0);
      rt_.run(kMorphologyLevelsProgram, "morph_levels", d,
              {ceil_div(s.pixels().x, static_cast<std::size_t>(kLevelsItems)) * kLevelsItems,
               ceil_div(s.pixels().y, static_cast<std::size_t>(levels_strip_))},
              {static_cast<std::size_t>(kLevelsItems), 1}, src, dst, s.width, s.height);
    } else if (variant_ == kMorphQuads) {
      Defines d = spans_;
      d.add("CN", s.channels).add("OP_ERODE", step == MorphOp::erode ? 1 : 0);
      rt_.run(kMorphologySpansProgram, "morph_quads", d, quad_strip_items(s.pixels()),
              quad_strip_group(), src, dst, s.width, s.height);
    } else {
      run_vhgw(defines, src, dst);
    }
  }

 private:
  /// A launch per rectangle of the element's cover, each after the first merged into dst.
  void run_tile(MorphOp step, const Buffer& src, const Buffer& dst) {
    const MorphologySetup& s = setup_;
    for (std::size_t i = 0; i < cover_.size(); ++i) {
      const ElementRect& r = cover_[i];
      const int w = r.x1 - r.x0;
      const int h = r.y1 - r.y0;
      const RectTileLayout layout =
          rect_tile_layout(w, h, rt_.local_memory_bytes(), rt_.max_work_group());
      const int strip_cols = layout.items / w * w;
      Defines d;
      d.add("CN", s.channels).add("OP_ERODE", step == MorphOp::erode ? 1 : 0);
      d.add("TILE_RECT_W", w).add("TILE_RECT_H", h);
      d.add("TILE_RECT_X", r.x0 - s.se.anchor_x).add("TILE_RECT_Y", r.y0 - s.se.anchor_y);
      d.add("TILE_ITEMS", layout.items)
          .add("TILE_STRIDE", rect_tile_stride(w, layout))
          .add("TILE_CHUNK", layout.chunk_rows)
          .add("TILE_STRIP", kRectTileStripRows)
          .add("TILE_IN_PLACE", layout.in_place ? 1 : 0)
          .add("TILE_COMBINE", i > 0 ? 1 : 0);
      const std::size_t groups_x = ceil_div(s.pixels().x, static_cast<std::size_t>(strip_cols));
      rt_.run(kMorphologyTileProgram, "morph_rect_tile", d,
              {groups_x * static_cast<std::size_t>(layout.items),
               ceil_div(s.pixels().y, static_cast<std::size_t>(kRectTileStripRows))},
              {static_cast<std::size_t>(layout.items), 1}, src, dst, s.width, s.height);
    }
  }

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
  std::vector<ElementRect> cover_;
  Defines spans_;   ///< morph_spans' element and schedule
  Defines levels_;  ///< morph_levels' element and schedule
  int levels_strip_ = 0;
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
