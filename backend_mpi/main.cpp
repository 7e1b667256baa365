// parfilter-mpi: the shared command line inside MPI_Init/MPI_Finalize. Every rank parses the
// same arguments (so every rank finds the same usage errors without a message); only rank 0
// prints, the others' std::cout and std::cerr go nowhere. The jobs run through
// run_mpi_jobs, which gives every rank the same exit code. Node backends (--node-backend) are
// looked up in the registry of every backend this build has.
#include <mpi.h>
#include <unistd.h>

#include <csignal>
#include <iostream>
#include <optional>
#include <streambuf>

#include "cli_driver.hpp"
#include "mpi_driver.hpp"
#include "parfilter/backends/mpi.hpp"

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

/// Whether rank 0 has said that the job is being aborted (written by signal handlers only).
volatile std::sig_atomic_t aborted_said = 0;

void say_aborted() {
  if (aborted_said != 0) return;
  aborted_said = 1;
  static constexpr char kLine[] =
      "parfilter-mpi: the job was aborted: a rank or host failed, or mpirun was interrupted "
      "(mpirun ends every rank)\n";
  const ssize_t written = write(STDERR_FILENO, kLine, sizeof kLine - 1);
  (void)written;  // nothing is left to do if even this fails
}

/// mpirun ends the ranks of a job whose rank or host failed (a rank killed, a daemon lost), or
/// that was interrupted, with SIGCONT (for a stopped one), SIGTERM a second later, SIGKILL a
/// second after that (Open MPI's odls). Under mpirun -q nothing else would say why. The line
/// goes out at SIGCONT: measured, 2 to 4 runs in 10 never reached SIGTERM (mpirun exited
/// first and the rank died with it), and what a rank writes once mpirun has gone is lost.
/// SIGCONT alone does not end the rank: mpirun does not forward job control by default, but a
/// rank stopped and continued by hand goes on (having said the line). Only write(2) and
/// _exit(2) are safe here.
extern "C" void on_abort_signal(int signal) {
  say_aborted();
  if (signal == SIGTERM) _exit(parfilter::kExitRuntimeFailure);
}

/// Rank 0 says it in its one line; the others stay silent as always. Installed after
/// MPI_Init, so that it is the handler in force whatever the MPI library set up.
void report_abort() {
  struct sigaction action = {};
  action.sa_handler = on_abort_signal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGCONT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

}  // namespace

int main(int argc, char** argv) {
  const MpiSession mpi(argc, argv);
  parfilter::MpiOptions options = parfilter::default_mpi_options();
  options.backends = &parfilter::registered_backends;
  parfilter::set_default_mpi_options(options);
  std::optional<Silenced> silenced;
  if (mpi.rank() != 0) silenced.emplace();
  if (mpi.rank() == 0) report_abort();
  const int exit_code = parfilter::cli_main(argc, argv, "mpi", &parfilter::make_mpi_backend,
                                            &parfilter::mpi_detail::run_mpi_jobs);
  // The answer is out. A rank that ends with a non-zero code makes mpirun end the others, rank
  // 0 maybe still in MPI_Finalize: that is no failure to report.
  if (mpi.rank() == 0) {
    std::signal(SIGCONT, SIG_DFL);
    std::signal(SIGTERM, SIG_IGN);
  }
  return exit_code;
}
