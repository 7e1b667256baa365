// Morphology internals: the element's decompositions the kernels take (pure functions, tested
// without a device) and what the buffer and image2d paths share.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "cl_lane.hpp"
#include "filter_math.hpp"

namespace parfilter::opencl {

/// Element columns whose set rows are the same run [y0, y1): columns[first, first + count).
struct ColumnGroup {
  int y0 = 0;
  int y1 = 0;
  int first = 0;
  int count = 0;
};
struct ColumnGroups {
  std::vector<ColumnGroup> groups;  ///< shortest runs first, so that nested runs extend
  std::vector<int> columns;
};
/// The element split by columns (a column with several runs joins several groups).
[[nodiscard]] ColumnGroups column_groups(const StructuringElement& se);

/// Consecutive element rows [y0, y1) with the same non-empty span [x0, x1).
struct RowRun {
  int y0 = 0;
  int y1 = 0;
  int x0 = 0;
  int x1 = 0;
};
[[nodiscard]] std::vector<RowRun> row_runs(const StructuringElement& se);

/// A rectangle of element pixels: columns [x0, x1), rows [y0, y1).
struct ElementRect {
  int x0 = 0;
  int x1 = 0;
  int y0 = 0;
  int y1 = 0;
  friend bool operator==(const ElementRect&, const ElementRect&) = default;
};
/// Rectangles whose union is the element's set pixels: each run of equal rows, grown up and
/// down over the rows whose spans hold it, none inside another (an ellipse or a cross gives one
/// per distinct row width).
[[nodiscard]] std::vector<ElementRect> rect_cover(const StructuringElement& se);

/// How far the element's row spans reach left and right of its anchor column, -1 for an
/// empty row (morph_spans and morph_quads).
struct SpanReach {
  std::vector<int> left;
  std::vector<int> right;
  int max_left = 0;
  int max_right = 0;
};
[[nodiscard]] SpanReach span_reach(const StructuringElement& se);

/// The columns each level m = |dy| of the element reaches either side of its anchor, m = 0..M,
/// when its rows dy and -dy span the same columns, centred on the anchor, and a nearer row
/// reaches at least as far (morph_levels); else empty.
[[nodiscard]] std::vector<int> level_reach(const StructuringElement& se);

/// Whether every set pixel's box toward the anchor is set (each non-empty row span holds the
/// anchor column, and spans grow toward the anchor row): then a sample clamped to the image
/// edge is one the element covers anyway. True for rect, cross and ellipse.
[[nodiscard]] bool closed_toward_anchor(const StructuringElement& se);

/// floor(a / b) for b > 0.
[[nodiscard]] int floor_div(int a, int b);
/// The van Herk/Gil-Werman blocks of `window` positions covering x + offset, x in [0, length).
[[nodiscard]] std::size_t vhgw_blocks(int length, int window, int offset);

/// morph_rect_tile's shape for one rectangle of the element (kernels/morphology_tile.cl).
struct RectTileLayout {
  int items = 0;          ///< work items per group: the strip is items / width whole segments
  int chunk_rows = 0;     ///< input rows per pass through local memory: whole segments of rows
  bool in_place = false;  ///< the horizontal results written over the tile's words
  friend bool operator==(const RectTileLayout&, const RectTileLayout&) = default;
};
/// Words per tile row for a rectangle `rect_width` wide: the strip's columns and the
/// rectangle's apron after a lead of up to 3 words (rows start on a 16-byte boundary), in
/// whole quads, padded by up to 28 words so that a warp's reads in the horizontal pass (a word
/// of each of its (row, segment)s at a time) share as few local-memory banks as possible.
[[nodiscard]] int rect_tile_stride(int rect_width, const RectTileLayout& layout);
/// The local memory a layout takes for a rectangle `rect_width` wide.
[[nodiscard]] std::size_t rect_tile_local_bytes(int rect_width, const RectTileLayout& layout);
/// The layout for a rectangle of at most 32 x 32 within `local_bytes` of local memory and
/// `max_items` work items per group: in place with the most work items wherever each (row,
/// segment) of a chunk then gets its own work item, so that a shape takes the same code on
/// every device that holds it; else the results in rows of their own with as many work items as
/// fit. Throws where not even the fewest work items fit (no device OpenCL 1.2 allows).
[[nodiscard]] RectTileLayout rect_tile_layout(int rect_width, int rect_height,
                                              std::size_t local_bytes, std::size_t max_items);

/// What every step of one morphology run shares: the shape, the element and its row spans on
/// the device.
struct MorphologySetup {
  int width = 0;
  int height = 0;
  int channels = 0;
  StructuringElement se;
  Buffer spans;  ///< cl_int2 per element row: [x0, x1)

  [[nodiscard]] Range pixels() const {
    return {static_cast<std::size_t>(width), static_cast<std::size_t>(height)};
  }
  /// The morphology program's build options for one step.
  [[nodiscard]] Defines defines(MorphOp step, bool with_images = false) const;
};

/// The morphology program and morph_columns' tile: wide, so that the columns read around it
/// (element width - 1 more) cost little next to the tile's own.
inline constexpr std::string_view kMorphologyProgram = "morphology";
inline constexpr Range kColumnTile{64, 4};

class DeviceImage;  // ops.hpp

/// The image2d variant: the input buffer copied into an image, every step on images, the
/// result copied into a buffer.
[[nodiscard]] DeviceImage run_morphology_images(Lane& rt, const MorphologySetup& setup,
                                                const std::vector<MorphOp>& steps,
                                                const DeviceImage& input);

}  // namespace parfilter::opencl
