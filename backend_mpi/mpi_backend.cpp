// The MPI backend object: options, availability, and the rank-local scheduler each run uses.
#include <mpi.h>

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "mpi_node.hpp"
#include "mpi_ops.hpp"
#include "mpi_rank.hpp"
#include "mpi_slabs.hpp"
#include "parfilter/backends/mpi.hpp"
#include "parfilter/error.hpp"
#ifdef PARFILTER_MPI_WITH_OPENMP
#include "openmp_scheduler.hpp"
#endif

namespace parfilter {
namespace {

bool mpi_running() {
  int initialized = 0;
  int finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  return initialized != 0 && finalized == 0;
}

std::mutex default_options_mutex;
MpiOptions default_options;

class MpiBackend final : public Backend {
 public:
  MpiBackend(const BackendOptions& options, const MpiOptions& mpi)
      : mpi_(mpi),
        node_(mpi_detail::make_node_backend(options, mpi)),
        threads_(node_ ? node_threads(options, *node_) : mpi_detail::threads_per_rank(options)),
        scheduler_(mpi_detail::make_rank_scheduler(node_ ? 1 : threads_)) {}
  MpiBackend(const MpiBackend&) = delete;
  MpiBackend& operator=(const MpiBackend&) = delete;
  ~MpiBackend() override {
    if (comm_.comm != MPI_COMM_NULL && mpi_running()) MPI_Comm_free(&comm_.comm);
  }

  [[nodiscard]] std::string_view name() const override { return "mpi"; }
  [[nodiscard]] std::vector<std::string> variants(Op op) const override {
    return node_ ? node_->variants(op) : cpu_variants(op);
  }
  /// With a node backend, whether every rank has its device: agreed over the ranks on the
  /// first call (every rank makes it at the same point: the command line, the test suite),
  /// so that a host without one stops every rank, named in the one message.
  [[nodiscard]] Availability availability() const override {
    if (!mpi_running()) {
      return {false,
              "MPI is not initialized (run parfilter-mpi under mpirun; ctest runs this "
              "backend's suite as test_cross_backend_mpi)"};
    }
    if (!node_) return {};
    if (!node_availability_) node_availability_ = agree_on_node_availability();
    return *node_availability_;
  }
  [[nodiscard]] int threads() const override { return threads_; }
  [[nodiscard]] bool takes_device() const override { return node_ && node_->takes_device(); }
  [[nodiscard]] int device_count() const override { return node_ ? node_->device_count() : 0; }
  [[nodiscard]] bool takes_distribution_options() const override { return true; }

  [[nodiscard]] std::string describe_devices() const override {
    if (!mpi_running()) return "  mpi: " + availability().reason + "\n";
    int rank = 0;
    int size = 0;
    MPI_Comm_rank(mpi_.comm, &rank);
    MPI_Comm_size(mpi_.comm, &size);
    char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
    int length = 0;
    MPI_Get_library_version(version, &length);
    std::string library(version, static_cast<std::size_t>(length));
    library = library.substr(0, library.find_first_of(",\n"));
    std::string text = "* mpi: " + std::to_string(size) + " rank(s), root " +
                       std::to_string(mpi_.root) + ", " + std::to_string(threads_) +
                       " thread(s) per rank (" + library + ")\n";
    if (!node_) return text;
    // Rank 0's node backend (the others' may have chosen another device).
    return text + "  node backend " + std::string(node_->name()) + " on rank " +
           std::to_string(rank) + ":\n" + node_->describe_devices();
  }

  /// Runs the chain; with a node backend, band_segments' pieces one after another: each run of
  /// slab ops through the node backend on every rank's slab (one scatter, the node's whole
  /// run_chain, one gather), each other step on the ranks' CPU kernels.
  OpOutput run_chain(const OpChain& chain, const ConstImageView& input,
                     StageTimes* times) override {
    if (!node_) return Backend::run_chain(chain, input, times);
    return run_node_chain(chain, input, {}, Depth::u8, times);
  }

  [[nodiscard]] Backend* node() const { return node_.get(); }

