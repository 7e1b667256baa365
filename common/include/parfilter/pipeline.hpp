// The batch pipeline: worker threads decode inputs ahead of the backend and encode its results
// behind it, through a bounded window, so that the codecs, the transfers and the kernels of
// different images overlap. Every executable runs its batches through it (parfilter-mpi inside
// each rank); docs/PIPELINE.md explains the design.
#pragma once

#include <cstddef>
#include <exception>
#include <optional>

#include "parfilter/backend.hpp"
#include "parfilter/image_io.hpp"

namespace parfilter {

/// What a stage gets from the pipeline: where to pause (while the backend computes on the
/// host's cores), where to spread one image's work (a PNG's row bands) and where to put a
/// decoded image.
struct StageContext {
  Checkpoint checkpoint;
  ParallelFor parallel_for;
  /// Where a decoded input should live (Backend::host_allocator), or null.
  std::shared_ptr<SampleAllocator> allocator;
};

enum class JobStage { load, compute, save };

/// How one job ended. `failure` is null on success; else `failed_stage` says where it failed.
struct JobOutcome {
  std::exception_ptr failure;
  JobStage failed_stage = JobStage::load;
  double load_ms = 0.0;
  StageTimes compute;
  double save_ms = 0.0;
};

/// The jobs of a batch: where each input comes from and where its result goes.
class BatchJobs {
 public:
  BatchJobs() = default;
  BatchJobs(const BatchJobs&) = delete;
  BatchJobs& operator=(const BatchJobs&) = delete;
  virtual ~BatchJobs() = default;

  /// The next job to start, or nullopt when there is none left. Called on one thread.
  virtual std::optional<std::size_t> next_job() = 0;
  /// Reads and decodes job's input, on a worker. Throws an error naming the file.
  virtual Image load(std::size_t job, const StageContext& context) = 0;
  /// Encodes and writes job's result, on a worker. Throws an error naming the file.
  virtual void save(std::size_t job, const OpOutput& output, const StageContext& context) = 0;
  /// Called once per job, in the order next_job gave them, one call at a time.
  virtual void finished(std::size_t job, const JobOutcome& outcome) = 0;
  /// How many jobs next_job will give in all, where known (0: unknown).
  [[nodiscard]] virtual std::size_t size_hint() const { return 0; }
};

struct PipelineOptions {
  /// Worker threads for decoding and encoding; 0: every hardware thread.
  int threads = 0;
  /// Whether the backend computes on the host's cores (the CPU backends): the workers then
  /// pause at their next checkpoint while it computes, so that at most `threads` threads run.
  bool compute_on_host = true;
  /// A compute that took less than this last time (a light op on many cores: a few
  /// milliseconds) runs beside the workers instead: pausing every codec for it would cost
  /// more than the brief overlap.
  double pause_min_ms = kDefaultPauseMinMs;
  static constexpr double kDefaultPauseMinMs = 10.0;
};

/// The most images a pipeline with `threads` workers holds at once (decoding, waiting,
/// computing or encoding): one per worker and two more, whatever the batch's length.
[[nodiscard]] std::size_t images_in_flight(int threads);

/// Runs every job through load, backend.run_batch (the chain) and save, and returns when each has
/// finished. A job's failure is its outcome; the others go on. Throws only what next_job
/// throws, after the jobs already started have finished.
void run_batch_pipeline(Backend& backend, const OpChain& chain, BatchJobs& jobs,
                        const PipelineOptions& options);

}  // namespace parfilter
