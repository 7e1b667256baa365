// The messages of a batch between the root and the other ranks: their tags, a job's result and
// its bytes, and files' bytes of any size. Not installed.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <exception>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cli_driver.hpp"

namespace parfilter::mpi_detail {

constexpr int kRequestTag = 200;  ///< worker -> root: give me a job
constexpr int kResultTag = 201;   ///< worker -> root: one job's result
constexpr int kAssignTag = 202;   ///< root -> worker: the next job, or kNoMoreJobs
constexpr int kDoneTag = 203;     ///< worker -> root: every job of mine has finished
constexpr int kInputTag = 204;    ///< root -> worker (--files-on root): the job's input file
constexpr int kOutputTag = 205;   ///< worker -> root (--files-on root): the job's output file
constexpr int kFailureTag = 206;  ///< rank -> root: why one image failed there (mpi_placed)
constexpr int kNoMoreJobs = -1;

/// What a rank reports about one job.
struct JobResult {
  int job = kNoMoreJobs;
  int exit_code = kExitSuccess;
  std::string error;
  std::vector<ReportLine> lines;
};

/// A job that failed with `failure`; `where` ("rank 2 on host h") is added to the message
/// when not empty.
[[nodiscard]] JobResult failed_job(int job, const std::exception_ptr& failure,
                                   const std::string& where = {});

/// A job finished on this rank as the root reports it: its report lines, or its failure, which
/// says where it happened ("rank 2 on host h") when the rank opened its own files
/// (!files_on_root) or the op failed (a device on one host).
[[nodiscard]] JobResult result_of(const JobRunner& runner, std::size_t job,
                                  const JobOutcome& outcome, const std::optional<int>& threshold,
                                  bool files_on_root);

[[nodiscard]] std::string pack(const JobResult& result);
[[nodiscard]] JobResult unpack(const std::string& bytes);

/// Sends `bytes` to `dest`: their count, then the bytes in pieces that MPI's int counts can
/// hold (an input may be larger than 2 GiB). Messages of one tag between two ranks arrive in
/// order, so the receiver takes them with recv_bytes right after whatever announced them.
void send_bytes(MPI_Comm comm, int dest, int tag, std::span<const std::uint8_t> bytes);
[[nodiscard]] std::vector<std::uint8_t> recv_bytes(MPI_Comm comm, int source, int tag);

}  // namespace parfilter::mpi_detail
