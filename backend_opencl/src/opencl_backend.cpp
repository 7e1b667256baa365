// The OpenCL backend: device choice at creation, the device's shared runtime on first run,
// and each op's host code (ops_*.cpp) between the run's timing brackets.
#include <cstdlib>
#include <stdexcept>

#include "cl_device.hpp"
#include "cl_runtime.hpp"
#include "ops.hpp"
#include "parfilter/backends/opencl.hpp"
#include "parfilter/error.hpp"

namespace parfilter {
namespace {

using opencl::Runtime;

class OpenClBackend final : public Backend {
 public:
  explicit OpenClBackend(const BackendOptions& options)
      : request_(opencl::device_request(options,
                                        std::getenv(std::string(opencl::kDeviceEnvVar).c_str()))) {
    try {
      devices_ = opencl::enumerate_devices();
      choice_ = opencl::choose_device(devices_, request_);
    } catch (const std::exception& e) {
      choice_ = {std::nullopt, e.what()};  // a broken driver: say so where a device would be
    }
  }

  [[nodiscard]] std::string_view name() const override { return "opencl"; }
  [[nodiscard]] std::vector<std::string> variants(Op op) const override {
    const bool cpu =
        choice_.device && (devices_.devices[*choice_.device].type & CL_DEVICE_TYPE_CPU) != 0;
    return opencl::opencl_variants(op, cpu);
  }
  [[nodiscard]] Availability availability() const override {
    return {choice_.device.has_value(), choice_.reason};
  }
  [[nodiscard]] std::string describe_devices() const override {
    return opencl::describe(devices_, request_, choice_);
  }
  [[nodiscard]] bool computes_on_host() const override { return false; }
  [[nodiscard]] bool takes_device() const override { return true; }
  [[nodiscard]] int device_count() const override {
    return static_cast<int>(opencl::candidate_count(devices_, request_.platform));
  }
  [[nodiscard]] std::shared_ptr<SampleAllocator> host_allocator() override {
    if (!choice_.device) return nullptr;
    return Runtime::of(devices_.devices[*choice_.device].id).host_pool();
  }

  OpOutput run(Op op, const ConstImageView& input, const OpParams& params,
               StageTimes* times) override {
    validate_params(op, params);
    const std::string variant = resolve_variant(*this, op, params.variant);
    if (!choice_.device) throw RuntimeError(choice_.reason);
    if (input.rows() != RowRange{0, input.height()}) {
      throw std::invalid_argument("opencl backend: the input view must address every row");
    }
    Runtime& rt = Runtime::of(devices_.devices[*choice_.device].id);
    const std::scoped_lock lock(rt.mutex());
    rt.begin_run();
    OpOutput output;
    try {
      output = dispatch(rt, op, input, params, variant);
    } catch (...) {
      (void)clFinish(rt.queue());  // let queued work end before its buffers are released
      throw;
    }
    rt.end_run(times);
    return output;
  }

 private:
  static OpOutput dispatch(Runtime& rt, Op op, const ConstImageView& input, const OpParams& params,
                           const std::string& variant) {
    switch (op) {
      case Op::gray:
      case Op::gaussian:
      case Op::sobel:
      case Op::sharpen:
      case Op::pool:
        return opencl::run_filter_op(rt, op, input, params, variant);
      case Op::histogram:
      case Op::equalize:
      case Op::otsu:
      case Op::segment:
        return opencl::run_histogram_op(rt, op, input, params, variant);
      case Op::erode:
      case Op::dilate:
      case Op::open:
      case Op::close:
        return opencl::run_morphology_op(rt, op, input, params, variant);
    }
    throw std::logic_error("opencl backend: unknown op");
  }

  opencl::DeviceRequest request_;
  opencl::DeviceList devices_;
  opencl::DeviceChoice choice_;
};

}  // namespace

std::unique_ptr<Backend> make_opencl_backend(const BackendOptions& options) {
  return std::make_unique<OpenClBackend>(options);
}

}  // namespace parfilter
