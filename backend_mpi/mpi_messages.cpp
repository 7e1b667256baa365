// A batch's messages as bytes: fixed-width integers, then length-prefixed strings; files in
// pieces.
#include "mpi_messages.hpp"

#include <algorithm>
#include <cstring>

#include "mpi_node.hpp"

namespace parfilter::mpi_detail {
namespace {

/// The largest piece of a file in one message: well within an int count.
constexpr std::size_t kPieceBytes = std::size_t{1} << 30;

void put_int(std::string& out, std::int64_t value) {
  char bytes[sizeof value];
  std::memcpy(bytes, &value, sizeof value);
  out.append(bytes, sizeof value);
}

void put_string(std::string& out, const std::string& text) {
  put_int(out, static_cast<std::int64_t>(text.size()));
  out += text;
}

class Unpacker {
 public:
  explicit Unpacker(const std::string& bytes) : bytes_(bytes) {}
  std::int64_t get_int() {
    std::int64_t value = 0;
    std::memcpy(&value, bytes_.data() + at_, sizeof value);
    at_ += sizeof value;
    return value;
  }
  std::string get_string() {
    const auto size = static_cast<std::size_t>(get_int());
    std::string text = bytes_.substr(at_, size);
    at_ += size;
    return text;
  }

 private:
  const std::string& bytes_;
  std::size_t at_ = 0;
};

}  // namespace

std::string pack(const JobResult& result) {
  std::string out;
  put_int(out, result.job);
  put_int(out, result.exit_code);
  put_string(out, result.error);
  put_int(out, static_cast<std::int64_t>(result.lines.size()));
  for (const ReportLine& line : result.lines) {
    put_int(out, line.to_stdout ? 1 : 0);
    put_string(out, line.text);
  }
  return out;
}

JobResult unpack(const std::string& bytes) {
  Unpacker in(bytes);
  JobResult result;
  result.job = static_cast<int>(in.get_int());
  result.exit_code = static_cast<int>(in.get_int());
  result.error = in.get_string();
  const auto lines = in.get_int();
  for (std::int64_t i = 0; i < lines; ++i) {
    const bool to_stdout = in.get_int() != 0;
    result.lines.push_back({to_stdout, in.get_string()});
  }
  return result;
}

void send_bytes(MPI_Comm comm, int dest, int tag, std::span<const std::uint8_t> bytes) {
  auto size = static_cast<std::int64_t>(bytes.size());
  MPI_Send(&size, 1, MPI_INT64_T, dest, tag, comm);
  for (std::size_t at = 0; at < bytes.size(); at += kPieceBytes) {
    const std::size_t piece = std::min(kPieceBytes, bytes.size() - at);
    MPI_Send(bytes.data() + at, static_cast<int>(piece), MPI_BYTE, dest, tag, comm);
  }
}

std::vector<std::uint8_t> recv_bytes(MPI_Comm comm, int source, int tag) {
  std::int64_t size = 0;
  MPI_Recv(&size, 1, MPI_INT64_T, source, tag, comm, MPI_STATUS_IGNORE);
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(size));
  for (std::size_t at = 0; at < bytes.size(); at += kPieceBytes) {
    const std::size_t piece = std::min(kPieceBytes, bytes.size() - at);
    MPI_Recv(bytes.data() + at, static_cast<int>(piece), MPI_BYTE, source, tag, comm,
             MPI_STATUS_IGNORE);
  }
  return bytes;
}

/// A job that failed with `failure`, as the root reports it; `where` ("rank 2 on host h") is
/// added to the message when not empty.
JobResult failed_job(int job, const std::exception_ptr& failure, const std::string& where) {
  JobResult result;
  result.job = job;
  result.exit_code = exit_code_for(failure);
  try {
    std::rethrow_exception(failure);
  } catch (const std::exception& e) {
    result.error = e.what();
  } catch (...) {
    result.error = "unknown failure";
  }
  if (!where.empty()) result.error += " (" + where + ")";
  return result;
}

/// A finished job as the root reports it. Failures say where they happened ("rank 2 on host
/// h") when the rank opened its own files (every-rank) or the op failed (a device on one host).
JobResult result_of(const JobRunner& runner, std::size_t job, const JobOutcome& outcome,
                    const std::optional<int>& threshold, bool files_on_root) {
  const CliJob& cli_job = runner.jobs()[job];
  try {
    if (outcome.failure) std::rethrow_exception(outcome.failure);
    JobResult result;
    result.job = static_cast<int>(job);
    OpOutput reported;
    reported.threshold = threshold;
    result.lines = runner.report(
        cli_job, reported, runner.stage_times(outcome.load_ms, outcome.compute, outcome.save_ms));
    return result;
  } catch (...) {
    std::exception_ptr failure = std::current_exception();
    const bool compute = outcome.failure && outcome.failed_stage == JobStage::compute;
    if (compute) failure = job_failure_naming(cli_job.input, failure);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const bool say_where = outcome.failure && (compute || !files_on_root);
    return failed_job(static_cast<int>(job), failure,
                      say_where ? "rank " + std::to_string(rank) + " on host " + host_name() : "");
  }
}

}  // namespace parfilter::mpi_detail
