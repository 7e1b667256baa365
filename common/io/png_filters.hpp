// Internal to png_encode.cpp: PNG's five row filters (PNG spec, section 9) and the choice
// among them by the smallest sum of absolute values of the filtered bytes taken as signed.
// Each filter is a plain loop over the row that the compiler vectorizes: the inputs are the
// original pixels, so no output depends on another (__restrict tells the compiler so).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace parfilter::io {

enum class PngFilter : std::uint8_t { none = 0, sub = 1, up = 2, average = 3, paeth = 4 };

class PngRowFilter {
 public:
  /// `adaptive`: choose each row's filter; otherwise every row is stored unfiltered.
  PngRowFilter(int bytes_per_pixel, std::ptrdiff_t row_bytes, bool adaptive)
      : bpp_(static_cast<std::size_t>(bytes_per_pixel)),
        size_(static_cast<std::size_t>(row_bytes)),
        adaptive_(adaptive),
        zeros_(size_, 0) {
    if (adaptive_) {
      for (auto& candidate : candidates_) candidate.resize(size_);
    }
  }

  /// Writes the filter byte then the filtered row to `out` (1 + row_bytes bytes). `above` is
  /// the previous row, or nullptr for the first.
  void filter_row(const std::uint8_t* row, const std::uint8_t* above, std::uint8_t* out) {
    if (!adaptive_) {
      out[0] = static_cast<std::uint8_t>(PngFilter::none);
      std::memcpy(out + 1, row, size_);
      return;
    }
    const std::uint8_t* up = above != nullptr ? above : zeros_.data();
    sub(row, candidates_[0].data());
    difference(row, up, candidates_[1].data());
    average(row, up, candidates_[2].data());
    paeth(row, up, candidates_[3].data());
    constexpr std::array kChoices{PngFilter::sub, PngFilter::up, PngFilter::average,
                                  PngFilter::paeth};
    PngFilter best = PngFilter::none;
    const std::uint8_t* best_bytes = row;
    std::uint64_t best_cost = cost(row);
    for (std::size_t i = 0; i < kChoices.size(); ++i) {
      const std::uint64_t c = cost(candidates_[i].data());
      if (c < best_cost) {
        best_cost = c;
        best = kChoices[i];
        best_bytes = candidates_[i].data();
      }
    }
    out[0] = static_cast<std::uint8_t>(best);
    std::memcpy(out + 1, best_bytes, size_);
  }

 private:
  void sub(const std::uint8_t* __restrict r, std::uint8_t* __restrict d) const {
    for (std::size_t x = 0; x < bpp_ && x < size_; ++x) d[x] = r[x];
    for (std::size_t x = bpp_; x < size_; ++x) d[x] = static_cast<std::uint8_t>(r[x] - r[x - bpp_]);
  }
  void difference(const std::uint8_t* __restrict r, const std::uint8_t* __restrict up,
                  std::uint8_t* __restrict d) const {
    for (std::size_t x = 0; x < size_; ++x) d[x] = static_cast<std::uint8_t>(r[x] - up[x]);
  }
  void average(const std::uint8_t* __restrict r, const std::uint8_t* __restrict up,
               std::uint8_t* __restrict d) const {
    for (std::size_t x = 0; x < bpp_ && x < size_; ++x) {
      d[x] = static_cast<std::uint8_t>(r[x] - (up[x] >> 1));
    }
    for (std::size_t x = bpp_; x < size_; ++x) {
      d[x] = static_cast<std::uint8_t>(r[x] - ((r[x - bpp_] + up[x]) >> 1));
    }
  }
  void paeth(const std::uint8_t* __restrict r, const std::uint8_t* __restrict up,
             std::uint8_t* __restrict d) const {
    for (std::size_t x = 0; x < bpp_ && x < size_; ++x)
      d[x] = static_cast<std::uint8_t>(r[x] - up[x]);
    for (std::size_t x = bpp_; x < size_; ++x) {
      const int a = r[x - bpp_];
      const int b = up[x];
      const int c = up[x - bpp_];
      const int pa = std::abs(b - c);
      const int pb = std::abs(a - c);
      const int pc = std::abs(a + b - 2 * c);
      const int predictor = (pa <= pb && pa <= pc) ? a : (pb <= pc ? b : c);
      d[x] = static_cast<std::uint8_t>(r[x] - predictor);
    }
  }
  /// The sum of |b| over the bytes taken as signed.
  /// Summed in 32 bits over pieces short enough that no piece's sum can overflow.
  [[nodiscard]] std::uint64_t cost(const std::uint8_t* bytes) const {
    constexpr std::size_t kPiece = std::size_t{1} << 24;  // 2^24 * 128 < 2^32
    std::uint64_t total = 0;
    for (std::size_t begin = 0; begin < size_; begin += kPiece) {
      const std::size_t end = std::min(size_, begin + kPiece);
      std::uint32_t sum = 0;
      for (std::size_t x = begin; x < end; ++x) {
        const auto v = static_cast<std::int8_t>(bytes[x]);
        sum += static_cast<std::uint32_t>(v < 0 ? -v : v);
      }
      total += sum;
    }
    return total;
  }

  std::size_t bpp_;
  std::size_t size_;
  bool adaptive_;
  std::vector<std::uint8_t> zeros_;
  std::array<std::vector<std::uint8_t>, 4> candidates_;
};

}  // namespace parfilter::io
