// One op on the CUDA backend, each defined in its own file, ops/<op>.cpp (host code calling the
// launchers of kernels/) or ops/<op>.cu (an op whose kernels no other op shares: its kernels,
// launch and definition in one file). CMake collects them into the table cuda_op() reads
// (cuda_op_table.cpp.in); what several ops share is in cuda_ops.cpp.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cuda_ops.hpp"
#include "deep_device.hpp"

namespace parfilter::cuda {

struct CudaOp {
  std::string_view name;  ///< the op's name (op_set.hpp), and its file's stem
  /// The variants, as --variant takes them: the default (the fastest) first.
  std::vector<std::string> (*variants)() = nullptr;
  /// The op (params.variant resolved) on ws.stream over `in`, which lies in ws.input. An op
  /// with a host step (histogram, equalize, otsu, segment) waits for the stream there.
  DeviceResult (*run)(Workspace& ws, const OpParams& params, const DeviceImage& in) = nullptr;
  /// The op at 16 bits, every variant alike: one of DeviceChain16's steps
  /// (Chain16::step_of<&Chain16::gaussian>), or its own kernels launched through
  /// chain.device().timed.
  Chain16::Step run_16 = nullptr;
};

/// A CudaOp's run for an op of a group whose steps are shared: `group_run` (run_morphology,
/// run_thresholding) with the op.
template <DeviceResult (*group_run)(Workspace&, Op, const OpParams&, const DeviceImage&), Op op>
DeviceResult run_in_group(Workspace& ws, const OpParams& params, const DeviceImage& in) {
  return group_run(ws, op, params, in);
}

/// The CUDA definition of `op`; std::logic_error if ops/ has no file for it.
[[nodiscard]] const CudaOp& cuda_op(Op op);

/// The resolved chain's ops in turn on ws.stream, `in` (in ws.input) first: each next op reads
/// the previous one's image where every op reads its input, ws.input. The last op's result.
[[nodiscard]] DeviceResult run_chain_steps(Workspace& ws, const OpChain& resolved, DeviceImage in);

}  // namespace parfilter::cuda
