// The spec's per-pixel loops, at either depth (reference_rows.hpp).
#include "reference_rows.hpp"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace parfilter::reference {
namespace {

__extension__ using UInt128 = unsigned __int128;

constexpr int kRgbChannels = 3;
constexpr int kCentreWeight = 5;  ///< sharpen's centre tap

template <typename Sample>
constexpr int kTop = kLevels<Sample> - 1;

/// True for the channels a per-channel filter computes; alpha of RGBA is copied instead.
constexpr bool is_filtered_channel(int channels, int c) {
  return channels <= kRgbChannels || c < kRgbChannels;
}

template <typename Sample>
int at(In<Sample> in, int x, int y, int c) {
  return in.row(y)[static_cast<std::ptrdiff_t>(x) * in.channels() + c];
}

template <typename Sample>
Sample& at(Out<Sample> out, int x, int y, int c) {
  return out.row(y)[static_cast<std::ptrdiff_t>(x) * out.channels() + c];
}

/// Sample (x, y, c), where (x, y) may lie outside the image, under a border mode.
template <typename Sample>
int bordered(In<Sample> in, int x, int y, int c, BorderMode border) {
  const int bx = border_index(x, in.width(), border.kind);
  const int by = border_index(y, in.height(), border.kind);
  if (bx < 0 || by < 0) return border.value;  // only BorderKind::constant gives -1
  return at(in, bx, by, c);
}

template <typename Sample>
bool inside(In<Sample> in, int x, int y) {
  return x >= 0 && x < in.width() && y >= 0 && y < in.height();
}

/// Every channel of every pixel of `rows`: filtered ones from value(x, y, c), alpha copied.
template <typename Sample, typename Value>
void per_channel(In<Sample> in, Out<Sample> out, RowRange rows, Value&& value) {
  for (int y = rows.begin; y < rows.end; ++y) {
    for (int x = 0; x < in.width(); ++x) {
      for (int c = 0; c < in.channels(); ++c) {
        at(out, x, y, c) = static_cast<Sample>(is_filtered_channel(in.channels(), c)
                                                   ? value(x, y, c)
                                                   : at(in, x, y, c));
      }
    }
  }
}

}  // namespace

template <typename Sample>
void gray_rows(In<Sample> in, Out<Sample> out, RowRange rows) {
  for (int y = rows.begin; y < rows.end; ++y) {
    for (int x = 0; x < in.width(); ++x) {
      at(out, x, y, 0) = static_cast<Sample>(
          in.channels() == 1 ? at(in, x, y, 0)
                             : gray_value(at(in, x, y, 0), at(in, x, y, 1), at(in, x, y, 2)));
    }
  }
}

template <typename Sample>
void gaussian_rows(In<Sample> in, Out<Sample> out, RowRange rows, const GaussianWeights& weights,
                   BorderMode border) {
  constexpr std::uint32_t kRounding = 1U << (kGaussianShift - 1);
  per_channel(in, out, rows, [&](int x, int y, int c) {
    // Weights sum to 2^16: at 16 bits the sum stays below 2^32.
    std::uint32_t sum = 0;
    for (int i = 0; i < kGaussianTaps; ++i) {
      for (int j = 0; j < kGaussianTaps; ++j) {
        sum += static_cast<std::uint32_t>(weights.weight(i, j)) *
               static_cast<std::uint32_t>(
                   bordered(in, x + j - kGaussianRadius, y + i - kGaussianRadius, c, border));
      }
    }
    return static_cast<int>((sum + kRounding) >> kGaussianShift);
  });
}

