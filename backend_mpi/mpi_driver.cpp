// One image over every rank: the root alone reads and writes, and each step that can fail on
// the root alone ends with the root broadcasting the exit code, so that no rank waits for a
// transfer that will not come. Failures inside the op are agreed by the backend itself.
#include "mpi_driver.hpp"

#include <mpi.h>

#include <chrono>
#include <exception>
#include <optional>
#include <string>
#include <utility>

#include "mpi_placed.hpp"
#include "mpi_stream.hpp"
#include "parfilter/backend.hpp"
#include "parfilter/error.hpp"

namespace parfilter::mpi_detail {
namespace {

using Clock = std::chrono::steady_clock;

struct World {
  int rank = 0;
  bool is_root() const { return rank == 0; }
};

/// Runs `step` on the root; returns the exit code of its failure (0 if none) on every rank,
/// the root having printed the failure.
template <typename Step>
int on_root(const World& world, const JobRunner& runner, Step&& step) {
  int code = kExitSuccess;
  if (world.is_root()) {
    try {
      step();
    } catch (...) {
      const std::exception_ptr failure = std::current_exception();
      runner.error(failure_message(failure));
      code = exit_code_for(failure);
    }
  }
  MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return code;
}

int run_single(const JobRunner& runner, const World& world) {
  const CliJob& job = runner.jobs().front();
  // An image over --max-memory runs in strips, which no rank holds more than a few of.
  std::optional<StreamedJob> streamed;
  if (const int code = on_root(world, runner, [&] { streamed = runner.open_streamed(job); })) {
    return code;
  }
  if (agree_streamed(streamed)) {
    if (const auto code = run_placed_on_ranks(runner, job, streamed)) return *code;
    return run_streamed_on_ranks(runner, job, streamed);
  }

  Image image;
  double read_ms = 0.0;
  if (const int code = on_root(world, runner, [&] {
        const auto start = Clock::now();
        image = runner.load(job, StageContext{});
        read_ms = elapsed_ms(start);
      })) {
    return code;
  }

  // Collective: the backend throws the same failure on every rank, so every rank returns the
  // same code here without further messages.
  ComputedJob computed;
  try {
    // The other ranks' empty image: the backend takes their part from rank 0.
    computed = runner.compute(runner.backend(), job, image);
  } catch (...) {
    const std::exception_ptr failure = std::current_exception();
    if (world.is_root()) runner.error(failure_message(failure));
    return exit_code_for(failure);
  }

  return on_root(world, runner, [&] {
    const auto start = Clock::now();
    runner.save(job, computed.output, nullptr);
    const double write_ms = elapsed_ms(start);
    const StageTimes& t = computed.times;
    runner.print(runner.report(job, computed.output,
                               {{"read", read_ms},
                                {"scatter", t.upload_ms.value_or(0.0), true},
                                {"compute (slowest rank)", t.compute_ms, true},
                                {"gather", t.download_ms.value_or(0.0), true},
                                {"write", write_ms}}));
  });
}

}  // namespace

int run_mpi_jobs(const JobRunner& runner) {
  World world;
  MPI_Comm_rank(MPI_COMM_WORLD, &world.rank);
  return runner.batch() ? run_batch(runner) : run_single(runner, world);
}

}  // namespace parfilter::mpi_detail
