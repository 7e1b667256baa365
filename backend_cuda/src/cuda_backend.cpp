// The CUDA backend: device selection, transfers from and to page-locked memory (inputs the
// pipeline decoded into the backend's pinned pool go up directly and their buffers take the
// results; pageable ones go both ways through the driver's staging), stage timing with events,
// and a batch that overlaps one image's upload with the previous images' kernels and downloads
// (one stream and workspace per image in flight).
#include <algorithm>
#include <cctype>
#include <cstdint>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda_devices.hpp"
#include "cuda_op.hpp"
#include "cuda_util.hpp"
#include "deep_device.hpp"
#include "device_memory.hpp"
#include "host_while_starting.hpp"
#include "parfilter/backend.hpp"
#include "parfilter/backends/cuda.hpp"
#include "parfilter/error.hpp"
#include "parfilter/in_flight_ring.hpp"
#include "pinned_pool.hpp"
#include "transfers.hpp"

namespace parfilter {
namespace {

using cuda::DeviceImage;
using cuda::DeviceList;
using cuda::DeviceResult;
using cuda::Workspace;

using WorkspacePool = LeasePool<Workspace>;

constexpr std::size_t kBatchSlots = 3;  ///< images in flight: upload, kernels, download
/// Freed pinned image buffers kept for reuse: a batch's window of images, with room to spare.
constexpr std::size_t kCachedPinnedBytes = std::size_t{2} << 30;

/// Opens a gate when the commands behind it are queued, or when queuing them failed.
class GateOpener {
 public:
  explicit GateOpener(cuda::StreamGate& gate) : gate_(gate) {}
  GateOpener(const GateOpener&) = delete;
  GateOpener& operator=(const GateOpener&) = delete;
  ~GateOpener() { gate_.open(); }

 private:
  cuda::StreamGate& gate_;
};

/// An image's upload, kernels and download enqueued on one workspace, not yet waited for.
struct Pending {
  DeviceResult result;
  bool downloading = false;
  bool download_in_finish = false;  ///< into pageable memory: finish() runs it
  Image output;                     ///< the result's buffer
  Image input;                      ///< a batch's input, kept while its upload may still read it
};

class CudaBackend final : public Backend {
 public:
  explicit CudaBackend(const BackendOptions& options) : options_(options) {
    const std::string platform = cuda::lowercase(options.platform);
    if (!platform.empty() && platform != "0" && platform != "cuda") {
      throw UsageError("--platform '" + options.platform +
                       "': the CUDA backend has one platform (0, cuda)");
    }
  }

  [[nodiscard]] std::string_view name() const override { return "cuda"; }
  [[nodiscard]] std::vector<std::string> variants(Op op) const override {
    return cuda::cuda_op(op).variants();
  }

  [[nodiscard]] Availability availability() const override {
    const DeviceList& list = devices();
    if (!list.devices.empty()) return {};
    return {false, "no CUDA device" + (list.error.empty() ? "" : " (" + list.error + ")")};
  }

  /// The driver's start (cuInit, about 0.4 s on an H200 host) and the context's (0.15 s)
  /// overlap the command line's reading of its inputs; a batch that may run on the host begins
  /// it where it pays (run_on_host_while_starting).
  bool start_in_background(StartWhen when) override {
    if (when == StartWhen::now || must_wait_for_device()) start_.begin();
    return true;
  }

  [[nodiscard]] std::string describe_devices() const override {
    const DeviceList& list = devices();
    if (list.devices.empty()) return availability().reason + "\n";
    const int chosen = select_device(list);
    std::string text;
    for (std::size_t i = 0; i < list.devices.size(); ++i) {
      text += (static_cast<int>(i) == chosen ? "* " : "  ") + std::to_string(i) + ": " +
              cuda::describe(list.devices[i]) + "\n";
    }
    return text;
  }

  OpOutput run(Op op, const ConstImageView& input, const OpParams& params,
               StageTimes* times) override {
    return run_chain(OpChain{{op, params}}, input, times);
  }

