// The reference implementation of docs/FILTERS.md: plain per-pixel loops, written for
// obviousness rather than speed, and independent of every optimised kernel. It is the oracle
// every backend is compared with, bit for bit.
#include "reference.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "filter_math.hpp"

namespace parfilter::reference {
namespace {

constexpr int kMaxSample = 255;
constexpr int kAlphaChannel = 3;  ///< of a 4-channel image
constexpr std::uint8_t kForeground = 255;
constexpr std::uint8_t kBackground = 0;

/// True for the channels a per-channel filter computes; alpha of RGBA is copied instead.
bool is_filtered_channel(const Image& img, int c) {
  return !(img.channels() == 4 && c == kAlphaChannel);
}

/// Sample (x, y, c), where (x, y) may lie outside the image, under a border mode.
int sample(const Image& img, int x, int y, int c, BorderMode border) {
  const int bx = border_index(x, img.width(), border.kind);
  const int by = border_index(y, img.height(), border.kind);
  if (bx < 0 || by < 0) return border.value;  // only BorderKind::constant gives -1
  return img.at(bx, by, c);
}

bool inside(const Image& img, int x, int y) {
  return x >= 0 && x < img.width() && y >= 0 && y < img.height();
}

/// The gray image: a 1-channel input is its own gray; RGB(A) goes through gray_of (alpha
/// is ignored).
Image to_gray(const Image& in) {
  if (in.channels() == 1) return in;
  Image out(in.width(), in.height(), 1);
  for (int y = 0; y < in.height(); ++y) {
    for (int x = 0; x < in.width(); ++x) {
      out.at(x, y) = gray_of(in.at(x, y, 0), in.at(x, y, 1), in.at(x, y, 2));
    }
  }
  return out;
}

HistogramBins histogram_of_channel(const Image& img, int c) {
  HistogramBins hist{};
  for (int y = 0; y < img.height(); ++y) {
    for (int x = 0; x < img.width(); ++x) ++hist[img.at(x, y, c)];
  }
  return hist;
}

Image threshold_image(const Image& gray, int t) {
  Image out(gray.width(), gray.height(), 1);
  for (int y = 0; y < gray.height(); ++y) {
    for (int x = 0; x < gray.width(); ++x) {
      out.at(x, y) = gray.at(x, y) > t ? kForeground : kBackground;
    }
  }
  return out;
}

// ---- neighbourhood filters ------------------------------------------------------------------
Image gaussian(const Image& in, const OpParams& params) {
  const GaussianWeights weights = gaussian_weights(params.sigma);
  constexpr int kRounding = 1 << (kGaussianShift - 1);
  Image out(in.width(), in.height(), in.channels());
  for (int y = 0; y < in.height(); ++y) {
    for (int x = 0; x < in.width(); ++x) {
      for (int c = 0; c < in.channels(); ++c) {
        if (!is_filtered_channel(in, c)) {
          out.at(x, y, c) = in.at(x, y, c);
          continue;
        }
        int sum = 0;
        for (int i = 0; i < kGaussianTaps; ++i) {
          for (int j = 0; j < kGaussianTaps; ++j) {
            sum += weights.weight(i, j) *
                   sample(in, x + j - kGaussianRadius, y + i - kGaussianRadius, c, params.border);
          }
        }
        out.at(x, y, c) = static_cast<std::uint8_t>((sum + kRounding) >> kGaussianShift);
      }
    }
  }
  return out;
}

Image sobel(const Image& in, const OpParams& params) {
  const Image gray = to_gray(in);
  Image out(gray.width(), gray.height(), 1);
  const auto p = [&](int x, int y) { return sample(gray, x, y, 0, params.border); };
  for (int y = 0; y < gray.height(); ++y) {
    for (int x = 0; x < gray.width(); ++x) {
      // Gx = [-1 0 1; -2 0 2; -1 0 1], Gy = [-1 -2 -1; 0 0 0; 1 2 1].
      const int gx = (p(x + 1, y - 1) + 2 * p(x + 1, y) + p(x + 1, y + 1)) -
                     (p(x - 1, y - 1) + 2 * p(x - 1, y) + p(x - 1, y + 1));
      const int gy = (p(x - 1, y + 1) + 2 * p(x, y + 1) + p(x + 1, y + 1)) -
                     (p(x - 1, y - 1) + 2 * p(x, y - 1) + p(x + 1, y - 1));
      out.at(x, y) = sobel_value(gx, gy, params.sobel_output);
    }
  }
  return out;
}

Image sharpen(const Image& in, const OpParams& params) {
  constexpr int kCentreWeight = 5;
  Image out(in.width(), in.height(), in.channels());
  for (int y = 0; y < in.height(); ++y) {
    for (int x = 0; x < in.width(); ++x) {
      for (int c = 0; c < in.channels(); ++c) {
        if (!is_filtered_channel(in, c)) {
          out.at(x, y, c) = in.at(x, y, c);
          continue;
        }
        const auto p = [&](int xx, int yy) { return sample(in, xx, yy, c, params.border); };
        const int v =
            kCentreWeight * p(x, y) - p(x, y - 1) - p(x, y + 1) - p(x - 1, y) - p(x + 1, y);
        out.at(x, y, c) = static_cast<std::uint8_t>(std::clamp(v, 0, kMaxSample));
      }
    }
  }
  return out;
}

// ---- histograms and thresholds ---------------------------------------------------------------
std::vector<HistogramBins> histograms(const Image& in, const OpParams& params) {
  if (!params.per_channel) return {histogram_of_channel(to_gray(in), 0)};
  std::vector<HistogramBins> result;
  for (int c = 0; c < in.channels(); ++c) result.push_back(histogram_of_channel(in, c));
  return result;
}

Image equalize(const Image& in) {
  if (in.channels() == 1) {
    const auto lut = equalize_lut(histogram_of_channel(in, 0));
    Image out(in.width(), in.height(), 1);
    for (int y = 0; y < in.height(); ++y) {
      for (int x = 0; x < in.width(); ++x) out.at(x, y) = lut[in.at(x, y)];
    }
    return out;
  }
  // Colour: equalize the Y of YCrCb, keep Cr and Cb, convert back; alpha is copied.
  HistogramBins hist{};
  for (int y = 0; y < in.height(); ++y) {
    for (int x = 0; x < in.width(); ++x) {
      ++hist[rgb_to_ycrcb(in.at(x, y, 0), in.at(x, y, 1), in.at(x, y, 2)).y];
    }
  }
  const auto lut = equalize_lut(hist);
  Image out = in;
  for (int y = 0; y < in.height(); ++y) {
    for (int x = 0; x < in.width(); ++x) {
      YCrCb ycc = rgb_to_ycrcb(in.at(x, y, 0), in.at(x, y, 1), in.at(x, y, 2));
      ycc.y = lut[ycc.y];
      ycrcb_to_rgb(ycc, &out.at(x, y, 0));
    }
  }
  return out;
}

/// Each pixel against the isodata threshold of its window x window neighbourhood (clipped to
/// the image), or against `global_t` where that window's max - min < min_contrast.
Image adaptive_segment(const Image& gray, const OpParams& params, int global_t) {
  const int half = params.window / 2;
  Image out(gray.width(), gray.height(), 1);
  for (int y = 0; y < gray.height(); ++y) {
    for (int x = 0; x < gray.width(); ++x) {
      HistogramBins hist{};
      int lo = kMaxSample;
      int hi = 0;
      for (int yy = std::max(0, y - half); yy <= std::min(gray.height() - 1, y + half); ++yy) {
        for (int xx = std::max(0, x - half); xx <= std::min(gray.width() - 1, x + half); ++xx) {
          const int v = gray.at(xx, yy);
          ++hist[v];
          lo = std::min(lo, v);
          hi = std::max(hi, v);
        }
      }
      const int t = hi - lo < params.min_contrast ? global_t : isodata_threshold(hist);
      out.at(x, y) = gray.at(x, y) > t ? kForeground : kBackground;
    }
  }
  return out;
}

// ---- morphology -------------------------------------------------------------------------------
/// One erosion or dilation: out(x, y) = min (erode) or max (dilate) over the set SE pixels
/// (i, j) of in(x + i - anchor_x, y + j - anchor_y), skipping pixels outside the image.
Image morph_once(const Image& in, const StructuringElement& se, MorphOp morph) {
  Image out(in.width(), in.height(), in.channels());
  for (int y = 0; y < in.height(); ++y) {
    for (int x = 0; x < in.width(); ++x) {
      for (int c = 0; c < in.channels(); ++c) {
        if (!is_filtered_channel(in, c)) {
          out.at(x, y, c) = in.at(x, y, c);
          continue;
        }
        int best = morph == MorphOp::erode ? kMaxSample : 0;  // the neutral value
        for (int j = 0; j < se.height; ++j) {
          for (int i = 0; i < se.width; ++i) {
            const int xx = x + i - se.anchor_x;
            const int yy = y + j - se.anchor_y;
            if (!se.at(i, j) || !inside(in, xx, yy)) continue;
            const int v = in.at(xx, yy, c);
            best = morph == MorphOp::erode ? std::min(best, v) : std::max(best, v);
          }
        }
        out.at(x, y, c) = static_cast<std::uint8_t>(best);
      }
    }
  }
  return out;
}

/// The op's erosions and dilations in turn (morphology_steps: FILTERS.md's order, each
/// --iterations times); a non-morphology op has none and throws there.
Image morphology(Op op, const Image& in, const OpParams& params) {
  const StructuringElement se = make_structuring_element(params.se);
  Image out = in;
  for (const MorphOp step : morphology_steps(op, params.iterations))
    out = morph_once(out, se, step);
  return out;
}

// ---- pooling ----------------------------------------------------------------------------------
Image pool(const Image& in) {
  constexpr int kPool = 2;
  Image out((in.width() + 1) / kPool, (in.height() + 1) / kPool, in.channels());
  for (int y = 0; y < out.height(); ++y) {
    for (int x = 0; x < out.width(); ++x) {
      for (int c = 0; c < in.channels(); ++c) {
        int best = 0;
        for (int dy = 0; dy < kPool; ++dy) {
          for (int dx = 0; dx < kPool; ++dx) {
            const int xx = kPool * x + dx;
            const int yy = kPool * y + dy;
            if (inside(in, xx, yy)) best = std::max<int>(best, in.at(xx, yy, c));
          }
        }
        out.at(x, y, c) = static_cast<std::uint8_t>(best);
      }
    }
  }
  return out;
}

}  // namespace

OpOutput run(Op op, const Image& input, const OpParams& params) {
  validate_params(op, params);
  OpOutput result;
  switch (op) {
    case Op::gray:
      result.image = to_gray(input);
      break;
    case Op::gaussian:
      result.image = gaussian(input, params);
      break;
    case Op::sobel:
      result.image = sobel(input, params);
      break;
    case Op::sharpen:
      result.image = sharpen(input, params);
      break;
    case Op::histogram:
      result.histogram = histograms(input, params);
      break;
    case Op::equalize:
      result.image = equalize(input);
      break;
    case Op::otsu: {
      const Image gray = to_gray(input);
      const int t = otsu_threshold(histogram_of_channel(gray, 0));
      result.image = threshold_image(gray, t);
      result.threshold = t;
      break;
    }
    case Op::segment: {
      const Image gray = to_gray(input);
      const int t = isodata_threshold(histogram_of_channel(gray, 0));
      result.image = params.adaptive ? adaptive_segment(gray, params, t) : threshold_image(gray, t);
      result.threshold = t;
      break;
    }
    case Op::erode:
    case Op::dilate:
    case Op::open:
    case Op::close:
      result.image = morphology(op, input, params);
      break;
    case Op::pool:
      result.image = pool(input);
      break;
  }
  return result;
}

OpOutput run_chain(const OpChain& chain, const Image& input) {
  OpOutput output;
  Image current = input;
  for (const OpStep& step : chain) {
    output = run(step.op, current, step.params);
    current = output.image;
  }
  return output;
}

}  // namespace parfilter::reference
