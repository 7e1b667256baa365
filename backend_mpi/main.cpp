// parfilter-mpi: the shared command line inside MPI_Init/MPI_Finalize. Every rank parses the
// same arguments (so every rank finds the same usage errors without a message); only rank 0
// prints, the others' std::cout and std::cerr go nowhere. The jobs run through
// run_mpi_jobs, which gives every rank the same exit code. Node backends (--node-backend) are
// looked up in the registry of every backend this build has.
#include <mpi.h>

#include <iostream>
#include <optional>
#include <streambuf>

#include "mpi_driver.hpp"
#include "parfilter/backends/mpi.hpp"
#include "cli_driver.hpp"

namespace {

/// MPI_Init_thread and MPI_Finalize around main. Serialized calls from several threads let
/// the batch's root answer the other ranks from a second thread while it computes.
class MpiSession {
 public:
  MpiSession(int& argc, char**& argv) {
    int provided = MPI_THREAD_SINGLE;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  }
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  ~MpiSession() { MPI_Finalize(); }
  [[nodiscard]] int rank() const { return rank_; }

 private:
  int rank_ = 0;
};

/// A stream buffer that drops everything.
class NullBuffer final : public std::streambuf {
 protected:
  int overflow(int c) override { return c; }
};

/// Silences std::cout and std::cerr for its lifetime.
class Silenced {
 public:
  Silenced() : out_(std::cout.rdbuf(&null_)), err_(std::cerr.rdbuf(&null_)) {}
  Silenced(const Silenced&) = delete;
  Silenced& operator=(const Silenced&) = delete;
  ~Silenced() {
    std::cout.rdbuf(out_);
    std::cerr.rdbuf(err_);
  }

 private:
  NullBuffer null_;
  std::streambuf* out_;
  std::streambuf* err_;
};

}  // namespace

int main(int argc, char** argv) {
  const MpiSession mpi(argc, argv);
  parfilter::MpiOptions options = parfilter::default_mpi_options();
  options.backends = &parfilter::registered_backends;
  parfilter::set_default_mpi_options(options);
  std::optional<Silenced> silenced;
  if (mpi.rank() != 0) silenced.emplace();
  return parfilter::cli_main(argc, argv, "mpi", &parfilter::make_mpi_backend,
                             &parfilter::mpi_detail::run_mpi_jobs);
}