  /// The whole chain on the device: one upload, every step's kernels, one download.
  OpOutput run_chain(const OpChain& chain, const ConstImageView& input,
                     StageTimes* times) override {
    const OpChain resolved = resolve(chain);
    const WorkspacePool::Lease ws = lease_workspace();
    Pending pending = start(*ws, resolved, input);
    return finish(*ws, pending, times);
  }

  [[nodiscard]] bool runs_16_bit() const override { return true; }
  OpOutput run_chain_16(const OpChain& chain, const Image& input, StageTimes* times) override {
    const OpChain resolved = resolve(chain);
    CUDA_CHECK(cudaSetDevice(device_));
    return cuda::run_chain_16(*lease_workspace(), resolved, input, pinned_results_, times);
  }

  [[nodiscard]] bool runs_device_images() const override { return true; }
  DeviceOutput run_chain_on_device(const OpChain& chain, const DeviceImageRef& input,
                                   std::uintptr_t stream) override {
    const OpChain resolved = resolve(chain);
    if (input.device != device_) {
      throw UsageError("an array on CUDA device " + std::to_string(input.device) +
                       ", the backend on device " + std::to_string(device_) +
                       " (choose it with device=)");
    }
    return cuda::run_on_device_memory(*lease_workspace(), resolved, input,
                                      reinterpret_cast<cudaStream_t>(stream));
  }

  [[nodiscard]] bool computes_on_host() const override { return false; }
  [[nodiscard]] bool takes_device() const override { return true; }
  [[nodiscard]] int device_count() const override {
    return static_cast<int>(devices().devices.size());
  }
  [[nodiscard]] std::size_t batch_depth() const override { return kBatchSlots; }
  /// What is allocated before the device is ready is plain memory, moved through the
  /// driver's staging (start()).
  [[nodiscard]] std::shared_ptr<SampleAllocator> host_allocator() override { return pinned_; }

  CudaBackend(const CudaBackend&) = delete;
  CudaBackend& operator=(const CudaBackend&) = delete;
  ~CudaBackend() override = default;

  [[nodiscard]] bool start_still_running() const override { return start_.still_running(); }

  void run_batch(const OpChain& chain, const BatchCallbacks& callbacks) override {
    const OpChain resolved = resolve_chain(*this, chain);
    // The window's decodes start first and overlap the device's start, and the images decoded
    // meanwhile run on the host's cores where the caller lends them; a missing device then ends
    // the batch before it takes another input.
    if (callbacks.start_loads) callbacks.start_loads();
    if (!must_wait_for_device() && run_on_host_while_starting(resolved, callbacks, start_)) {
      return;
    }
    use_device();
    InFlight ring{*this, resolved, {}};
    for (std::size_t s = 0; s < kBatchSlots; ++s) ring.workspaces.push_back(lease_workspace());
    run_in_flight(ring, kBatchSlots, callbacks);
  }

 private:
  /// The in-flight ring's device half (in_flight_ring.hpp): slot s is workspace s.
  struct InFlight {
    using Pending = parfilter::Pending;
    CudaBackend& backend;
    const OpChain& chain;
    std::vector<WorkspacePool::Lease> workspaces;

    Pending start(std::size_t slot, BatchInput& input) {
      const ConstImageView view = input.image.view();
      Pending pending = backend.start(*workspaces[slot], chain, view, &input.image);
      // The upload may still read the input (unless it became the result's buffer): it lives
      // until the slot retires.
      pending.input = std::move(input.image);
      return pending;
    }
    OpOutput finish(std::size_t slot, Pending& pending, StageTimes* times) {
      return backend.finish(*workspaces[slot], pending, times);
    }
    static bool overlaps(const BatchInput& input) { return input.image.depth() == Depth::u8; }
    OpOutput run_alone(std::size_t slot, BatchInput& input, StageTimes* times) {
      CUDA_CHECK(cudaSetDevice(backend.device_));
      return cuda::run_chain_16(*workspaces[slot], chain, input.image, backend.pinned_results_,
                                times);
    }
    void abandon(std::size_t slot) noexcept { workspaces[slot]->drain(); }
  };

