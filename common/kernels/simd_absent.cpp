// The SIMD loops in a build without Google Highway (cmake/ParfilterHighway.cmake): each does
// nothing and returns its start, so every kernel runs its plain C++ loop over the whole range.
#include "simd_kernels.hpp"

namespace parfilter::kernels::simd {
namespace {
constexpr const char* kScalar = "SCALAR";
}  // namespace

int luma_row(const std::uint8_t*, std::uint8_t*, int, int, detail::LumaWeights, RowStore) {
  return 0;
}
std::ptrdiff_t threshold_row(const std::uint8_t*, std::uint8_t*, std::ptrdiff_t, int, RowStore) {
  return 0;
}
std::ptrdiff_t lut_row(const std::uint8_t*, std::uint8_t*, std::ptrdiff_t, const std::uint8_t*,
                       RowStore) {
  return 0;
}
int pool_row(const std::uint8_t*, const std::uint8_t*, std::uint8_t*, int, int, RowStore) {
  return 0;
}
int copy_alpha_row(const std::uint8_t*, std::uint8_t*, int) { return 0; }
int equalize_row(const std::uint8_t*, const std::uint8_t*, const std::uint8_t*, std::uint8_t*, int,
                 int) {
  return 0;
}
std::ptrdiff_t gaussian_row(const std::uint8_t*, std::uint16_t*, std::ptrdiff_t begin,
                            std::ptrdiff_t, int, GaussianTaps) {
  return begin;
}
std::ptrdiff_t gaussian_column(const std::uint16_t* const*, std::uint8_t*, std::ptrdiff_t,
                               GaussianTaps, RowStore) {
  return 0;
}
std::ptrdiff_t sharpen_row(const std::uint8_t*, const std::uint8_t*, const std::uint8_t*,
                           std::uint8_t*, std::ptrdiff_t begin, std::ptrdiff_t, int, RowStore) {
  return begin;
}
int sobel_row(const std::uint8_t*, const std::uint8_t*, const std::uint8_t*, std::uint8_t*,
              int begin, int, SobelOutput, RowStore) {
  return begin;
}
std::size_t combine(const std::uint8_t*, const std::uint8_t*, std::uint8_t*, std::size_t, MorphOp,
                    RowStore) {
  return 0;
}
std::size_t combine3(const std::uint8_t*, const std::uint8_t*, const std::uint8_t*, std::uint8_t*,
                     std::size_t, MorphOp, RowStore) {
  return 0;
}

std::vector<std::string> targets() { return {kScalar}; }
std::string active_target() { return kScalar; }
bool pin_target(std::string_view name) { return name.empty() || name == kScalar; }

}  // namespace parfilter::kernels::simd
