// The separable Gaussian and van Herk/Gil-Werman morphology at any depth (row_kernels_deep.hpp).
// Plain loops over interleaved samples, written so that the compiler vectorizes them: one
// loop serves 1, 3 and 4 channels, and alpha is computed and then copied over.
#include "row_kernels_deep.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <vector>

namespace parfilter::kernels {
namespace {

constexpr int kRgbChannels = 3;
constexpr int kRgbaChannels = 4;
constexpr std::uint32_t kGaussianRounding = 1U << (kGaussianShift - 1);
/// Output rows one morphology pass computes at once: its scratch is (chunk + element height)
/// rows, whatever the block's size.
constexpr int kMorphologyChunkRows = 64;

template <typename Sample>
constexpr Sample kTop = static_cast<Sample>(reference::kLevels<Sample> - 1);

/// Alpha of RGBA as the input has it: the filters leave it alone.
template <typename Sample>
void copy_alpha_row(const Sample* in, Sample* out, int width, int channels) {
  if (channels != kRgbaChannels) return;
  for (int x = 0; x < width; ++x) {
    out[x * kRgbaChannels + kRgbChannels] = in[x * kRgbaChannels + kRgbChannels];
  }
}

/// Row `y` (any index: the border decides) widened by `radius` pixels on each side, as
/// `Wide` values.
template <typename Sample, typename Wide>
void padded_row(BasicImageView<const Sample> in, int y, int radius, BorderMode border,
                std::vector<Wide>& out) {
  const int width = in.width();
  const int channels = in.channels();
  const int by = border_index(y, in.height(), border.kind);
  out.resize(static_cast<std::size_t>(width + 2 * radius) * channels);
  std::fill(out.begin(), out.end(), border.value);  // a constant border's rows and ends
  if (by < 0) return;
  const Sample* row = in.row(by);
  Wide* middle = out.data() + static_cast<std::ptrdiff_t>(radius) * channels;
  for (std::ptrdiff_t i = 0; i < static_cast<std::ptrdiff_t>(width) * channels; ++i) {
    middle[i] = row[i];
  }
  for (int k = 1; k <= radius; ++k) {
    const int left = border_index(-k, width, border.kind);
    const int right = border_index(width - 1 + k, width, border.kind);
    for (int c = 0; c < channels; ++c) {
      if (left >= 0) middle[-k * channels + c] = row[left * channels + c];
      if (right >= 0) middle[(width - 1 + k) * channels + c] = row[right * channels + c];
    }
  }
}

/// The neutral value of a pass, which outside pixels take.
template <typename Sample>
Sample neutral(MorphOp morph) {
  return morph == MorphOp::erode ? kTop<Sample> : Sample{0};
}

template <typename Sample>
Sample pick(MorphOp morph, Sample a, Sample b) {
  return morph == MorphOp::erode ? std::min(a, b) : std::max(a, b);
}

/// out[i] = pick over in[i], in[i + step], ..., in[i + (k - 1) step], for i in [0, n) (n a
/// multiple of step): van Herk/Gil-Werman over units of `step` values, in blocks of k units:
/// the suffix of the block a window starts in and the prefix of the one it ends in, three
/// comparisons per value whatever k. `in` holds n + (k - 1) step values, as do the scratch
/// `suffix` and `prefix`. The inner loops run over a unit's values (a whole row in the
/// vertical pass), so they vectorize.
template <typename Sample>
void window_pick(const Sample* in, Sample* out, std::ptrdiff_t n, int k, std::ptrdiff_t step,
                 MorphOp morph, Sample* suffix, Sample* prefix) {
  const std::ptrdiff_t units = n / step + k - 1;
  for (std::ptrdiff_t u = 0; u < units; ++u) {
    const std::ptrdiff_t at = u * step;
    if (u % k == 0) {
      std::copy(in + at, in + at + step, prefix + at);
      continue;
    }
    for (std::ptrdiff_t s = 0; s < step; ++s) {
      prefix[at + s] = pick(morph, prefix[at - step + s], in[at + s]);
    }
  }
  for (std::ptrdiff_t u = units - 1; u >= 0; --u) {
    const std::ptrdiff_t at = u * step;
    if (u % k == k - 1 || u == units - 1) {
      std::copy(in + at, in + at + step, suffix + at);
      continue;
    }
    for (std::ptrdiff_t s = 0; s < step; ++s) {
      suffix[at + s] = pick(morph, suffix[at + step + s], in[at + s]);
    }
  }
  const std::ptrdiff_t last = static_cast<std::ptrdiff_t>(k - 1) * step;
  for (std::ptrdiff_t i = 0; i < n; ++i) out[i] = pick(morph, suffix[i], prefix[i + last]);
}

/// The same windows as window_pick, by doubling: after pass p, a[i] is the pick over 2^p
/// values from i, each pass one contiguous loop of `pick`s that vectorizes, and the window of k
/// is two overlapping windows of the largest power of two within k: log2(k) + 1 passes. Along a
/// row, where step is one pixel (a few samples), this is faster than van Herk's serial prefix.
/// `a` and `b` are scratch of n + (k - 1) step values.
template <typename Sample>
void window_pick_doubling(const Sample* in, Sample* out, std::ptrdiff_t n, int k,
                          std::ptrdiff_t step, MorphOp morph, Sample* a, Sample* b) {
  const std::ptrdiff_t total = n + static_cast<std::ptrdiff_t>(k - 1) * step;
  std::copy(in, in + total, a);
  std::ptrdiff_t span = 1;
  while (span * 2 <= k) {
    const std::ptrdiff_t valid = total - (2 * span - 1) * step;
    const std::ptrdiff_t shift = span * step;
    for (std::ptrdiff_t i = 0; i < valid; ++i) b[i] = pick(morph, a[i], a[i + shift]);
    std::swap(a, b);
    span *= 2;
  }
  const std::ptrdiff_t rest = (k - span) * step;
  for (std::ptrdiff_t i = 0; i < n; ++i) out[i] = pick(morph, a[i], a[i + rest]);
}

/// The buffers of one morphology call, reused by every chunk and rectangle.
template <typename Sample>
struct MorphologyScratch {
  std::vector<Sample> across, line, suffix, prefix, down;
};

/// One rectangle's pass for output rows [begin, end) into `out`, combined with what `out`
/// holds when `combine` (the element's other rectangles).
template <typename Sample>
void rect_pass(BasicImageView<const Sample> in, const SeRect& rect, MorphOp morph, int begin,
               int end, std::vector<Sample>& out, bool combine,
               MorphologyScratch<Sample>& scratch) {
  const int channels = in.channels();
  const auto samples = static_cast<std::ptrdiff_t>(in.width()) * channels;
  const int kx = rect.x1 - rect.x0;
  const int ky = rect.y1 - rect.y0;
  const Sample none = neutral<Sample>(morph);
  // Horizontal: row r of `across` is input row begin + y0 + r, each sample the pick over the
  // rectangle's columns.
  const int rows_needed = end - begin + ky - 1;
  const std::ptrdiff_t wide = samples + static_cast<std::ptrdiff_t>(kx - 1) * channels;
  scratch.across.resize(static_cast<std::size_t>(rows_needed) * samples);
  scratch.line.resize(static_cast<std::size_t>(wide));
  const auto longest =
      static_cast<std::size_t>(std::max(wide, samples * static_cast<std::ptrdiff_t>(rows_needed)));
  scratch.suffix.resize(longest);
  scratch.prefix.resize(longest);
  // line[j] is sample j + x0 * C of the row, neutral outside it: [lead, lead + samples) holds
  // the row.
  const std::ptrdiff_t lead = -static_cast<std::ptrdiff_t>(rect.x0) * channels;
  const std::ptrdiff_t copy_from = std::max<std::ptrdiff_t>(0, -lead);
  const std::ptrdiff_t copy_to = std::min(samples, wide - lead);
  std::fill(scratch.line.begin(), scratch.line.end(), none);
  for (int r = 0; r < rows_needed; ++r) {
    Sample* dst = scratch.across.data() + static_cast<std::ptrdiff_t>(r) * samples;
    const int y = begin + rect.y0 + r;
    if (y < 0 || y >= in.height()) {
      std::fill(dst, dst + samples, none);
      continue;
    }
    if (copy_to > copy_from) {
      const Sample* row = in.row(y);
      std::copy(row + copy_from, row + copy_to, scratch.line.data() + lead + copy_from);
    }
    window_pick_doubling(scratch.line.data(), dst, samples, kx, channels, morph,
                         scratch.suffix.data(), scratch.prefix.data());
  }
  // Vertical, over whole rows at once: the same windows with a step of one row.
  std::vector<Sample>& down = combine ? scratch.down : out;
  down.resize(static_cast<std::size_t>(end - begin) * samples);
  window_pick(scratch.across.data(), down.data(),
              static_cast<std::ptrdiff_t>(end - begin) * samples, ky, samples, morph,
              scratch.suffix.data(), scratch.prefix.data());
  if (!combine) return;
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = pick(morph, out[i], down[i]);
}

}  // namespace

template <typename Sample>
void gaussian_separable_deep_rows(BasicImageView<const Sample> in, BasicImageView<Sample> out,
                                  RowRange rows, const GaussianWeights& weights,
                                  BorderMode border) {
  const int channels = in.channels();
  const auto samples = static_cast<std::ptrdiff_t>(in.width()) * channels;
  const auto& q = weights.q;
  std::vector<std::uint32_t> padded;
  // ring[k] holds the row pass of input row y - kGaussianRadius + k.
  std::array<std::vector<std::uint32_t>, kGaussianTaps> ring;
  const auto row_pass = [&](int y, std::vector<std::uint32_t>& sums) {
    padded_row(in, y, kGaussianRadius, border, padded);
    sums.resize(static_cast<std::size_t>(samples));
    const std::uint32_t* p = padded.data();
    for (std::ptrdiff_t i = 0; i < samples; ++i) {
      std::uint32_t sum = 0;
      for (int k = 0; k < kGaussianTaps; ++k) sum += q[k] * p[i + k * channels];
      sums[i] = sum;
    }
  };
  for (int k = 0; k < kGaussianTaps - 1; ++k) row_pass(rows.begin - kGaussianRadius + k, ring[k]);
  for (int y = rows.begin; y < rows.end; ++y) {
    row_pass(y + kGaussianRadius, ring[kGaussianTaps - 1]);
    Sample* dst = out.row(y);
    for (std::ptrdiff_t i = 0; i < samples; ++i) {
      std::uint32_t sum = kGaussianRounding;
      for (int k = 0; k < kGaussianTaps; ++k) sum += q[k] * ring[k][i];
      dst[i] = static_cast<Sample>(sum >> kGaussianShift);
    }
    copy_alpha_row(in.row(y), dst, in.width(), channels);
    std::rotate(ring.begin(), ring.begin() + 1, ring.end());
  }
}

template <typename Sample>
void morphology_deep_rows(BasicImageView<const Sample> in, BasicImageView<Sample> out,
                          RowRange rows, const StructuringElement& se, MorphOp morph) {
  const std::vector<SeRect> rects = structuring_element_rects(se);
  const auto samples = static_cast<std::ptrdiff_t>(in.width()) * in.channels();
  std::vector<Sample> picked;
  MorphologyScratch<Sample> scratch;
  for (int begin = rows.begin; begin < rows.end; begin += kMorphologyChunkRows) {
    const int end = std::min(rows.end, begin + kMorphologyChunkRows);
    for (std::size_t r = 0; r < rects.size(); ++r) {
      rect_pass(in, rects[r], morph, begin, end, picked, r > 0, scratch);
    }
    for (int y = begin; y < end; ++y) {
      const Sample* src = picked.data() + static_cast<std::ptrdiff_t>(y - begin) * samples;
      std::copy(src, src + samples, out.row(y));
      copy_alpha_row(in.row(y), out.row(y), in.width(), in.channels());
    }
  }
}

template <typename Sample>
void sobel_deep_rows(BasicImageView<const Sample> gray, BasicImageView<Sample> out, RowRange rows,
                     BorderMode border, SobelOutput output) {
  const int width = gray.width();
  static constexpr int kTopLevel = reference::kLevels<Sample> - 1;
  static constexpr double kTopValue = kTopLevel;
  std::array<std::vector<int>, 3> padded;  // rows y - 1, y, y + 1, rotated down each row
  padded_row(gray, rows.begin - 1, 1, border, padded[1]);
  padded_row(gray, rows.begin, 1, border, padded[2]);
  for (int y = rows.begin; y < rows.end; ++y) {
    std::rotate(padded.begin(), padded.begin() + 1, padded.end());
    padded_row(gray, y + 1, 1, border, padded[2]);
    const int* up = padded[0].data() + 1;
    const int* mid = padded[1].data() + 1;
    const int* down = padded[2].data() + 1;
    Sample* dst = out.row(y);
    // One loop per output, so that each vectorizes.
    const auto each_pixel = [&](auto level_of) {
      for (int x = 0; x < width; ++x) {
        // Gx = [-1 0 1; -2 0 2; -1 0 1], Gy = [-1 -2 -1; 0 0 0; 1 2 1].
        const int gx =
            (up[x + 1] + 2 * mid[x + 1] + down[x + 1]) - (up[x - 1] + 2 * mid[x - 1] + down[x - 1]);
        const int gy =
            (down[x - 1] + 2 * down[x] + down[x + 1]) - (up[x - 1] + 2 * up[x] + up[x + 1]);
        dst[x] = static_cast<Sample>(level_of(std::abs(gx), std::abs(gy)));
      }
    };
    switch (output) {
      case SobelOutput::magnitude:
        each_pixel([](int ax, int ay) {
          const double square = static_cast<double>(ax) * ax + static_cast<double>(ay) * ay;
          // Truncation is the floor here (non-negative), and needs no libm call.
          return static_cast<int>(std::min(std::sqrt(square) + 0.5, kTopValue + 0.5));
        });
        break;
      case SobelOutput::l1:
        each_pixel([](int ax, int ay) { return std::min(ax + ay, kTopLevel); });
        break;
      case SobelOutput::dx:
        each_pixel([](int ax, int /*ay*/) { return std::min(ax, kTopLevel); });
        break;
      case SobelOutput::dy:
        each_pixel([](int /*ax*/, int ay) { return std::min(ay, kTopLevel); });
        break;
    }
  }
}

template <typename Sample>
void sharpen_deep_rows(BasicImageView<const Sample> in, BasicImageView<Sample> out, RowRange rows,
                       BorderMode border) {
  constexpr int kCentreWeight = 5;
  constexpr int kTopLevel = reference::kLevels<Sample> - 1;
  const int channels = in.channels();
  const auto samples = static_cast<std::ptrdiff_t>(in.width()) * channels;
  std::array<std::vector<int>, 3> padded;
  padded_row(in, rows.begin - 1, 1, border, padded[1]);
  padded_row(in, rows.begin, 1, border, padded[2]);
  for (int y = rows.begin; y < rows.end; ++y) {
    std::rotate(padded.begin(), padded.begin() + 1, padded.end());
    padded_row(in, y + 1, 1, border, padded[2]);
    const int* up = padded[0].data() + channels;
    const int* mid = padded[1].data() + channels;
    const int* down = padded[2].data() + channels;
    Sample* dst = out.row(y);
    for (std::ptrdiff_t i = 0; i < samples; ++i) {
      const int v =
          kCentreWeight * mid[i] - up[i] - down[i] - mid[i - channels] - mid[i + channels];
      dst[i] = static_cast<Sample>(std::clamp(v, 0, kTopLevel));
    }
    copy_alpha_row(in.row(y), dst, in.width(), channels);
  }
}

const reference::TunedRows& tuned_rows_16() {
  static const reference::TunedRows tuned{
      &gaussian_separable_deep_rows<std::uint16_t>, &morphology_deep_rows<std::uint16_t>,
      &sobel_deep_rows<std::uint16_t>, &sharpen_deep_rows<std::uint16_t>};
  return tuned;
}

template void gaussian_separable_deep_rows(BasicImageView<const std::uint8_t>,
                                           BasicImageView<std::uint8_t>, RowRange,
                                           const GaussianWeights&, BorderMode);
template void gaussian_separable_deep_rows(BasicImageView<const std::uint16_t>,
                                           BasicImageView<std::uint16_t>, RowRange,
                                           const GaussianWeights&, BorderMode);
template void sobel_deep_rows(BasicImageView<const std::uint8_t>, BasicImageView<std::uint8_t>,
                              RowRange, BorderMode, SobelOutput);
template void sobel_deep_rows(BasicImageView<const std::uint16_t>, BasicImageView<std::uint16_t>,
                              RowRange, BorderMode, SobelOutput);
template void sharpen_deep_rows(BasicImageView<const std::uint8_t>, BasicImageView<std::uint8_t>,
                                RowRange, BorderMode);
template void sharpen_deep_rows(BasicImageView<const std::uint16_t>, BasicImageView<std::uint16_t>,
                                RowRange, BorderMode);
template void morphology_deep_rows(BasicImageView<const std::uint8_t>, BasicImageView<std::uint8_t>,
                                   RowRange, const StructuringElement&, MorphOp);
template void morphology_deep_rows(BasicImageView<const std::uint16_t>,
                                   BasicImageView<std::uint16_t>, RowRange,
                                   const StructuringElement&, MorphOp);

}  // namespace parfilter::kernels
