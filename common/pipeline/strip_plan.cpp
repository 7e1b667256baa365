#include "parfilter/strip_plan.hpp"

#include <algorithm>

#include "filter_math.hpp"

namespace parfilter {

bool runs_on_bands(Op op) { return !op_info(op).traits.whole_image; }

std::vector<OpChain> band_segments(const OpChain& chain) {
  std::vector<OpChain> segments;
  bool extendable = false;
  for (const OpStep& step : chain) {
    const bool bands = runs_on_bands(step.op);
    // A pool maps band row 2k to its row k only when the band starts on an even row, which
    // is what a pool first in its segment gets.
    if (!bands || !extendable || step.op == Op::pool) segments.emplace_back();
    segments.back().push_back(step);
    extendable = bands;
  }
  return segments;
}

RowRange band_input_rows(const OpChain& segment, int height, int channels, RowRange band) {
  if (band.empty()) return {band.begin, band.begin};
  std::vector<int> heights;  // each step's input height
  ImageShape shape{1, height, channels};
  for (const OpStep& step : segment) {
    heights.push_back(shape.height);
    shape = result_shape(step.op, shape);
  }
  RowRange rows = band;
  for (std::size_t i = segment.size(); i-- > 0;) {
    const int step_height = heights[i];
    if (op_info(segment[i].op).traits.reach == RowReach::stride) {
      rows = pool_input_rows(rows, step_height);
    } else {
      const int halo = row_halo_of(segment[i].op, segment[i].params);
      rows = {std::max(0, rows.begin - halo), std::min(step_height, rows.end + halo)};
    }
  }
  return rows;
}

int segment_halo(const OpChain& segment) {
  int halo = 0;
  int scale = 1;  // input rows per row of the step's input
  for (const OpStep& step : segment) {
    if (op_info(step.op).traits.reach == RowReach::stride) {
      scale *= kPoolStride;
    } else {
      halo += scale * row_halo_of(step.op, step.params);
    }
  }
  return halo;
}

}  // namespace parfilter
