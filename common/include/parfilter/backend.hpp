// The backend interface and the registry of built backends.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "parfilter/image.hpp"
#include "parfilter/image_io.hpp"
#include "parfilter/op_set.hpp"

namespace parfilter {

/// Whether a backend can run here. CPU backends are always present; GPU backends say why not
/// ("no CUDA device").
struct Availability {
  bool present = true;
  std::string reason;  ///< why not, when !present
};

/// Milliseconds spent in each stage of one run. Device backends fill upload and download.
struct StageTimes {
  double compute_ms = 0.0;
  std::optional<double> upload_ms;
  std::optional<double> download_ms;
  /// Device backends that compile kernels: time spent building or loading programs in this
  /// run (0 when every program was already built in this process).
  std::optional<double> build_ms;
  /// Device backends: the run went to the host's cores, as its device was still starting
  /// (BatchCallbacks::host_parallel_for).
  bool on_host = false;
};

/// The clock stage times are read from.
using StageClock = std::chrono::steady_clock;

/// Milliseconds from `start` to `stop` (now, when left out), as StageTimes holds them.
[[nodiscard]] inline double elapsed_ms(StageClock::time_point start,
                                       StageClock::time_point stop = StageClock::now()) {
  return std::chrono::duration<double, std::milli>(stop - start).count();
}

/// Adds `step`'s stage times to `total` (a chain's steps, a batch's images).
void add_stage_times(StageTimes& total, const StageTimes& step);

/// Options a backend takes when it is created.
struct BackendOptions {
  int threads = 0;       ///< CPU worker threads; 0 = every hardware thread
  std::string platform;  ///< device backends: platform index or name substring; empty = default
  std::string device;    ///< device backends: device index or name substring; empty = default
  /// Distributing backends (mpi): the registered backend each process computes with; empty =
  /// the distributing backend's own default. (This and files_on are initialized with {}, so
  /// that the brace-initializations written before them stay free of
  /// -Wmissing-field-initializers.)
  std::string node_backend{};
  /// Distributing backends (mpi): who opens a batch's files, "root", "every-rank" or "auto";
  /// empty = auto.
  std::string files_on{};
  /// Device backends: run every image of a batch on the device, none on the host's cores while
  /// the device starts (BatchCallbacks::host_parallel_for), as a study of the device wants.
  bool device_only{};
};

/// One input of a batch, with its index in the batch.
struct BatchInput {
  std::size_t index = 0;
  Image image;
};

/// How Backend::run_batch gets a batch's inputs and hands back its results.
struct BatchCallbacks {
  /// The next input, or nullopt at the end of the batch. An input that could not be loaded
  /// is reported by the caller and never handed over.
  std::function<std::optional<BatchInput>()> next;
  /// The result of input `index`, with the stage times of its run. Each input is reported
  /// once, by done or failed, in any order; the callbacks are called one at a time.
  std::function<void(std::size_t index, OpOutput&& output, const StageTimes& times)> done;
  /// A failure while running input `index`.
  std::function<void(std::size_t index, std::exception_ptr failure)> failed;
  /// How many inputs the batch holds, where known (0: unknown). A threaded CPU backend runs
  /// a batch of at least as many images as it has threads one image per thread.
  std::size_t size_hint = 0;
  /// Starts loading the first inputs without taking one, where the caller can (may be empty):
  /// a backend that must wait for its device first calls it before it waits. If the backend
  /// then throws, the inputs it never took end unreported and the batch ends with that one
  /// error.
  std::function<void()> start_loads;
  /// The caller's threads, lent to a device backend whose device is still starting: it may run
  /// the inputs that are ready on the host's cores meanwhile, spread by this over `host_threads`
  /// threads, holding up to host_threads inputs at once (may be empty: it then waits for its
  /// device). The pipeline lends its codec workers, and its window has room for that many.
  ParallelFor host_parallel_for;
  int host_threads = 0;
  /// Queues a task on those same threads, ahead of the caller's own work (may be empty): a
  /// device backend while its device starts, and a threaded CPU backend's batch of images side
  /// by side, run one image per task, so that the threads decode and encode between images and
  /// the computes hold no threads of their own. Called from the batch's thread, as the other
  /// callbacks; the task must not call them. The backend waits for its tasks before run_batch
  /// returns.
  std::function<void(std::function<void()>)> host_submit;
};

/// A BatchCallbacks::next over inputs 0 .. count - 1 from `load`, skipping those it gives no
/// image for (a failed load its caller reported).
[[nodiscard]] std::function<std::optional<BatchInput>()> indexed_inputs(
    std::size_t count, std::function<std::optional<Image>(std::size_t index)> load);

/// An 8- or 16-bit image in a GPU's memory, as an array library holds it (a CuPy or PyTorch
/// array, through DLPack): packed pixels, rows `pitch` bytes apart, on device `device`.
struct DeviceImageRef {
  std::uint8_t* data = nullptr;
  int width = 0;
  int height = 0;
  int channels = 0;
  std::size_t pitch = 0;
  int device = 0;
  Depth depth = Depth::u8;
};

/// A chain's result left in the GPU's memory: the image in memory the backend allocated,
/// freed when the last copy of `owner` goes (empty for histogram); the histogram and the
/// threshold as OpOutput has them.
struct DeviceOutput {
  DeviceImageRef image;
  std::shared_ptr<void> owner;
  std::vector<HistogramBins> histogram;
  std::vector<std::vector<std::uint64_t>> wide_histogram;  ///< a 16-bit image's, as OpOutput's
  std::optional<int> threshold;
};

/// When a device backend's start begins (Backend::start_in_background).
enum class StartWhen { now, as_the_batch_needs };

/// One framework's implementation of the whole op set.
class Backend {
 public:
  Backend() = default;
  Backend(const Backend&) = delete;
  Backend& operator=(const Backend&) = delete;
  virtual ~Backend() = default;

