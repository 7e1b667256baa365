#include <algorithm>
#include <map>
#include <utility>

#include "morphology.hpp"

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

Defines MorphologySetup::defines(MorphOp step, bool with_images) const {
  Defines d;
  d.add("CN", channels).add("OP_ERODE", step == MorphOp::erode ? 1 : 0);
  d.add("TILE_W", static_cast<long long>(kColumnTile.x));
  d.add("TILE_H", static_cast<long long>(kColumnTile.y)).add("MAX_SE_SIZE", kMaxSeSize);
  d.add("WITH_IMAGES", with_images ? 1 : 0);
  return d;
}

}  // namespace parfilter::opencl
