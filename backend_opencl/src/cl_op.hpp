// One op on the OpenCL backend, each defined in its own file, ops/<op>.cpp, whose stem is the
// op's name: CMake collects them into the table cl_op() reads (cl_op_table.cpp.in). Its kernels
// are in kernels/*.cl; what several ops share is in ops_*.cpp (ops.hpp).
#pragma once

#include <string>
#include <string_view>
#include <vector>

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
};

/// The OpenCL definition of `op`; std::logic_error if ops/ has no file for it.
[[nodiscard]] const ClOp& cl_op(Op op);

/// `names` as the strings a variant list holds.
[[nodiscard]] std::vector<std::string> variant_list(std::initializer_list<std::string_view> names);

}  // namespace parfilter::opencl