  [[nodiscard]] virtual std::string_view name() const = 0;
  /// The variants this backend offers for `op`, the default first. Never empty.
  [[nodiscard]] virtual std::vector<std::string> variants(Op op) const = 0;
  /// Whether the backend's device exists on this machine.
  [[nodiscard]] virtual Availability availability() const = 0;
  /// Lets the backend's own start-up (a GPU driver's and context's) run on another thread, so
  /// that it overlaps the caller's reading of inputs: at once (StartWhen::now, for a single
  /// run), or where a batch finds the device worth it (StartWhen::as_the_batch_needs: run_batch
  /// runs a short light batch on the host's cores, if lent, and never starts the device).
  /// Returns true when run, run_chain and run_batch then report a missing device themselves, by
  /// throwing availability()'s reason before they take an input, so the caller need not wait
  /// for availability() first. The default starts nothing and returns false.
  virtual bool start_in_background(StartWhen /*when*/) { return false; }
  /// Whether the start begun in the background is still running, no run having needed the
  /// device: a process whose work is done may then end without waiting for it (the executables
  /// do, rather than wait for a GPU driver's start only to tear it down).
  [[nodiscard]] virtual bool start_still_running() const { return false; }
  /// Worker threads the backend runs with (1 for serial and device backends).
  [[nodiscard]] virtual int threads() const { return 1; }
  /// The devices this backend can use, one per line, marking the one it would use
  /// (--list-devices). CPU backends describe the CPU.
  [[nodiscard]] virtual std::string describe_devices() const;

  /// Runs `op` on `input` (a full-height view). Throws UsageError for an unknown variant
  /// or bad parameters, RuntimeError for a device failure. Fills `times` when given.
  virtual OpOutput run(Op op, const ConstImageView& input, const OpParams& params,
                       StageTimes* times = nullptr) = 0;