  OpChain resolve(const OpChain& chain) {
    OpChain resolved = resolve_chain(*this, chain);
    use_device();
    return resolved;
  }

  void use_device() {
    start_.mark_used();
    start_.wait();          // the start's own thread makes the context
    ensure_device();        // its failure, met again here; the current device is per thread
    pinned_->mark_ready();  // the device is in use from here: pinning delays nothing
  }

  /// The device options_.device names: an index, or the first whose name contains it.
  [[nodiscard]] int select_device(const DeviceList& list) const {
    if (options_.device.empty()) return 0;
    const bool numeric = std::all_of(options_.device.begin(), options_.device.end(),
                                     [](unsigned char c) { return std::isdigit(c) != 0; });
    if (numeric) {
      const std::size_t index = std::stoul(options_.device);
      if (index < list.devices.size()) return static_cast<int>(index);
    } else {
      for (std::size_t i = 0; i < list.devices.size(); ++i) {
        if (cuda::lowercase(list.devices[i].name).find(cuda::lowercase(options_.device)) !=
            std::string::npos) {
          return static_cast<int>(i);
        }
      }
    }
    std::string names;
    for (std::size_t i = 0; i < list.devices.size(); ++i) {
      names += (names.empty() ? "" : ", ") + std::to_string(i) + ": " + list.devices[i].name;
    }
    throw UsageError("--device '" + options_.device + "': no such CUDA device (" + names + ")");
  }

  /// This machine's devices, probed once (the first CUDA call: the driver's start).
  [[nodiscard]] const DeviceList& devices() const {
    std::call_once(probed_, [this] { devices_ = cuda::probe_devices(); });
    return devices_;
  }

  /// Whether a batch must wait for the device rather than run inputs on the host: the caller
  /// wants the device only or names one (a batch the host finished alone would never check
  /// that it exists), or no device looks visible (no driver, CUDA_VISIBLE_DEVICES= ...: the
  /// batch then ends with the device's one line, never with outputs the host made while a
  /// missing device was still being found).
  [[nodiscard]] bool must_wait_for_device() const {
    return options_.device_only || !options_.device.empty() || !cuda::device_looks_visible();
  }

  /// Selects the device once; any thread may ask (the context's creation runs on its own).
  void ensure_device() {
    const std::scoped_lock lock(device_mutex_);
    if (device_ >= 0) {
      CUDA_CHECK(cudaSetDevice(device_));  // the runtime's current device is per thread
      return;
    }
    const DeviceList& list = devices();
    if (list.devices.empty()) throw RuntimeError(availability().reason);
    const int device = select_device(list);
    CUDA_CHECK(cudaSetDevice(device));
    device_ = device;
  }

  [[nodiscard]] WorkspacePool::Lease lease_workspace() {
    return workspaces_.lease([] { return std::make_unique<Workspace>(); });
  }

