// main() for the MPI test executables: every rank runs the same tests in the same order (the
// MPI backend's run is collective), with the MPI backend's output image on every rank, so that
// every rank checks it against the reference. Rank 0 prints the usual report; the other ranks
// print only their failures. Every rank exits with the worst rank's result. An exception that
// leaves a test body aborts every rank at once: the ranks' collective calls no longer pair up,
// so the run would otherwise hang until ctest's timeout.
// --node-backend=NAME: the MPI backend runs every op through that node backend.
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>

#include "parfilter/backends/mpi.hpp"
#include "parfilter/error.hpp"

namespace {

/// The failures of a rank other than 0, each line prefixed with the rank.
class FailurePrinter final : public ::testing::EmptyTestEventListener {
 public:
  explicit FailurePrinter(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& result) override {
    if (!result.failed()) return;
    const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
    std::fprintf(stderr, "[rank %d] %s.%s: %s:%d: %s\n", rank_,
                 test != nullptr ? test->test_suite_name() : "?",
                 test != nullptr ? test->name() : "?",
                 result.file_name() != nullptr ? result.file_name() : "?", result.line_number(),
                 result.summary());
  }

 private:
  int rank_;
};

/// Ends the whole job when a test body threw: that rank skipped collective calls the others
/// wait in. gtest reports an escaped exception as a fatal failure with this prefix.
class AbortOnException final : public ::testing::EmptyTestEventListener {
 public:
  explicit AbortOnException(int rank) : rank_(rank) {}
  void OnTestPartResult(const ::testing::TestPartResult& result) override {
    constexpr std::string_view kThrown = "C++ exception";
    const std::string_view summary = result.summary() != nullptr ? result.summary() : "";
    if (!result.fatally_failed() || !summary.starts_with(kThrown)) return;
    std::fprintf(stderr,
                 "[rank %d] a test threw; aborting every rank (their calls no longer pair)\n",
                 rank_);
    std::fflush(nullptr);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }

 private:
  int rank_;
};

constexpr int kSkipped = 77;

/// "--node-backend=NAME" taken out of argv: the MPI backend's node backend for every test.
std::string take_node_backend(int& argc, char** argv) {
  constexpr std::string_view kFlag = "--node-backend=";
  std::string name;
  int kept = 0;
  for (int i = 0; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.starts_with(kFlag)) {
      name = arg.substr(kFlag.size());
    } else {
      argv[kept++] = argv[i];
    }
  }
  argc = kept;
  return name;
}

}  // namespace

int main(int argc, char** argv) {
  int provided = MPI_THREAD_SINGLE;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  parfilter::MpiOptions options = parfilter::default_mpi_options();
  options.result_on_every_rank = true;
  options.node_backend = take_node_backend(argc, argv);
  options.backends = &parfilter::registered_backends;
  parfilter::set_default_mpi_options(options);
  if (!options.node_backend.empty()) {
    // A node backend that this build lacks or whose device is absent (no GPU here): the whole
    // run is skipped, as ctest understands it (SKIP_RETURN_CODE 77), with the reason on one line.
    parfilter::Availability availability;
    try {
      availability = parfilter::make_mpi_backend(parfilter::BackendOptions{})->availability();
    } catch (const parfilter::UsageError& e) {
      availability = {false, e.what()};
    }
    if (!availability.present) {
      if (rank == 0)
        std::printf("SKIP: node backend %s: %s\n", options.node_backend.c_str(),
                    availability.reason.c_str());
      MPI_Finalize();
      return kSkipped;
    }
  }

  ::testing::InitGoogleTest(&argc, argv);
  ::testing::TestEventListeners& listeners = ::testing::UnitTest::GetInstance()->listeners();
  if (rank != 0) {
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(std::make_unique<FailurePrinter>(rank).release());
  }
  listeners.Append(std::make_unique<AbortOnException>(rank).release());
  int failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return failed;
}
