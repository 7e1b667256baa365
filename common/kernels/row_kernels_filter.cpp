// sobel and sharpen: 3x3 filters with borders, each in two versions.
//
// The naive ones read a ring of padded row copies (the border in the padding) and compute
// every pixel the same way. The fast ones (sobel_rows, sharpen_rows) take row pointers (a
// row outside the image is its mapped row, or a row of the constant), run a branch-free
// interior loop over columns [1, width - 1) that the compiler vectorizes, and compute only
// the first and last column through the border's column map.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include "row_kernels.hpp"
#include "row_kernels_internal.hpp"
#include "simd_kernels.hpp"

namespace parfilter::kernels {
namespace {

using detail::copy_alpha;
using detail::filtered_channels;
using detail::for_each_padded_row;
using detail::kMaxSample;

constexpr int kCentreWeight = 5;  ///< sharpen's centre tap
/// The smallest gx^2 + gy^2 whose rounded root exceeds 255 (255^2 + 255 + 1).
constexpr int kSaturatedSquare = kMaxSample * kMaxSample + kMaxSample + 1;
constexpr float kHalf = 0.5F;

/// sobel_value without the switch and the integer square root, for the vector loop. For
/// n <= 65281 the float root is within 2^-15 of sqrt(n), which is at least 2^-9 away from a
/// half (|n - (k + 1/2)^2| >= 1/4), so adding 1/2 and truncating rounds exactly; larger n
/// saturate to 255 either way.
template <SobelOutput kOutput>
std::uint8_t sobel_output_value(int gx, int gy) {
  const int ax = gx < 0 ? -gx : gx;
  const int ay = gy < 0 ? -gy : gy;
  if constexpr (kOutput == SobelOutput::magnitude) {
    const int square = std::min(gx * gx + gy * gy, kSaturatedSquare);
    const int root = static_cast<int>(std::sqrt(static_cast<float>(square)) + kHalf);
    return static_cast<std::uint8_t>(std::min(root, kMaxSample));
  } else if constexpr (kOutput == SobelOutput::l1) {
    return static_cast<std::uint8_t>(std::min(ax + ay, kMaxSample));
  } else if constexpr (kOutput == SobelOutput::dx) {
    return static_cast<std::uint8_t>(std::min(ax, kMaxSample));
  } else {
    return static_cast<std::uint8_t>(std::min(ay, kMaxSample));
  }
}

template <SobelOutput kOutput>
PARFILTER_VECTOR_CLONES void sobel_interior(const std::uint8_t* up, const std::uint8_t* mid,
                                            const std::uint8_t* down, std::uint8_t* out, int begin,
                                            int end) {
  for (int x = begin; x < end; ++x) {
    const auto gx = static_cast<std::int16_t>((up[x + 1] + 2 * mid[x + 1] + down[x + 1]) -
                                              (up[x - 1] + 2 * mid[x - 1] + down[x - 1]));
    const auto gy = static_cast<std::int16_t>((down[x - 1] + 2 * down[x] + down[x + 1]) -
                                              (up[x - 1] + 2 * up[x] + up[x + 1]));
    out[x] = sobel_output_value<kOutput>(gx, gy);
  }
}

/// A row's interior left over by the vector loop, shorter than a vector (every interior of
/// an image under a vector wide, 64 pixels with AVX-512): the vector loop run over padded
/// copies of its three rows, where it covers the tail whole, and its outputs copied back.
/// Each output reads only its 3x3 neighbourhood, which the copies hold unchanged, so the
/// bytes are the vector loop's (the plain loop's). Each image row is copied once, into one of
/// a few slots that the next output rows read again.
class PaddedTail {
 public:
  /// The most samples one call takes: a multiple of every target's vector of bytes.
  static constexpr int kLanes = 64;
  /// Shorter tails stay in the plain loop (copying them costs about what computing them does).
  static constexpr int kMinSamples = 8;