template <typename Sample>
void sobel_rows(In<Sample> gray, Out<Sample> out, RowRange rows, BorderMode border,
                SobelOutput output) {
  const auto p = [&](int x, int y) { return bordered(gray, x, y, 0, border); };
  for (int y = rows.begin; y < rows.end; ++y) {
    for (int x = 0; x < gray.width(); ++x) {
      // Gx = [-1 0 1; -2 0 2; -1 0 1], Gy = [-1 -2 -1; 0 0 0; 1 2 1].
      const int gx = (p(x + 1, y - 1) + 2 * p(x + 1, y) + p(x + 1, y + 1)) -
                     (p(x - 1, y - 1) + 2 * p(x - 1, y) + p(x - 1, y + 1));
      const int gy = (p(x - 1, y + 1) + 2 * p(x, y + 1) + p(x + 1, y + 1)) -
                     (p(x - 1, y - 1) + 2 * p(x, y - 1) + p(x + 1, y - 1));
      at(out, x, y, 0) = static_cast<Sample>(sobel_level(gx, gy, output, kTop<Sample>));
    }
  }
}

template <typename Sample>
void sharpen_rows(In<Sample> in, Out<Sample> out, RowRange rows, BorderMode border) {
  per_channel(in, out, rows, [&](int x, int y, int c) {
    const auto p = [&](int xx, int yy) { return bordered(in, xx, yy, c, border); };
    const int v = kCentreWeight * p(x, y) - p(x, y - 1) - p(x, y + 1) - p(x - 1, y) - p(x + 1, y);
    return std::clamp(v, 0, kTop<Sample>);
  });
}

template <typename Sample>
void histogram_rows(In<Sample> in, int channel, RowRange rows, std::span<std::uint64_t> hist) {
  for (int y = rows.begin; y < rows.end; ++y) {
    for (int x = 0; x < in.width(); ++x) ++hist[at(in, x, y, channel)];
  }
}

template <typename Sample>
void luma_histogram_rows(In<Sample> in, RowRange rows, std::span<std::uint64_t> hist) {
  for (int y = rows.begin; y < rows.end; ++y) {
    for (int x = 0; x < in.width(); ++x) {
      ++hist[ycrcb_luma<Sample>(at(in, x, y, 0), at(in, x, y, 1), at(in, x, y, 2))];
    }
  }
}

template <typename Sample>
void lut_rows(In<Sample> in, Out<Sample> out, RowRange rows, std::span<const std::uint16_t> lut) {
  for (int y = rows.begin; y < rows.end; ++y) {
    for (int x = 0; x < in.width(); ++x) {
      at(out, x, y, 0) = static_cast<Sample>(lut[at(in, x, y, 0)]);
    }
  }
}

template <typename Sample>
void equalize_color_rows(In<Sample> in, Out<Sample> out, RowRange rows,
                         std::span<const std::uint16_t> lut) {
  for (int y = rows.begin; y < rows.end; ++y) {
    for (int x = 0; x < in.width(); ++x) {
      auto ycc = rgb_to_ycrcb<Sample>(at(in, x, y, 0), at(in, x, y, 1), at(in, x, y, 2));
      ycc.y = static_cast<Sample>(lut[ycc.y]);
      ycrcb_to_rgb(ycc, &at(out, x, y, 0));
      if (in.channels() > kRgbChannels) {
        at(out, x, y, kRgbChannels) = static_cast<Sample>(at(in, x, y, kRgbChannels));
      }
    }
  }
}

template <typename Sample>
void threshold_rows(In<Sample> gray, Out<Sample> out, RowRange rows, int t) {
  for (int y = rows.begin; y < rows.end; ++y) {
    for (int x = 0; x < gray.width(); ++x) {
      at(out, x, y, 0) = static_cast<Sample>(at(gray, x, y, 0) > t ? kTop<Sample> : 0);
    }
  }
}