  OpOutput run(Op op, const ConstImageView& input, const OpParams& params,
               StageTimes* times) override {
    if (node_) return run_chain(OpChain{{op, params}}, input, times);
    return run_step({op, params}, input, {}, Depth::u8, times);
  }

  /// The ranks' own loops run 16 bits, and so does every node backend.
  [[nodiscard]] bool runs_16_bit() const override { return !node_ || node_->runs_16_bit(); }

  OpOutput run_chain_16(const OpChain& chain, const Image& input, StageTimes* times) override {
    check_depth(*this, Depth::u16);
    if (node_) return run_node_chain(chain, {}, input.view_of<std::uint16_t>(), Depth::u16, times);
    if (chain.empty()) throw UsageError("no op to run");
    OpOutput output;
    StageTimes total;
    for (std::size_t i = 0; i < chain.size(); ++i) {
      StageTimes step_times;
      const Image& in = i == 0 ? input : output.image;
      OpOutput next = run_step(chain[i], {}, in.view_of<std::uint16_t>(), Depth::u16, &step_times);
      add_stage_times(total, step_times);
      output = std::move(next);
    }
    if (times != nullptr) *times = total;
    return output;
  }

 private:
  /// The chain through the node backend at the root's depth (`mine` is this rank's; a rank
  /// without an image passes either), agreed first, as run_step does: a rank given no image
  /// must size its buffers by the root's samples.
  OpOutput run_node_chain(const OpChain& chain, const ConstImageView& input,
                          const ConstImageView16& input_16, Depth mine, StageTimes* times) {
    const Depth depth = mpi_detail::agree_on_depth(communicator(), mine);
    return depth == Depth::u8 ? run_node_chain_at(chain, input, times)
                              : run_node_chain_at(chain, input_16, times);
  }

  /// The chain through the node backend: band_segments' pieces one after another, each run
  /// of slab ops through the node backend on every rank's slab (one scatter, the node's whole
  /// run_chain, one gather), each other step on the ranks' CPU kernels.
  template <typename Sample>
  OpOutput run_node_chain_at(const OpChain& chain, const BasicImageView<const Sample>& input,
                             StageTimes* times) {
    const mpi_detail::Comm& comm = communicator();
    OpChain resolved;
    mpi_detail::on_every_rank(comm, [&] { resolved = resolve_chain(*this, chain); });
    OpOutput output;
    StageTimes total;
    bool first = true;
    for (const OpChain& segment : band_segments(resolved)) {
      const BasicImageView<const Sample> in =
          first ? input : std::as_const(output.image).template view_of<Sample>();
      StageTimes step_times;
      OpOutput next;
      if (runs_on_bands(segment.front().op)) {
        next = mpi_detail::run_slabs(comm, *node_, segment, in, mpi_.result_on_every_rank,
                                     &step_times);
      } else {
        // The node backend's variant names mean nothing to the CPU kernels: their default.
        OpParams params = at_depth(segment.front().params, kDepthOf<Sample>);
        params.variant = cpu_variants(segment.front().op).front();
        next = mpi_detail::run_distributed(comm, *scheduler_, segment.front().op, in, params,
                                           mpi_.result_on_every_rank, &step_times);
      }
      add_stage_times(total, step_times);
      output = std::move(next);
      first = false;
    }
    if (times != nullptr) *times = total;
    return output;
  }

  /// One step on every rank at the root's depth (`mine` is this rank's; a rank without an
  /// image passes either), its parameters agreed valid at that depth before any transfer.
  OpOutput run_step(const OpStep& step, const ConstImageView& input,
                    const ConstImageView16& input_16, Depth mine, StageTimes* times) {
    const mpi_detail::Comm& comm = communicator();
    const Depth depth = mpi_detail::agree_on_depth(comm, mine);
    // Agreed: a rank given parameters the others were not fails them all, none waits.
    OpParams resolved;
    mpi_detail::on_every_rank(comm, [&] {
      validate_params(step.op, step.params, depth);
      resolved = at_depth(step.params, depth);
      resolved.variant = resolve_variant(*this, step.op, step.params.variant);
    });
    if (depth == Depth::u8) {
      return mpi_detail::run_distributed(comm, *scheduler_, step.op, input, resolved,
                                         mpi_.result_on_every_rank, times);
    }
    return mpi_detail::run_distributed(comm, *scheduler_, step.op, input_16, resolved,
                                       mpi_.result_on_every_rank, times);
  }

