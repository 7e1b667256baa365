// Morphology (erode, dilate) and adaptive segmentation: windowed kernels without borders.
// Pixels outside the image are ignored (morphology) or clipped away (the segment window),
// so both read only image rows, within the halo of the rows they write.
#include <algorithm>
#include <vector>

#include "parfilter/row_kernels.hpp"

namespace parfilter::kernels {
namespace {

constexpr int kRgbChannels = 3;
constexpr std::uint8_t kForeground = 255;
constexpr std::uint8_t kBackground = 0;
constexpr std::uint8_t kErodeNeutral = 255;  ///< what an ignored pixel is to a minimum
constexpr std::uint8_t kDilateNeutral = 0;   ///< and to a maximum

struct Min {
  static constexpr std::uint8_t kNeutral = kErodeNeutral;
  static std::uint8_t apply(std::uint8_t a, std::uint8_t b) { return a < b ? a : b; }
};
struct Max {
  static constexpr std::uint8_t kNeutral = kDilateNeutral;
  static std::uint8_t apply(std::uint8_t a, std::uint8_t b) { return a > b ? a : b; }
};

/// out(x, y) = combine over set (i, j) of in(x + i - ax, y + j - ay), inside the image only.
template <typename Combine>
void morphology_rows_with(const ConstImageView& src, const ImageView& dst, RowRange rows,
                          const StructuringElement& se) {
  const int width = src.width();
  const int height = src.height();
  const int channels = src.channels();
  const int filtered = channels > kRgbChannels ? kRgbChannels : channels;
  for (int y = rows.begin; y < rows.end; ++y) {
    std::uint8_t* out = dst.row(y);
    for (int x = 0; x < width; ++x) {
      for (int c = 0; c < filtered; ++c)
        out[static_cast<std::ptrdiff_t>(x) * channels + c] = Combine::kNeutral;
    }
    for (int j = 0; j < se.height; ++j) {
      const auto span = se.row_spans[static_cast<std::size_t>(j)];
      const int sy = y + j - se.anchor_y;
      if (span.x1 <= span.x0 || sy < 0 || sy >= height) continue;
      const std::uint8_t* in = src.row(sy);
      for (int x = 0; x < width; ++x) {
        // Source columns [x + x0 - ax, x + x1 - ax), clipped to the image.
        const int lo = std::max(0, x + span.x0 - se.anchor_x);
        const int hi = std::min(width, x + span.x1 - se.anchor_x);
        for (int c = 0; c < filtered; ++c) {
          const std::ptrdiff_t at = static_cast<std::ptrdiff_t>(x) * channels + c;
          std::uint8_t acc = out[at];
          for (int sx = lo; sx < hi; ++sx) {
            acc = Combine::apply(acc, in[static_cast<std::ptrdiff_t>(sx) * channels + c]);
          }
          out[at] = acc;
        }
      }
    }
    if (channels > kRgbChannels) {
      const std::uint8_t* in = src.row(y);
      for (std::ptrdiff_t i = kRgbChannels; i < dst.row_samples(); i += channels) out[i] = in[i];
    }
  }
}

/// The smallest and largest value present in a non-empty histogram.
std::pair<int, int> value_range(const HistogramBins& hist) {
  int lo = 0;
  while (lo < kHistogramBins - 1 && hist[static_cast<std::size_t>(lo)] == 0) ++lo;
  int hi = kHistogramBins - 1;
  while (hi > lo && hist[static_cast<std::size_t>(hi)] == 0) --hi;
  return {lo, hi};
}

}  // namespace

void morphology_rows(const ConstImageView& src, const ImageView& dst, RowRange rows,
                     const StructuringElement& se, MorphOp op) {
  if (op == MorphOp::erode) {
    morphology_rows_with<Min>(src, dst, rows, se);
  } else {
    morphology_rows_with<Max>(src, dst, rows, se);
  }
}

void adaptive_segment_rows(const ConstImageView& gray, const ImageView& dst, RowRange rows,
                           int window, int min_contrast, int global_threshold) {
  const int width = gray.width();
  const int height = gray.height();
  const int radius = window / 2;
  std::vector<const std::uint8_t*> window_rows;
  for (int y = rows.begin; y < rows.end; ++y) {
    window_rows.clear();
    for (int wy = std::max(0, y - radius); wy < std::min(height, y + radius + 1); ++wy) {
      window_rows.push_back(gray.row(wy));
    }
    // The window's histogram slides along the row: add the entering column, drop the
    // leaving one.
    HistogramBins hist{};
    const auto add_column = [&](int x) {
      for (const std::uint8_t* row : window_rows) ++hist[row[x]];
    };
    const auto drop_column = [&](int x) {
      for (const std::uint8_t* row : window_rows) --hist[row[x]];
    };
    for (int x = 0; x < std::min(width, radius + 1); ++x) add_column(x);
    const std::uint8_t* in = gray.row(y);
    std::uint8_t* out = dst.row(y);
    for (int x = 0; x < width; ++x) {
      if (x > 0) {
        if (x + radius < width) add_column(x + radius);
        if (x - radius - 1 >= 0) drop_column(x - radius - 1);
      }
      const auto [lo, hi] = value_range(hist);
      const int threshold = hi - lo < min_contrast ? global_threshold : isodata_threshold(hist);
      out[x] = in[x] > threshold ? kForeground : kBackground;
    }
  }
}

}  // namespace parfilter::kernels