  /// Runs vector_row(up, mid, down, out, begin, end) -> first sample it left, for samples
  /// [first, end) of the output row, on padded copies of the three rows that fill(row, copy)
  /// makes: copy[halo + i] is the sample that output first + i reads at its own column, with
  /// `halo` samples either side. Returns the first sample it left (first: the plain loop
  /// computes the tail). One PaddedTail serves rows with the same end and fill.
  template <typename VectorRow, typename Fill>
  int run(const std::uint8_t* const rows[3], std::uint8_t* out, int first, int end, int halo,
          const VectorRow& vector_row, const Fill& fill) {
    const int tail = end - first;
    if (tail < kMinSamples || tail > kLanes || halo > kMaxHalo) return first;
    ++stamp_;
    const std::uint8_t* padded[3];
    for (int r = 0; r < 3; ++r) padded[r] = copy_of(rows[r], first, fill) + halo;
    const int done = vector_row(padded[0], padded[1], padded[2], out_.data(), 0, kLanes);
    if (done < tail) return first;  // a target without vector loops
    std::copy_n(out_.data(), tail, out + first);
    return end;
  }

 private:
  static constexpr int kMaxHalo = 4;
  /// Three rows in use and one more: the least recently used slot is never one in use.
  static constexpr int kSlots = 4;
  /// The vector loops read up to a vector past their last output: room for one more.
  static constexpr std::size_t kRowBytes = 2 * kLanes + 2 * kMaxHalo;

  /// The slot holding row `from`'s padded copy from `first` on, made there unless one
  /// already holds it.
  template <typename Fill>
  const std::uint8_t* copy_of(const std::uint8_t* from, int first, const Fill& fill) {
    int victim = 0;
    for (int s = 0; s < kSlots; ++s) {
      if (from_[s] == from && first_[s] == first) {
        used_[s] = stamp_;
        return slots_[s].data();
      }
      if (used_[s] < used_[victim]) victim = s;
    }
    fill(from, slots_[victim].data());
    from_[victim] = from;
    first_[victim] = first;
    used_[victim] = stamp_;
    return slots_[victim].data();
  }

