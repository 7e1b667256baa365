// vmax3, the dummy op of scripts/check-add-op.sh: each sample the max of itself and the samples
// above and below it (rows outside the image ignored); one row pass with a one-row halo.
#include <algorithm>

#include "cpu_op_steps.hpp"

namespace parfilter::cpu_ops {
namespace {

RowPass vmax3_pass(const OpParams& /*params*/) {
  return RowPass{RowHalo{1, 1}, [](const ConstImageView& src, const ImageView& dst, RowRange rows,
                                   Writes /*writes*/) {
                   for (int y = rows.begin; y < rows.end; ++y) {
                     const std::uint8_t* up = src.row(std::max(y - 1, 0));
                     const std::uint8_t* mid = src.row(y);
                     const std::uint8_t* down = src.row(std::min(y + 1, src.height() - 1));
                     std::uint8_t* out = dst.row(y);
                     for (std::ptrdiff_t i = 0; i < src.row_samples(); ++i) {
                       out[i] = std::max({up[i], mid[i], down[i]});
                     }
                   }
                 }};
}

}  // namespace

extern const CpuOp vmax3_op{
    .name = "vmax3", .variants = kDefaultAndScalar, .single_pass = vmax3_pass};

}  // namespace parfilter::cpu_ops