  /// The backend's own duplicate of the communicator, made on the first (collective) run.
  const mpi_detail::Comm& communicator() {
    if (!mpi_running()) throw RuntimeError(availability().reason);
    if (comm_.comm == MPI_COMM_NULL) {
      MPI_Comm_dup(mpi_.comm, &comm_.comm);
      MPI_Comm_rank(comm_.comm, &comm_.rank);
      MPI_Comm_size(comm_.comm, &comm_.size);
      if (mpi_.root < 0 || mpi_.root >= comm_.size) {
        throw UsageError("MPI root " + std::to_string(mpi_.root) + " is not a rank of the " +
                         std::to_string(comm_.size) + "-rank communicator");
      }
      comm_.root = mpi_.root;
    }
    return comm_;
  }

  /// A node backend's threads: a CPU one's own, else the codec threads of a batch's ranks.
  static int node_threads(const BackendOptions& options, const Backend& node) {
    return node.computes_on_host() ? node.threads()
                                   : mpi_detail::device_rank_codec_threads(options);
  }

  [[nodiscard]] Availability agree_on_node_availability() const {
    mpi_detail::Comm comm{mpi_.comm};
    MPI_Comm_rank(comm.comm, &comm.rank);
    MPI_Comm_size(comm.comm, &comm.size);
    try {
      mpi_detail::on_every_rank(comm, [&] {
        const Availability own = node_->availability();
        if (!own.present) throw RuntimeError(own.reason + " on host " + mpi_detail::host_name());
      });
    } catch (const std::exception& e) {
      return {false, e.what()};
    }
    return {};
  }

  MpiOptions mpi_;
  std::unique_ptr<Backend> node_;
  int threads_;
  std::unique_ptr<RowScheduler> scheduler_;
  mpi_detail::Comm comm_;
  mutable std::optional<Availability> node_availability_;
};

}  // namespace

namespace mpi_detail {

int threads_per_rank(const BackendOptions& options) {
  if (options.threads < 0) {
    throw UsageError("threads must be 0 (one per rank) or more, got " +
                     std::to_string(options.threads));
  }
#ifndef PARFILTER_MPI_WITH_OPENMP
  if (options.threads > 1) {
    throw UsageError("--threads " + std::to_string(options.threads) +
                     ": this build has no OpenMP for threads inside MPI ranks");
  }
#endif
  return options.threads == 0 ? 1 : options.threads;
}

std::unique_ptr<RowScheduler> make_rank_scheduler(int threads) {
#ifdef PARFILTER_MPI_WITH_OPENMP
  if (threads > 1) return make_openmp_scheduler(threads);
#endif
  (void)threads;
  return std::make_unique<CallingThreadScheduler>();
}

Backend* node_backend_of(const Backend& backend) {
  const auto* mpi = dynamic_cast<const MpiBackend*>(&backend);
  return mpi != nullptr ? mpi->node() : nullptr;
}

std::unique_ptr<Backend> make_rank_local_backend(const BackendOptions& options) {
  const int threads = threads_per_rank(options);
  return make_cpu_backend("mpi", make_rank_scheduler(threads), threads);
}

}  // namespace mpi_detail

MpiOptions default_mpi_options() {
  const std::scoped_lock lock(default_options_mutex);
  return default_options;
}

void set_default_mpi_options(const MpiOptions& mpi) {
  const std::scoped_lock lock(default_options_mutex);
  default_options = mpi;
}

std::unique_ptr<Backend> make_mpi_backend(const BackendOptions& options) {
  return make_mpi_backend(options, default_mpi_options());
}

std::unique_ptr<Backend> make_mpi_backend(const BackendOptions& options, const MpiOptions& mpi) {
  return std::make_unique<MpiBackend>(options, mpi);
}

}  // namespace parfilter
