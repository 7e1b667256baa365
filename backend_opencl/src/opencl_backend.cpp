// The OpenCL backend: the device found and its runtime made on another thread while the inputs
// are read, chains on the device (cl_chain.cpp) on lanes of its own, and batches that run their
// first images on the host's cores while the device starts, then keep several images in flight
// on several lanes, so that one image's upload, kernels and download overlap the others'.
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
#include "deep_device.hpp"
#include "host_pool.hpp"
#include "host_while_starting.hpp"
#include "parfilter/backends/opencl.hpp"
#include "parfilter/error.hpp"
#include "parfilter/in_flight_ring.hpp"

namespace parfilter {
namespace {

using opencl::Lane;
using opencl::PendingImage;
using opencl::Runtime;

/// Images a batch keeps in flight, one lane (queue) each: one uploading, one in its kernels,
/// one downloading.
constexpr std::size_t kBatchLanes = 3;

/// The lanes of one backend instance: a run takes one, a batch kBatchLanes; lanes keep their
/// buffers, so repeated runs (--repeat, the images of a batch) allocate nothing.
using LanePool = LeasePool<Lane>;

class OpenClBackend final : public Backend {
 public:
  explicit OpenClBackend(const BackendOptions& options)
      : device_only_(options.device_only),
        request_(opencl::device_request(options,
                                        std::getenv(std::string(opencl::kDeviceEnvVar).c_str()))) {}

  [[nodiscard]] std::string_view name() const override { return "opencl"; }
  [[nodiscard]] std::vector<std::string> variants(Op op) const override {
    return opencl::cl_op(op).variants();
  }
  [[nodiscard]] Availability availability() const override {
    const Probe& found = probe();
    return {found.choice.device.has_value(), found.choice.reason};
  }
  [[nodiscard]] std::string describe_devices() const override {
    const Probe& found = probe();
    return opencl::describe(found.devices, request_, found.choice);
  }
  [[nodiscard]] bool computes_on_host() const override { return false; }
  [[nodiscard]] bool takes_device() const override { return true; }
  [[nodiscard]] int device_count() const override {
    return static_cast<int>(opencl::candidate_count(probe().devices, request_.platform));
  }
  [[nodiscard]] std::size_t batch_depth() const override { return kBatchLanes; }

  /// The drivers' start (the loader's first call, about 0.3 s with a GPU's driver) and the
  /// context's overlap the command line's reading of its inputs; a batch that may run on the
  /// host begins it where it pays (run_on_host_while_starting).
  bool start_in_background(StartWhen when) override {
    if (when == StartWhen::now || must_wait_for_device()) start_.begin();
    return true;
  }
  [[nodiscard]] bool start_still_running() const override { return start_.still_running(); }
  /// Inputs allocated before the device is ready are ordinary memory, which the driver stages.
  [[nodiscard]] std::shared_ptr<SampleAllocator> host_allocator() override { return inputs_; }

  OpenClBackend(const OpenClBackend&) = delete;
  OpenClBackend& operator=(const OpenClBackend&) = delete;
  ~OpenClBackend() override = default;

  OpOutput run(Op op, const ConstImageView& input, const OpParams& params,
               StageTimes* times) override {
    return run_chain(OpChain{{op, params}}, input, times);
  }

  /// The whole chain on the device: one upload, every step's kernels, one download.
  OpOutput run_chain(const OpChain& chain, const ConstImageView& input,
                     StageTimes* times) override {
    const OpChain resolved = resolve_chain(*this, chain);
    Runtime& rt = use_device();
    const LanePool::Lease lane = lease_lane(rt);
    PendingImage pending = opencl::start_chain(*lane, resolved, input);
    return opencl::finish_chain(*lane, pending, times);
  }

  [[nodiscard]] bool runs_16_bit() const override { return true; }
  OpOutput run_chain_16(const OpChain& chain, const Image& input, StageTimes* times) override {
    const OpChain resolved = resolve_chain(*this, chain);
    Runtime& rt = use_device();
    const LanePool::Lease lane = lease_lane(rt);
    return opencl::run_chain_16(*lane, resolved, input, times);
  }

