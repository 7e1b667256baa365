// The OpenCL backend: device choice at creation, the device's shared runtime on first run,
// chains on the device (cl_chain.cpp) on lanes of its own, and batches that keep several
// images in flight on several lanes, so that one image's upload, kernels and download overlap
// the others'.
#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "cl_chain.hpp"
#include "cl_device.hpp"
#include "cl_lane.hpp"
#include "cl_op.hpp"
#include "parfilter/backends/opencl.hpp"
#include "parfilter/error.hpp"

namespace parfilter {
namespace {

using opencl::Lane;
using opencl::PendingImage;
using opencl::Runtime;

/// Images a batch keeps in flight, one lane (queue) each: one uploading, one in its kernels,
/// one downloading.
constexpr std::size_t kBatchLanes = 3;

/// The lanes of one backend instance, each lent to one caller at a time: a run takes one, a
/// batch kBatchLanes; concurrent callers get lanes of their own. Lanes keep their buffers, so
/// repeated runs (--repeat, the images of a batch) allocate nothing.
class LanePool {
 public:
  /// A lane on loan; it goes back idle (its queue drained) when the loan ends.
  class Lease {
   public:
    Lease(LanePool& pool, std::unique_ptr<Lane> lane) : pool_(&pool), lane_(std::move(lane)) {}
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    Lease(Lease&& other) noexcept = default;
    Lease& operator=(Lease&& other) noexcept = delete;
    ~Lease() {
      if (!lane_) return;
      lane_->drain();
      const std::scoped_lock lock(pool_->mutex_);
      pool_->idle_.push_back(std::move(lane_));
    }
    [[nodiscard]] Lane& operator*() const { return *lane_; }

   private:
    LanePool* pool_;
    std::unique_ptr<Lane> lane_;
  };

  [[nodiscard]] Lease lease(Runtime& runtime) {
    {
      const std::scoped_lock lock(mutex_);
      if (!idle_.empty()) {
        std::unique_ptr<Lane> lane = std::move(idle_.back());
        idle_.pop_back();
        return {*this, std::move(lane)};
      }
    }
    return {*this, std::make_unique<Lane>(runtime)};
  }

 private:
  std::mutex mutex_;
  std::vector<std::unique_ptr<Lane>> idle_;
};

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
    return opencl::cl_op(op).variants(cpu);
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
  [[nodiscard]] std::size_t batch_depth() const override { return kBatchLanes; }
  [[nodiscard]] std::shared_ptr<SampleAllocator> host_allocator() override {
    if (!choice_.device) return nullptr;
    return Runtime::of(devices_.devices[*choice_.device].id).host_pool();
  }

  OpOutput run(Op op, const ConstImageView& input, const OpParams& params,
               StageTimes* times) override {
    return run_chain(OpChain{{op, params}}, input, times);
  }

  /// The whole chain on the device: one upload, every step's kernels, one download.
  OpOutput run_chain(const OpChain& chain, const ConstImageView& input,
                     StageTimes* times) override {
    const OpChain resolved = resolve(chain);
    const LanePool::Lease lane = lanes_.lease(runtime());
    PendingImage pending = opencl::start_chain(*lane, resolved, input);
    return opencl::finish_chain(*lane, pending, times);
  }

  /// Image i is enqueued on lane i mod kBatchLanes once that lane's previous image (i -
  /// kBatchLanes) is retired, so the device uploads one image while it computes and downloads the
  /// ones before.
  void run_batch(const OpChain& chain, const BatchCallbacks& callbacks) override {
    const OpChain resolved = resolve(chain);
    struct Slot {
      std::size_t index = 0;
      std::optional<PendingImage> pending;
      LanePool::Lease lane;  // declared last: its queue drains before `pending` is released
    };
    std::vector<Slot> slots;
    for (std::size_t s = 0; s < kBatchLanes; ++s) {
      slots.push_back({0, std::nullopt, lanes_.lease(runtime())});
    }
    const auto retire = [&](Slot& slot) {
      if (!slot.pending) return;
      PendingImage pending = std::move(*slot.pending);
      slot.pending.reset();
      StageTimes times;
      OpOutput output;
      try {
        output = opencl::finish_chain(*slot.lane, pending, &times);
      } catch (...) {
        callbacks.failed(slot.index, std::current_exception());
        return;
      }
      callbacks.done(slot.index, std::move(output), times);
    };
    std::size_t started = 0;
    for (std::optional<BatchInput> input = callbacks.next(); input; input = callbacks.next()) {
      Slot& slot = slots[started++ % kBatchLanes];
      retire(slot);  // the oldest image in flight, so results arrive in input order
      try {
        slot.index = input->index;
        const ConstImageView view = input->image.view();
        slot.pending = opencl::start_chain(*slot.lane, resolved, view, &input->image);
      } catch (...) {
        callbacks.failed(input->index, std::current_exception());
      }
    }
    for (std::size_t k = 0; k < kBatchLanes; ++k) retire(slots[(started + k) % kBatchLanes]);
  }

 private:
  OpChain resolve(const OpChain& chain) const {
    OpChain resolved = resolve_chain(*this, chain);
    if (!choice_.device) throw RuntimeError(choice_.reason);
    return resolved;
  }
  [[nodiscard]] Runtime& runtime() const {
    return Runtime::of(devices_.devices[*choice_.device].id);
  }

  opencl::DeviceRequest request_;
  opencl::DeviceList devices_;
  opencl::DeviceChoice choice_;
  LanePool lanes_;
};

}  // namespace

std::unique_ptr<Backend> make_opencl_backend(const BackendOptions& options) {
  return std::make_unique<OpenClBackend>(options);
}

}  // namespace parfilter