  /// Enqueues the input's upload, every step of the chain and the download.
  /// `owned`: the input's image when the batch owns it; it becomes the result's buffer (the
  /// download follows the upload in the stream), so a batch allocates nothing for its results.
  /// A pageable input (decoded before the device was ready, or while the pool was pinning
  /// another buffer) goes up, and its result comes down, through the driver's own staging:
  /// about as fast as a copy through buffers of ours, and with no 15 ms pinning per buffer.
  Pending start(Workspace& ws, const OpChain& chain, const ConstImageView& input,
                Image* owned = nullptr) {
    if (input.rows() != RowRange{0, input.height()}) {
      throw std::invalid_argument("the CUDA backend needs a view of every row of the image");
    }
    CUDA_CHECK(cudaSetDevice(device_));
    const cudaStream_t stream = ws.stream.get();
    const auto row_bytes = static_cast<std::size_t>(input.row_samples());
    const auto height = static_cast<std::size_t>(input.height());
    const auto host_pitch = static_cast<std::size_t>(input.stride());
    const bool input_pinned = cuda::is_pinned(input.first_row());
    Pending pending;
    const DeviceImage in =
        cuda::device_image(ws.input, input.width(), input.height(), input.channels());
    const auto upload = [&] {
      ws.upload_start.record(stream);
      cuda::copy_rows(in.data, in.pitch, input.first_row(), host_pitch, row_bytes, height,
                      cudaMemcpyHostToDevice, stream);
      ws.upload_stop.record(stream);
    };
    // A pageable upload returns once the driver has staged it, which needs the stream running:
    // it goes before the gate.
    if (!input_pinned) upload();
    // The GPU starts on this image once all of it is queued (cuda::StreamGate), so the events
    // time the upload, the kernels and the download, not the host's launch gaps between them.
    ws.gate.close(stream);
    const GateOpener opener{ws.gate};
    if (input_pinned) upload();
    ws.kernel_start.record(stream);
    pending.result = cuda::run_chain_steps(ws, chain, in);
    ws.kernel_stop.record(stream);
    const DeviceImage& out = pending.result.image;
    if (out.data == nullptr) return pending;
    if (owned != nullptr) {
      pending.output = std::move(*owned).reuse_as(out.width, out.height, out.channels);
    }
    if (pending.output.empty()) {
      pending.output = Image::uninitialized(out.width, out.height, out.channels, pinned_results_);
    } else if (!input_pinned) {
      // A download into pageable memory returns only once it is done: finish() runs it.
      pending.download_in_finish = true;
      return pending;
    }
    download(ws, pending);
    return pending;
  }

  /// Enqueues the result's download into pending.output.
  static void download(Workspace& ws, Pending& pending) {
    const DeviceImage& out = pending.result.image;
    const auto out_row =
        static_cast<std::size_t>(out.width) * static_cast<std::size_t>(out.channels);
    ws.download_start.record(ws.stream.get());
    cuda::copy_rows(pending.output.data(), out_row, out.data, out.pitch, out_row,
                    static_cast<std::size_t>(out.height), cudaMemcpyDeviceToHost, ws.stream.get());
    ws.download_stop.record(ws.stream.get());
    pending.downloading = true;
  }

  /// Waits for the workspace's stream (and runs a pageable download) and hands the result over.
  OpOutput finish(Workspace& ws, Pending& pending, StageTimes* times) {
    ws.synchronize();
    if (pending.download_in_finish) {
      download(ws, pending);
      ws.stream.synchronize();
    }
    OpOutput output;
    output.histogram = std::move(pending.result.histogram);
    output.threshold = pending.result.threshold;
    if (pending.downloading) output.image = std::move(pending.output);
    if (times != nullptr) {
      times->upload_ms = ws.upload_stop.ms_since(ws.upload_start);
      times->compute_ms = ws.kernel_stop.ms_since(ws.kernel_start);
      if (pending.downloading) {
        times->download_ms = ws.download_stop.ms_since(ws.download_start);
      }
    }
    return output;
  }

  BackendOptions options_;
  std::shared_ptr<cuda::PinnedPool> pinned_ =
      std::make_shared<cuda::PinnedPool>(kCachedPinnedBytes);
  std::shared_ptr<SampleAllocator> pinned_results_ = cuda::PinnedPool::results_of(pinned_);
  mutable std::once_flag probed_;
  mutable DeviceList devices_;
  std::mutex device_mutex_;
  int device_ = -1;
  /// Each caller's own streams and buffers: a run leases one, a batch kBatchSlots.
  WorkspacePool workspaces_;
  /// The driver's and the context's start, on another thread (last: it uses the members above).
  BackgroundStart start_{[this] {
    ensure_device();
    CUDA_CHECK(cudaFree(nullptr));  // creates the context
    pinned_->mark_ready();
  }};
};

}  // namespace

std::unique_ptr<Backend> make_cuda_backend(const BackendOptions& options) {
  return std::make_unique<CudaBackend>(options);
}

}  // namespace parfilter