  std::array<std::array<std::uint8_t, kRowBytes>, kSlots> slots_{};  // zeroed once
  std::array<const std::uint8_t*, kSlots> from_{};
  std::array<int, kSlots> first_{};
  std::array<std::uint64_t, kSlots> used_{};
  std::uint64_t stamp_ = 0;
  std::array<std::uint8_t, 2 * kLanes> out_{};
};

template <SobelOutput kOutput>
void sobel_fast_rows(const ConstImageView& src, const ImageView& dst, RowRange rows,
                     BorderMode border, Loops loops) {
  const int width = src.width();
  const detail::BorderRows border_rows(src, border);
  const detail::EdgeColumns edges(width, kSobelHalo, border);
  const std::vector<int> edge_xs = edges.edge_pixels();
  PaddedTail padded;
  const auto vector_row = [](const std::uint8_t* up, const std::uint8_t* mid,
                             const std::uint8_t* down, std::uint8_t* out, int begin, int end) {
    return simd::sobel_row(up, mid, down, out, begin, end, kOutput, {});
  };
  // A row under a vector wide runs whole in the vector loop, its border columns in the padded
  // copy (a constant border above 255 is not a byte: the plain loop keeps it).
  const bool whole_rows = width <= PaddedTail::kLanes &&
                          (border.kind != BorderKind::constant || border.value <= kMaxSample);
  const auto whole_row = [&](const std::uint8_t* row, std::uint8_t* copy) {
    const auto right = static_cast<int>(edge_xs.size()) - 1;
    copy[0] = static_cast<std::uint8_t>(edges.sample(row, 0, 0, 0, 1));
    std::copy_n(row, width, copy + kSobelHalo);
    copy[width + kSobelHalo] = static_cast<std::uint8_t>(edges.sample(row, right, 2, 0, 1));
  };
  int first = kSobelHalo;
  const auto interior = [&](const std::uint8_t* row, std::uint8_t* copy) {
    std::copy_n(row + first - kSobelHalo, width - first + kSobelHalo, copy);
  };
  for (int y = rows.begin; y < rows.end; ++y) {
    const std::uint8_t* up = border_rows.row(y - 1);
    const std::uint8_t* mid = border_rows.row(y);
    const std::uint8_t* down = border_rows.row(y + 1);
    std::uint8_t* out = dst.row(y);
    const std::uint8_t* const three[] = {up, mid, down};
    if (uses_simd(loops) && whole_rows &&
        padded.run(three, out, 0, width, kSobelHalo, vector_row, whole_row) == width) {
      continue;
    }
    first = kSobelHalo;
    if (uses_simd(loops) && !whole_rows) {
      first = simd::sobel_row(up, mid, down, out, kSobelHalo, width - kSobelHalo, kOutput,
                              detail::output_store(loops));
      first = padded.run(three, out, first, width - kSobelHalo, kSobelHalo, vector_row, interior);
    }
    sobel_interior<kOutput>(up, mid, down, out, first, width - kSobelHalo);
    for (std::size_t e = 0; e < edge_xs.size(); ++e) {
      const auto s = [&](const std::uint8_t* row, int k) {
        return edges.sample(row, static_cast<int>(e), k, 0, 1);
      };
      const int gx =
          (s(up, 2) + 2 * s(mid, 2) + s(down, 2)) - (s(up, 0) + 2 * s(mid, 0) + s(down, 0));
      const int gy =
          (s(down, 0) + 2 * s(down, 1) + s(down, 2)) - (s(up, 0) + 2 * s(up, 1) + s(up, 2));
      out[edge_xs[e]] = sobel_output_value<kOutput>(gx, gy);
    }
  }
}

/// out[i] = sat(5 mid[i] - up[i] - down[i] - mid[i - C] - mid[i + C]) over samples
/// [begin, end); values lie in [-1020, 1275], so 16-bit lanes are exact.
template <int C>
PARFILTER_VECTOR_CLONES void sharpen_interior(const std::uint8_t* up, const std::uint8_t* mid,
                                              const std::uint8_t* down, std::uint8_t* out,
                                              std::ptrdiff_t begin, std::ptrdiff_t end) {
  for (std::ptrdiff_t i = begin; i < end; ++i) {
    const auto value = static_cast<std::int16_t>(kCentreWeight * mid[i] - up[i] - down[i] -
                                                 mid[i - C] - mid[i + C]);
    out[i] = static_cast<std::uint8_t>(
        std::clamp<std::int16_t>(value, 0, static_cast<std::int16_t>(kMaxSample)));
  }
}

}  // namespace

void sobel_naive_rows(const ConstImageView& src, const ImageView& dst, RowRange rows,
                      BorderMode border, SobelOutput output) {
  const int width = src.width();
  for_each_padded_row(src, rows, border, kSobelHalo, dst,
                      [&](int /*y*/, const std::uint8_t* const* taps, std::uint8_t* out) {
                        const std::uint8_t* up = taps[0];
                        const std::uint8_t* mid = taps[1];
                        const std::uint8_t* down = taps[2];
                        // Padded column x + 1 is image column x.
                        for (int x = 0; x < width; ++x) {
                          const int gx = (up[x + 2] + 2 * mid[x + 2] + down[x + 2]) -
                                         (up[x] + 2 * mid[x] + down[x]);
                          const int gy = (down[x] + 2 * down[x + 1] + down[x + 2]) -
                                         (up[x] + 2 * up[x + 1] + up[x + 2]);
                          out[x] = sobel_value(gx, gy, output);
                        }
                      });
}

void sobel_rows(const ConstImageView& src, const ImageView& dst, RowRange rows, BorderMode border,
                SobelOutput output, Loops loops) {
  switch (output) {
    case SobelOutput::magnitude:
      sobel_fast_rows<SobelOutput::magnitude>(src, dst, rows, border, loops);
      break;
    case SobelOutput::l1:
      sobel_fast_rows<SobelOutput::l1>(src, dst, rows, border, loops);
      break;
    case SobelOutput::dx:
      sobel_fast_rows<SobelOutput::dx>(src, dst, rows, border, loops);
      break;
    case SobelOutput::dy:
      sobel_fast_rows<SobelOutput::dy>(src, dst, rows, border, loops);
      break;
  }
}

void sharpen_naive_rows(const ConstImageView& src, const ImageView& dst, RowRange rows,
                        BorderMode border) {
  const int width = src.width();
  const int channels = src.channels();
  const int filtered = filtered_channels(channels);
  for_each_padded_row(src, rows, border, kSharpenHalo, dst,
                      [&](int y, const std::uint8_t* const* taps, std::uint8_t* out) {
                        for (int x = 0; x < width; ++x) {
                          for (int c = 0; c < filtered; ++c) {
                            const std::ptrdiff_t at = static_cast<std::ptrdiff_t>(x) * channels + c;
                            // Padded sample at + channels is image sample at.
                            const int centre = taps[1][at + channels];
                            const int value = kCentreWeight * centre - taps[0][at + channels] -
                                              taps[2][at + channels] - taps[1][at] -
                                              taps[1][at + 2 * channels];
                            out[at] = static_cast<std::uint8_t>(std::clamp(value, 0, kMaxSample));
                          }
                        }
                        copy_alpha(src, dst, y);
                      });
}

void sharpen_rows(const ConstImageView& src, const ImageView& dst, RowRange rows, BorderMode border,
                  Loops loops) {
  const int width = src.width();
  const int channels = src.channels();
  const detail::BorderRows border_rows(src, border);
  const detail::EdgeColumns edges(width, kSharpenHalo, border);
  const std::vector<int> edge_xs = edges.edge_pixels();
  const std::ptrdiff_t interior_begin = channels;
  const std::ptrdiff_t interior_end =
      std::max(interior_begin, static_cast<std::ptrdiff_t>(width - kSharpenHalo) * channels);
  for (int y = rows.begin; y < rows.end; ++y) {
    const std::uint8_t* up = border_rows.row(y - 1);
    const std::uint8_t* mid = border_rows.row(y);
    const std::uint8_t* down = border_rows.row(y + 1);
    std::uint8_t* out = dst.row(y);
    const std::ptrdiff_t first =
        uses_simd(loops) ? simd::sharpen_row(up, mid, down, out, interior_begin, interior_end,
                                             channels, detail::output_store(src, y, loops))
                         : interior_begin;
    switch (channels) {
      case 1:
        sharpen_interior<1>(up, mid, down, out, first, interior_end);
        break;
      case 3:
        sharpen_interior<3>(up, mid, down, out, first, interior_end);
        break;
      default:
        sharpen_interior<4>(up, mid, down, out, first, interior_end);
        break;
    }
    for (std::size_t e = 0; e < edge_xs.size(); ++e) {
      const std::ptrdiff_t at = static_cast<std::ptrdiff_t>(edge_xs[e]) * channels;
      for (int c = 0; c < channels; ++c) {
        const auto s = [&](int k) {
          return edges.sample(mid, static_cast<int>(e), k, c, channels);
        };
        const int value = kCentreWeight * s(1) - up[at + c] - down[at + c] - s(0) - s(2);
        out[at + c] = static_cast<std::uint8_t>(std::clamp(value, 0, kMaxSample));
      }
    }
    if (uses_simd(loops) && channels > detail::kRgbChannels) {
      // The SIMD stores put alpha back; pixel 0 and the plain loop's pixels need it still.
      out[detail::kAlphaChannel] = mid[detail::kAlphaChannel];
      copy_alpha(src, dst, y, Loops::plain, static_cast<int>(first / channels));
    } else {
      copy_alpha(src, dst, y);
    }
  }
}

}  // namespace parfilter::kernels