  /// Whether BackendOptions::threads means something to this backend (its compute threads,
  /// or its batches' codec threads); parfilter-serial runs on one thread.
  [[nodiscard]] virtual bool takes_threads() const { return true; }
  /// Whether it chooses among devices (BackendOptions::platform and device).
  [[nodiscard]] virtual bool takes_device() const { return false; }
  /// How many devices BackendOptions::device can pick by index (0 for a backend without
  /// devices): a process that shares a machine with others picks one by its local rank.
  [[nodiscard]] virtual int device_count() const { return 0; }
  /// Whether it spreads the work over processes that each run another backend (mpi): it takes
  /// BackendOptions::node_backend and files_on.
  [[nodiscard]] virtual bool takes_distribution_options() const { return false; }
  /// Whether run() computes on the host's cores (CPU backends), not on a device.
  [[nodiscard]] virtual bool computes_on_host() const { return true; }
  /// Where inputs and outputs should live for the fastest transfers (a device backend's pool
  /// of page-locked buffers), or null for ordinary heap memory.
  [[nodiscard]] virtual std::shared_ptr<SampleAllocator> host_allocator() { return nullptr; }
  /// The most inputs run_batch holds, without a result handed back, when it asks callbacks.next
  /// for another (a batch pipeline sizes its window by it: a smaller window would wait for an
  /// input that waits for a result).
  [[nodiscard]] virtual std::size_t batch_depth() const { return 1; }

  /// Runs the chain's ops in order on `input`, each on the previous one's result, and returns
  /// the last one's output; `times` sums the steps' stages. The default calls run() per step;
  /// a device backend keeps the intermediate images on the device (one upload, one download).
  virtual OpOutput run_chain(const OpChain& chain, const ConstImageView& input,
                             StageTimes* times = nullptr);

  /// Whether run_chain_16 runs the 16-bit spec of docs/FILTERS.md. Every backend runs 8-bit
  /// images (run, run_chain); one without 16 bits refuses such an image before it is run.
  [[nodiscard]] virtual bool runs_16_bit() const { return false; }
  /// Runs the chain on a 16-bit image (input.depth() == Depth::u16): every output has that
  /// depth. The default throws UsageError: the backend runs 8-bit images only.
  virtual OpOutput run_chain_16(const OpChain& chain, const Image& input,
                                StageTimes* times = nullptr);

  /// Whether run_chain_on_device takes images in GPU memory (the CUDA backend).
  [[nodiscard]] virtual bool runs_device_images() const { return false; }
  /// Runs the chain on an image already in the GPU's memory, with no host round trip: after
  /// the work queued on `stream` (the caller's CUDA stream, as its handle; 0 is the legacy
  /// default stream), and before the work queued there after the call returns, which may read
  /// the result. The default throws UsageError: the backend takes host images only.
  virtual DeviceOutput run_chain_on_device(const OpChain& chain, const DeviceImageRef& input,
                                           std::uintptr_t stream);

  /// Runs the chain on every input callbacks.next gives, handing each result to
  /// callbacks.done (or its failure to callbacks.failed) in input order. The default runs them
  /// one after another through run_chain(); a device backend may overlap one input's upload
  /// with the kernels and downloads of the inputs before it.
  virtual void run_batch(const OpChain& chain, const BatchCallbacks& callbacks);
};

using BackendFactory = std::unique_ptr<Backend> (*)(const BackendOptions&);

/// A backend compiled into this build.
struct BackendInfo {
  std::string_view name;
  BackendFactory create;
  /// Whether BackendOptions::threads sets its worker count (pthread, OpenMP), so that tests
  /// run it at several thread counts.
  bool threaded = false;
  /// Whether it spreads the work over MPI processes (mpi): it runs only in a process that
  /// mpirun started and that initialized MPI, not in one embedding parfilter (Python).
  bool distributed = false;
};

/// Every backend this build compiled, serial first. The list is generated at configure time
/// from the backends CMake built (target parfilter::registry).
[[nodiscard]] std::span<const BackendInfo> registered_backends();

/// The registered backend called `name`, or nullptr.
[[nodiscard]] const BackendInfo* find_backend(std::string_view name);

/// Resolves params.variant against backend.variants(op): empty gives the default; an unknown
/// name throws UsageError listing the valid ones.
[[nodiscard]] std::string resolve_variant(const Backend& backend, Op op,
                                          const std::string& requested);

/// UsageError, naming `--depth 8`, when `backend` does not run images of `depth`.
void check_depth(const Backend& backend, Depth depth);

/// run_chain or run_chain_16, by the image's depth.
OpOutput run_chain_on(Backend& backend, const OpChain& chain, const Image& input,
                      StageTimes* times = nullptr);

/// The chain validated, each step's variant resolved for `backend`; throws UsageError.
[[nodiscard]] OpChain resolve_chain(const Backend& backend, OpChain chain);

}  // namespace parfilter
