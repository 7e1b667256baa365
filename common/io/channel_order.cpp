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

/// Each pixel's red and blue swapped, `kIn` bytes a pixel in and `kOut` out (alpha copied when
/// both have it); inlined into each entry point below, so that every clone vectorizes it for
/// its own target.
template <std::size_t kIn, std::size_t kOut>
[[gnu::always_inline]] inline void swap_red_blue(const std::uint8_t* __restrict in,
                                                 std::uint8_t* __restrict out, std::size_t pixels) {
  for (std::size_t x = 0; x < pixels; ++x) {
    out[kOut * x + kRed] = in[kIn * x + kBlue];
    out[kOut * x + kGreen] = in[kIn * x + kGreen];
    out[kOut * x + kBlue] = in[kIn * x + kRed];
    if constexpr (kIn == kRgba && kOut == kRgba) out[kOut * x + kAlpha] = in[kIn * x + kAlpha];
  }
}

}  // namespace

PARFILTER_IO_CLONES
void swap_red_blue_3(const std::uint8_t* __restrict in, std::uint8_t* __restrict out,
                     std::size_t pixels) {
  swap_red_blue<kRgb, kRgb>(in, out, pixels);
}

PARFILTER_IO_CLONES
void swap_red_blue_4(const std::uint8_t* __restrict in, std::uint8_t* __restrict out,
                     std::size_t pixels) {
  swap_red_blue<kRgba, kRgba>(in, out, pixels);
}

PARFILTER_IO_CLONES
void bgrx_to_rgb(const std::uint8_t* __restrict in, std::uint8_t* __restrict out,
                 std::size_t pixels) {
  swap_red_blue<kRgba, kRgb>(in, out, pixels);
}

}  // namespace parfilter::io