  /// While the device starts, the inputs decoded meanwhile run on the host's cores where the
  /// caller lends them. Then image i is enqueued on lane i mod kBatchLanes once that lane's
  /// previous image (i - kBatchLanes) is retired, so the device uploads one image while it
  /// computes and downloads the ones before.
  void run_batch(const OpChain& chain, const BatchCallbacks& callbacks) override {
    const OpChain resolved = resolve_chain(*this, chain);
    if (callbacks.start_loads) callbacks.start_loads();
    if (!must_wait_for_device() && run_on_host_while_starting(resolved, callbacks, start_)) {
      return;
    }
    Runtime& rt = use_device();
    InFlight ring{resolved, {}};
    for (std::size_t s = 0; s < kBatchLanes; ++s) ring.lanes.push_back(lease_lane(rt));
    run_in_flight(ring, kBatchLanes, callbacks);
  }

 private:
  /// The in-flight ring's device half (in_flight_ring.hpp): slot s is lane s.
  struct InFlight {
    using Pending = PendingImage;
    const OpChain& chain;
    std::vector<LanePool::Lease> lanes;

    Pending start(std::size_t slot, BatchInput& input) {
      const ConstImageView view = input.image.view();
      return opencl::start_chain(*lanes[slot], chain, view, &input.image);
    }
    OpOutput finish(std::size_t slot, Pending& pending, StageTimes* times) {
      return opencl::finish_chain(*lanes[slot], pending, times);
    }
    static bool overlaps(const BatchInput& input) { return input.image.depth() == Depth::u8; }
    OpOutput run_alone(std::size_t slot, BatchInput& input, StageTimes* times) {
      return opencl::run_chain_16(*lanes[slot], chain, input.image, times);
    }
    void abandon(std::size_t slot) noexcept { (*lanes[slot]).drain(); }
  };

  /// This machine's platforms and devices, and the one chosen.
  struct Probe {
    opencl::DeviceList devices;
    opencl::DeviceChoice choice;
  };

  /// Enumerates once (the loader's first call starts every registered driver); any thread may
  /// ask, and waits for a probe in progress.
  [[nodiscard]] const Probe& probe() const {
    std::call_once(probed_, [this] {
      try {
        probe_.devices = opencl::enumerate_devices();
        probe_.choice = opencl::choose_device(probe_.devices, request_);
      } catch (const std::exception& e) {
        probe_.choice = {std::nullopt,
                         e.what()};  // a broken driver: say so where a device would be
      }
    });
    return probe_;
  }

  /// The chosen device's runtime (its context, queues and programs), made once.
  [[nodiscard]] Runtime& runtime() const {
    const Probe& found = probe();
    if (!found.choice.device) throw RuntimeError(found.choice.reason);
    Runtime& rt = Runtime::of(found.devices.devices[*found.choice.device].id);
    inputs_->attach(rt.host_pool());
    return rt;
  }

  [[nodiscard]] LanePool::Lease lease_lane(Runtime& rt) {
    return lanes_.lease([&rt] { return std::make_unique<Lane>(rt); });
  }

  Runtime& use_device() {
    start_.mark_used();
    start_.wait();     // the start's own thread makes the runtime
    return runtime();  // or meets its failure again here
  }

  /// Whether a batch must wait for the device rather than run inputs on the host: the caller
  /// wants the device only or names one (a batch the host finished alone would never check
  /// that it exists), or no driver looks registered (the batch then ends with the one line,
  /// never with outputs the host made meanwhile).
  [[nodiscard]] bool must_wait_for_device() const {
    return device_only_ || !request_.platform.empty() || !request_.device.empty() ||
           !opencl::drivers_look_registered();
  }

  bool device_only_;
  opencl::DeviceRequest request_;
  mutable std::once_flag probed_;
  mutable Probe probe_;
  std::shared_ptr<opencl::PoolOnceAttached> inputs_ = std::make_shared<opencl::PoolOnceAttached>();
  LanePool lanes_;
  /// Probes and makes the runtime on another thread (last: it uses the members above). A
  /// failure there is left for runtime() to meet again and report, on the thread that needs
  /// the device.
  BackgroundStart start_{[this] {
    try {
      (void)runtime();
    } catch (const std::exception&) {  // NOLINT(bugprone-empty-catch): reported by runtime()
    }
  }};
};

}  // namespace

std::unique_ptr<Backend> make_opencl_backend(const BackendOptions& options) {
  return std::make_unique<OpenClBackend>(options);
}

}  // namespace parfilter
