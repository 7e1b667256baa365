// One op on the OpenCL backend, each defined in its own file, ops/<op>.cpp, whose stem is the
// op's name: CMake collects them into the table cl_op() reads (cl_op_table.cpp.in). Its kernels
// are in kernels/*.cl; what several ops share is in ops_*.cpp (ops.hpp).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "deep_device.hpp"
#include "ops.hpp"

namespace parfilter::opencl {

struct ClOp {
  std::string_view name;  ///< the op's name (op_set.hpp), and its file's stem
  /// The variants, the default first. They do not depend on the device, so a chain is checked
  /// while the device is still being found; a "default" that differs between GPUs and CPU
  /// devices (PoCL) picks its schedule when it runs (Lane::cpu_schedules).
  std::vector<std::string> (*variants)() = nullptr;
  /// `op` (params.variant resolved to `variant`) on `input`, enqueued on `lane`'s queue. An op
  /// with a host step (histogram, equalize, otsu, segment) waits for the queue there.
  DeviceResult (*run)(Lane& lane, const DeviceImage& input, const OpParams& params,
                      std::string_view variant) = nullptr;
  /// The op at 16 bits, every variant alike: one of DeviceChain16's steps
  /// (Chain16::step_of<&Chain16::gaussian>), or its own kernels run through
  /// chain.device().run.
  Chain16::Step run_16 = nullptr;
};

/// A ClOp's run for an op of a group whose steps are shared: `group_run` (run_morphology_op,
/// run_thresholding) with the op.
template <DeviceResult (*group_run)(Lane&, Op, const DeviceImage&, const OpParams&,
                                    std::string_view),
          Op op>
DeviceResult run_in_group(Lane& lane, const DeviceImage& input, const OpParams& params,
                          std::string_view variant) {
  return group_run(lane, op, input, params, variant);
}

/// A ClOp's run for an op with one schedule and no parameters (gray, pool, equalize): `step`'s
/// image.
template <DeviceImage (*step)(Lane&, const DeviceImage&)>
DeviceResult run_image_step(Lane& lane, const DeviceImage& input, const OpParams& /*params*/,
                            std::string_view /*variant*/) {
  return image_result(step(lane, input));
}

/// A ClOp's run for an image op whose "default" is one schedule on a CPU device and another on
/// a GPU (device_schedule): `step` with params.variant so resolved.
template <DeviceImage (*step)(Lane&, const DeviceImage&, const OpParams&, std::string_view),
          const std::string_view& on_cpu, const std::string_view& on_gpu>
DeviceResult run_by_device(Lane& lane, const DeviceImage& input, const OpParams& params,
                           std::string_view variant) {
  return image_result(step(lane, input, params, device_schedule(lane, variant, on_cpu, on_gpu)));
}

/// The OpenCL definition of `op`; std::logic_error if ops/ has no file for it.
[[nodiscard]] const ClOp& cl_op(Op op);

/// `names` as the strings a variant list holds.
[[nodiscard]] std::vector<std::string> variant_list(std::initializer_list<std::string_view> names);

}  // namespace parfilter::opencl
