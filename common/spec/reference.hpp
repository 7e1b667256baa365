// The reference implementation: the simplest obviously-correct code for each op of
// docs/FILTERS.md (plain per-pixel loops). It is the oracle of every test.
#pragma once

#include "parfilter/image.hpp"
#include "parfilter/op_set.hpp"

namespace parfilter::reference {

/// Runs `op` on `input`. params.variant is ignored: every variant of an op must give these
/// bytes. Throws UsageError for bad parameters.
[[nodiscard]] OpOutput run(Op op, const Image& input, const OpParams& params);

/// Runs the chain's steps in order, each on the previous one's image; the last step's output.
[[nodiscard]] OpOutput run_chain(const OpChain& chain, const Image& input);

}  // namespace parfilter::reference
