// The CPU ops' table (common/kernels/cpu_op.hpp, one file per op in common/kernels/ops/):
// every op has its definition, under its own name, and what it declares agrees with the op
// table's traits.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "cpu_op.hpp"

namespace parfilter {
namespace {

TEST(CpuOps, EveryOpHasItsFileAndItsVariants) {
  for (const Op op : kAllOps) {
    const CpuOp& defined = cpu_op(op);
    EXPECT_EQ(defined.name, op_name(op));
    // A single-pass op is its pass; any other defines how it runs, never both.
    EXPECT_NE(defined.run == nullptr, defined.single_pass == nullptr) << op_name(op);
    ASSERT_FALSE(defined.variants.empty()) << op_name(op);
    const std::set<std::string_view> unique(defined.variants.begin(), defined.variants.end());
    EXPECT_EQ(unique.size(), defined.variants.size()) << op_name(op) << ": a variant twice";
    EXPECT_TRUE(unique.contains(kScalarVariant)) << op_name(op) << ": no plain-loop variant";
  }
}

TEST(CpuOps, AHaloExactlyWhereTheOpReadsRowsAroundItsOwn) {
  for (const Op op : kAllOps) {
    const OpTraits& traits = op_info(op).traits;
    const bool own_rows = !traits.whole_image && !traits.halves_size;
    const CpuOp& defined = cpu_op(op);
    EXPECT_EQ(defined.halo != nullptr || defined.single_pass != nullptr, own_rows) << op_name(op);
    EXPECT_FALSE(defined.halo != nullptr && defined.single_pass != nullptr) << op_name(op);
    if (own_rows) {
      EXPECT_NO_THROW((void)row_halo(op, OpParams{})) << op_name(op);
    } else {
      EXPECT_THROW((void)row_halo(op, OpParams{}), std::logic_error) << op_name(op);
    }
  }
}

TEST(CpuOps, ASinglePassReadsTheHaloItsOpDeclares) {
  for (const Op op : kAllOps) {
    const CpuOp& defined = cpu_op(op);
    if (defined.single_pass == nullptr) continue;
    const RowHalo pass = defined.single_pass(OpParams{}).halo;
    const RowHalo declared = row_halo(op, OpParams{});
    EXPECT_EQ(pass.above, declared.above) << op_name(op);
    EXPECT_EQ(pass.below, declared.below) << op_name(op);
  }
}

}  // namespace
}  // namespace parfilter
