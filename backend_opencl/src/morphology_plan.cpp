#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "morphology.hpp"
#include "parfilter/error.hpp"

namespace parfilter::opencl {

ColumnGroups column_groups(const StructuringElement& se) {
  std::map<std::pair<int, int>, std::vector<int>> by_run;
  for (int x = 0; x < se.width; ++x) {
    int y = 0;
    while (y < se.height) {
      if (!se.at(x, y)) {
        ++y;
        continue;
      }
      const int y0 = y;
      while (y < se.height && se.at(x, y)) ++y;
      by_run[{y0, y}].push_back(x);
    }
  }
  std::vector<std::pair<std::pair<int, int>, std::vector<int>>> runs(by_run.begin(), by_run.end());
  std::stable_sort(runs.begin(), runs.end(), [](const auto& a, const auto& b) {
    return a.first.second - a.first.first < b.first.second - b.first.first;
  });
  ColumnGroups result;
  for (const auto& [run, columns] : runs) {
    result.groups.push_back({run.first, run.second, static_cast<int>(result.columns.size()),
                             static_cast<int>(columns.size())});
    result.columns.insert(result.columns.end(), columns.begin(), columns.end());
  }
  return result;
}

std::vector<RowRun> row_runs(const StructuringElement& se) {
  std::vector<RowRun> runs;
  for (int y = 0; y < se.height; ++y) {
    const auto span = se.row_spans[static_cast<std::size_t>(y)];
    if (span.x1 <= span.x0) continue;
    if (!runs.empty() && runs.back().y1 == y && runs.back().x0 == span.x0 &&
        runs.back().x1 == span.x1) {
      runs.back().y1 = y + 1;
    } else {
      runs.push_back({y, y + 1, span.x0, span.x1});
    }
  }
  return runs;
}

std::vector<ElementRect> rect_cover(const StructuringElement& se) {
  const auto holds = [&](int y, int x0, int x1) {
    const auto span = se.row_spans[static_cast<std::size_t>(y)];
    return span.x0 <= x0 && x1 <= span.x1;
  };
  const auto inside = [](const ElementRect& a, const ElementRect& b) {  // a within b
    return b.x0 <= a.x0 && a.x1 <= b.x1 && b.y0 <= a.y0 && a.y1 <= b.y1;
  };
  std::vector<ElementRect> grown;
  for (const RowRun& run : row_runs(se)) {
    ElementRect r{run.x0, run.x1, run.y0, run.y1};
    while (r.y0 > 0 && holds(r.y0 - 1, r.x0, r.x1)) --r.y0;
    while (r.y1 < se.height && holds(r.y1, r.x0, r.x1)) ++r.y1;
    grown.push_back(r);
  }
  std::vector<ElementRect> cover;
  for (std::size_t i = 0; i < grown.size(); ++i) {
    // Dropped when inside another rectangle (of two equal ones, the first is kept).
    bool redundant = false;
    for (std::size_t j = 0; j < grown.size() && !redundant; ++j) {
      redundant = j != i && inside(grown[i], grown[j]) && (grown[i] != grown[j] || j < i);
    }
    if (!redundant) cover.push_back(grown[i]);
  }
  return cover;
}

SpanReach span_reach(const StructuringElement& se) {
  SpanReach reach;
  for (const auto& span : se.row_spans) {
    const bool empty = span.x1 <= span.x0;
    reach.left.push_back(empty ? -1 : se.anchor_x - span.x0);
    reach.right.push_back(empty ? -1 : span.x1 - 1 - se.anchor_x);
    reach.max_left = std::max(reach.max_left, reach.left.back());
    reach.max_right = std::max(reach.max_right, reach.right.back());
  }
  return reach;
}

std::vector<int> level_reach(const StructuringElement& se) {
  if (se.height % 2 == 0 || se.anchor_y != se.height / 2) return {};
  const SpanReach spans = span_reach(se);
  std::vector<int> reach;
  for (int m = 0; m <= se.anchor_y; ++m) {
    const auto up = static_cast<std::size_t>(se.anchor_y - m);
    const auto down = static_cast<std::size_t>(se.anchor_y + m);
    const int columns = spans.left[up];
    const bool level = columns >= 0 && spans.right[up] == columns && spans.left[down] == columns &&
                       spans.right[down] == columns;
    if (!level || (m > 0 && columns > reach.back())) return {};
    reach.push_back(columns);
  }
  return reach;
}

bool closed_toward_anchor(const StructuringElement& se) {
  const auto span = [&](int y) { return se.row_spans[static_cast<std::size_t>(y)]; };
  const auto empty = [&](int y) { return span(y).x1 <= span(y).x0; };
  const auto inside = [&](int inner, int outer) {  // row inner's span within row outer's
    return empty(inner) || (span(outer).x0 <= span(inner).x0 && span(inner).x1 <= span(outer).x1);
  };
  for (int y = 0; y < se.height; ++y) {
    if (!empty(y) && (span(y).x0 > se.anchor_x || span(y).x1 <= se.anchor_x)) return false;
    if (y < se.anchor_y && !inside(y, y + 1)) return false;
    if (y > se.anchor_y && !inside(y, y - 1)) return false;
  }
  return true;
}

int floor_div(int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

std::size_t vhgw_blocks(int length, int window, int offset) {
  return static_cast<std::size_t>(floor_div(length - 1 + offset, window) -
                                  floor_div(offset, window) + 1);
}

namespace {
/// morph_rect_tile: the most and fewest work items per group (multiples of a warp), the input
/// rows per pass it aims at (rounded down to whole rectangles), and the words of one load.
constexpr int kRectTileMaxItems = 256;
constexpr int kRectTileMinItems = 64;
constexpr int kRectTileItemStep = 32;
constexpr int kRectTileChunkRows = 32;
constexpr int kQuadWords = 4;
/// Local memory banks (4-byte words) and the work items that access them together, on NVIDIA
/// and AMD GPUs alike (an AMD wavefront of 64 takes its halves in turn).
constexpr int kLocalBanks = 32;
constexpr int kWarpItems = 32;
}  // namespace

int rect_tile_stride(int rect_width, const RectTileLayout& layout) {
  const int segments = layout.items / rect_width;
  const int least =
      (segments * rect_width + rect_width - 1 + 2 * (kQuadWords - 1)) / kQuadWords * kQuadWords;
  // The horizontal pass's work item t reads row t / segments, segment t % segments, a word of
  // each at a time: the cost of a stride is the sum over warps of the most words of one step
  // that share a bank.
  const auto conflicts = [&](int stride) {
    int cost = 0;
    for (int warp = 0; warp < layout.items; warp += kWarpItems) {
      std::array<int, kLocalBanks> words{};
      int worst = 0;
      for (int t = warp; t < std::min(warp + kWarpItems, layout.items); ++t) {
        const int word = t / segments * stride + t % segments * rect_width;
        worst = std::max(worst, ++words[static_cast<std::size_t>(word % kLocalBanks)]);
      }
      cost += worst;
    }
    return cost;
  };
  int best = least;
  int best_cost = conflicts(least);
  for (int stride = least + kQuadWords; stride < least + kLocalBanks; stride += kQuadWords) {
    const int cost = conflicts(stride);
    if (cost < best_cost) {
      best = stride;
      best_cost = cost;
    }
  }
  return best;
}

std::size_t rect_tile_local_bytes(int rect_width, const RectTileLayout& layout) {
  const int strip_cols = layout.items / rect_width * rect_width;
  const auto rows = static_cast<std::size_t>(layout.chunk_rows);
  const std::size_t tile =
      rows * static_cast<std::size_t>(rect_tile_stride(rect_width, layout)) * sizeof(std::uint32_t);
  // Unless in place, the horizontal results take rows of their own.
  const std::size_t results =
      layout.in_place ? 0 : rows * static_cast<std::size_t>(strip_cols) * sizeof(std::uint32_t);
  return tile + results;
}

RectTileLayout rect_tile_layout(int rect_width, int rect_height, std::size_t local_bytes,
                                std::size_t max_items) {
  const auto no_group = [&] {
    return RuntimeError("morphology --variant tile: the OpenCL device holds no work-group for a " +
                        std::to_string(rect_width) + "x" + std::to_string(rect_height) +
                        " rectangle");
  };
  const int chunk = std::max(1, kRectTileChunkRows / rect_height) * rect_height;
  int items = kRectTileMaxItems;
  while (items > kRectTileMinItems && static_cast<std::size_t>(items) > max_items) {
    items -= kRectTileItemStep;
  }
  if (static_cast<std::size_t>(items) > max_items) throw no_group();
  const RectTileLayout in_place{items, chunk, true};
  if (chunk * (items / rect_width) <= items &&
      rect_tile_local_bytes(rect_width, in_place) <= local_bytes) {
    return in_place;
  }
  RectTileLayout rows{items, chunk, false};
  while (rows.items > kRectTileMinItems && rect_tile_local_bytes(rect_width, rows) > local_bytes) {
    rows.items -= kRectTileItemStep;
  }
  if (rect_tile_local_bytes(rect_width, rows) > local_bytes) throw no_group();
  return rows;
}

Defines MorphologySetup::defines(MorphOp step, bool with_images) const {
  Defines d;
  d.add("CN", channels).add("OP_ERODE", step == MorphOp::erode ? 1 : 0);
  d.add("TILE_W", static_cast<long long>(kColumnTile.x));
  d.add("TILE_H", static_cast<long long>(kColumnTile.y)).add("MAX_SE_SIZE", kMaxSeSize);
  d.add("WITH_IMAGES", with_images ? 1 : 0);
  return d;
}

}  // namespace parfilter::opencl