template <typename Sample>
void adaptive_segment_rows(In<Sample> gray, Out<Sample> out, RowRange rows, int window,
                           int min_contrast, int global_t) {
  const int half = window / 2;
  std::vector<int> values;
  std::vector<UInt128> sum_below;  // sum_below[k]: the sum of the k smallest values
  for (int y = rows.begin; y < rows.end; ++y) {
    for (int x = 0; x < gray.width(); ++x) {
      values.clear();
      for (int yy = std::max(0, y - half); yy <= std::min(gray.height() - 1, y + half); ++yy) {
        for (int xx = std::max(0, x - half); xx <= std::min(gray.width() - 1, x + half); ++xx) {
          values.push_back(at(gray, xx, yy, 0));
        }
      }
      // The window's sorted values answer isodata's "count and sum of the values <= t" as its
      // histogram would, without L bins per pixel.
      std::sort(values.begin(), values.end());
      sum_below.assign(values.size() + 1, 0);
      for (std::size_t k = 0; k < values.size(); ++k) sum_below[k + 1] = sum_below[k] + values[k];
      int t = global_t;
      if (values.back() - values.front() >= min_contrast) {
        t = isodata_rounds<UInt128>(
            values.size(), sum_below.back(),
            [&](int level) {
              const auto k = static_cast<std::size_t>(
                  std::upper_bound(values.begin(), values.end(), level) - values.begin());
              return std::pair<UInt128, UInt128>{k, sum_below[k]};
            },
            kLevels<Sample>);
      }
      at(out, x, y, 0) = static_cast<Sample>(at(gray, x, y, 0) > t ? kTop<Sample> : 0);
    }
  }
}

template <typename Sample>
void morphology_rows(In<Sample> in, Out<Sample> out, RowRange rows, const StructuringElement& se,
                     MorphOp morph) {
  per_channel(in, out, rows, [&](int x, int y, int c) {
    int best = morph == MorphOp::erode ? kTop<Sample> : 0;  // the neutral value
    for (int j = 0; j < se.height; ++j) {
      for (int i = 0; i < se.width; ++i) {
        const int xx = x + i - se.anchor_x;
        const int yy = y + j - se.anchor_y;
        if (!se.at(i, j) || !inside(in, xx, yy)) continue;
        const int v = at(in, xx, yy, c);
        best = morph == MorphOp::erode ? std::min(best, v) : std::max(best, v);
      }
    }
    return best;
  });
}

template <typename Sample>
void pool_rows(In<Sample> in, Out<Sample> out, RowRange rows) {
  for (int y = rows.begin; y < rows.end; ++y) {
    for (int x = 0; x < out.width(); ++x) {
      for (int c = 0; c < in.channels(); ++c) {
        int best = 0;
        for (int dy = 0; dy < kPoolStride; ++dy) {
          for (int dx = 0; dx < kPoolStride; ++dx) {
            const int xx = kPoolStride * x + dx;
            const int yy = kPoolStride * y + dy;
            if (inside(in, xx, yy)) best = std::max(best, at(in, xx, yy, c));
          }
        }
        at(out, x, y, c) = static_cast<Sample>(best);
      }
    }
  }
}

#define PARFILTER_REFERENCE_ROWS(Sample)                                                         \
  template void gray_rows(In<Sample>, Out<Sample>, RowRange);                                    \
  template void gaussian_rows(In<Sample>, Out<Sample>, RowRange, const GaussianWeights&,         \
                              BorderMode);                                                       \
  template void sobel_rows(In<Sample>, Out<Sample>, RowRange, BorderMode, SobelOutput);          \
  template void sharpen_rows(In<Sample>, Out<Sample>, RowRange, BorderMode);                     \
  template void histogram_rows(In<Sample>, int, RowRange, std::span<std::uint64_t>);             \
  template void luma_histogram_rows(In<Sample>, RowRange, std::span<std::uint64_t>);             \
  template void lut_rows(In<Sample>, Out<Sample>, RowRange, std::span<const std::uint16_t>);     \
  template void equalize_color_rows(In<Sample>, Out<Sample>, RowRange,                           \
                                    std::span<const std::uint16_t>);                             \
  template void threshold_rows(In<Sample>, Out<Sample>, RowRange, int);                          \
  template void adaptive_segment_rows(In<Sample>, Out<Sample>, RowRange, int, int, int);         \
  template void morphology_rows(In<Sample>, Out<Sample>, RowRange, const StructuringElement&,    \
                                MorphOp);                                                        \
  template void pool_rows(In<Sample>, Out<Sample>, RowRange);

PARFILTER_REFERENCE_ROWS(std::uint8_t)
PARFILTER_REFERENCE_ROWS(std::uint16_t)
#undef PARFILTER_REFERENCE_ROWS

}  // namespace parfilter::reference
