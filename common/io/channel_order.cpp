#include "channel_order.hpp"

// Sanitizer builds get the baseline alone: GCC 12 instruments the ifunc resolver, which then
// runs before the sanitizer runtime is up (common/kernels/row_kernels_internal.hpp says more).
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__) && \
    !defined(__SANITIZE_THREAD__) && !defined(__SANITIZE_ADDRESS__)
#define PARFILTER_IO_CLONES __attribute__((target_clones("avx2", "ssse3", "default")))
#else
#define PARFILTER_IO_CLONES
#endif

namespace parfilter::io {
namespace {
constexpr std::size_t kRed = 0;
constexpr std::size_t kGreen = 1;
constexpr std::size_t kBlue = 2;
constexpr std::size_t kAlpha = 3;
constexpr std::size_t kRgb = 3;
constexpr std::size_t kRgba = 4;
}  // namespace

PARFILTER_IO_CLONES
void swap_red_blue_3(const std::uint8_t* __restrict in, std::uint8_t* __restrict out,
                     std::size_t pixels) {
  for (std::size_t x = 0; x < pixels; ++x) {
    out[kRgb * x + kRed] = in[kRgb * x + kBlue];
    out[kRgb * x + kGreen] = in[kRgb * x + kGreen];
    out[kRgb * x + kBlue] = in[kRgb * x + kRed];
  }
}

PARFILTER_IO_CLONES
void swap_red_blue_4(const std::uint8_t* __restrict in, std::uint8_t* __restrict out,
                     std::size_t pixels) {
  for (std::size_t x = 0; x < pixels; ++x) {
    out[kRgba * x + kRed] = in[kRgba * x + kBlue];
    out[kRgba * x + kGreen] = in[kRgba * x + kGreen];
    out[kRgba * x + kBlue] = in[kRgba * x + kRed];
    out[kRgba * x + kAlpha] = in[kRgba * x + kAlpha];
  }
}

PARFILTER_IO_CLONES
void bgrx_to_rgb(const std::uint8_t* __restrict in, std::uint8_t* __restrict out,
                 std::size_t pixels) {
  for (std::size_t x = 0; x < pixels; ++x) {
    out[kRgb * x + kRed] = in[kRgba * x + kBlue];
    out[kRgb * x + kGreen] = in[kRgba * x + kGreen];
    out[kRgb * x + kBlue] = in[kRgba * x + kRed];
  }
}

}  // namespace parfilter::io
