#include "mpi_placed.hpp"

#include <mpi.h>
#include <sys/resource.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <exception>
#include <string>
#include <vector>

#include "mpi_driver.hpp"
#include "mpi_messages.hpp"
#include "mpi_node.hpp"
#include "mpi_rank.hpp"
#include "mpi_stream.hpp"
#include "parfilter/error.hpp"
#include "parfilter/strip_plan.hpp"

namespace parfilter::mpi_detail {
namespace {

constexpr int kRoot = 0;
/// Output bytes a rank encodes before each write: few, large writes.
constexpr std::size_t kWriteChunkBytes = std::size_t{4} << 20;

/// What every rank needs from the root to run its share: whether the job runs so, the root's
/// stream plan, and the length of the temporary's path that follows.
struct PlacedPlan {
  std::int32_t placed = 0;
  StreamPlan stream;
  std::uint64_t temporary_length = 0;
};

/// MPI's words for an error code.
std::string error_text(int code) {
  std::string text(MPI_MAX_ERROR_STRING, '\0');
  int length = 0;
  MPI_Error_string(code, text.data(), &length);
  text.resize(static_cast<std::size_t>(length));
  return text;
}

/// Whether a file of `bytes` is over this process's file-size limit (ulimit -f).
bool over_file_size_limit(std::uint64_t bytes) {
  rlimit limit{};
  return ::getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
         bytes > static_cast<std::uint64_t>(limit.rlim_cur);
}

/// One band segment: every step reads only rows near its output, a pool only first, so that
/// a share of the output rows needs one window of input rows (band_input_rows).
bool runs_as_one_band(const OpChain& chain) {
  return band_segments(chain).size() == 1 && runs_on_bands(chain.front().op);
}

/// Rows `rows` of another reader, as an image of their own.
class WindowReader final : public RowReader {
 public:
  WindowReader(RowReader& file, RowRange rows) : file_(file), rows_(rows) { rewind(); }
  [[nodiscard]] StreamShape shape() const override {
    StreamShape shape = file_.shape();
    shape.height = rows_.size();
    return shape;
  }
  void read_rows(std::uint8_t* dst, std::ptrdiff_t stride, int count) override {
    file_.read_rows(dst, stride, count);
  }
  void rewind() override {
    if (!file_.seek(rows_.begin)) throw std::logic_error("WindowReader: the input cannot seek");
  }
  [[nodiscard]] bool seek(int row) override { return file_.seek(rows_.begin + row); }
  [[nodiscard]] std::size_t held_bytes() const override { return file_.held_bytes(); }

 private:
  RowReader& file_;
  RowRange rows_;
};

/// Takes a window's output rows in order and writes those in `keep` (of the window's rows),
/// rows `first_row` on of the whole output, where `placed` puts them in `file`.
class PlacedBandWriter final : public RowWriter {
 public:
  PlacedBandWriter(MPI_File file, const PlacedRows& placed, const StreamShape& shape, RowRange keep,
                   int first_row, std::string name)
      : file_(file),
        placed_(placed),
        shape_(shape),
        keep_(keep),
        first_row_(first_row),
        name_(std::move(name)) {
    if (placed.stored_row_bytes > static_cast<std::uint64_t>(INT_MAX)) {
      throw RuntimeError(name_ + ": a row too long to write from several ranks");
    }
    capacity_ = static_cast<int>(std::clamp<std::uint64_t>(
        kWriteChunkBytes / placed.stored_row_bytes, 1, static_cast<std::uint64_t>(keep.size())));
    // Zero-filled: the rows' padding stays zero, as the format's own writer leaves it.
    chunk_.assign(static_cast<std::size_t>(placed.stored_row_bytes) * capacity_, 0);
  }

  void write_rows(const std::uint8_t* src, std::ptrdiff_t stride, int count) override {
    for (int r = 0; r < count; ++r, ++next_row_) {
      if (next_row_ < keep_.begin || next_row_ >= keep_.end) continue;
      if (pending_ == capacity_) flush();
      // A bottom-up file stores the rows in reverse: fill the chunk from its end.
      const int slot = placed_.bottom_up ? capacity_ - 1 - pending_ : pending_;
      placed_.encode(src + r * stride, shape_, slot_at(slot));
      ++pending_;
    }
  }

  void commit() override {
    flush();
    if (written_ != keep_.size()) throw std::logic_error("PlacedBandWriter: rows missing");
  }

 private:
  std::uint8_t* slot_at(int slot) {
    return chunk_.data() + static_cast<std::size_t>(slot) * placed_.stored_row_bytes;
  }

  void flush() {
    if (pending_ == 0) return;
    const int first = first_row_ + written_;  // the whole output's row of the first pending
    const int stored_first = placed_.bottom_up ? first + pending_ - 1 : first;
    const std::uint8_t* bytes = slot_at(placed_.bottom_up ? capacity_ - pending_ : 0);
    const int count = pending_ * static_cast<int>(placed_.stored_row_bytes);
    const std::uint64_t offset = placed_.offset(stored_first);
    // Found before the write: MPI-IO would add its own line to the message.
    if (over_file_size_limit(offset + static_cast<std::uint64_t>(count))) {
      throw RuntimeError(name_ +
                         ": cannot write: file too large (over the file-size limit, see "
                         "ulimit -f)");
    }
    MPI_Status status;
    int wrote = 0;
    const int result =
        MPI_File_write_at(file_, static_cast<MPI_Offset>(offset), bytes, count, MPI_BYTE, &status);
    if (result != MPI_SUCCESS) throw RuntimeError(name_ + ": cannot write: " + error_text(result));
    if (MPI_Get_count(&status, MPI_BYTE, &wrote) != MPI_SUCCESS || wrote != count) {
      throw RuntimeError(name_ + ": cannot write: a short write (the disk may be full)");
    }
    written_ += pending_;
    pending_ = 0;
  }

  MPI_File file_;
  PlacedRows placed_;
  StreamShape shape_;
  RowRange keep_;
  int first_row_;
  std::string name_;
  int capacity_ = 1;
  std::vector<std::uint8_t> chunk_;
  int pending_ = 0;
  int written_ = 0;
  int next_row_ = 0;
};

/// The root's plan, its writer's rows handed out, where the job runs so; placed 0 where not.
PlacedPlan root_plan(const JobRunner& runner, const CliJob& job, StreamedJob& streamed,
                     std::string& temporary) {
  const StreamShape shape = streamed.reader->shape();
  if (!streamed.writer || !runs_as_one_band(runner.chain()) || !streamed.reader->seek(0) ||
      !placed_rows(job.output, streamed_result_shape(runner.chain(), shape))) {
    return {};
  }
  const auto handed_out = streamed.writer->hand_out_rows();
  if (!handed_out) return {};
  temporary = handed_out->string();
  return {1, plan_of(streamed), temporary.size()};
}

/// This rank's share of the output: its rows of `height`, split evenly.
RowRange share_of(int height, int rank, int ranks) {
  const auto at = [&](int r) {
    return static_cast<int>(static_cast<std::int64_t>(height) * r / ranks);
  };
  return {at(rank), at(rank + 1)};
}

/// Reads, filters and writes this rank's share of the output.
void run_share(const JobRunner& runner, const CliJob& job, std::optional<StreamedJob>& streamed,
               const PlacedPlan& plan, MPI_File file, int rank, int ranks) {
  const OpChain& chain = runner.chain();
  const StreamShape in_shape = plan.stream.shape();
  const StreamShape out_shape = streamed_result_shape(chain, in_shape);
  const RowRange share = share_of(out_shape.height, rank, ranks);
  if (share.empty()) return;
  const RowRange window = band_input_rows(chain, in_shape.height, in_shape.channels, share);
  // The window's output row 0 is the whole output's row `first`: the rows above the window
  // through the chain (a pool halves them; the window of a pool starts on an even row).
  StreamShape above = in_shape;
  above.height = window.begin;
  const int first = window.begin > 0 ? streamed_result_shape(chain, above).height : 0;

  std::unique_ptr<RowReader> own_reader;
  StripOptions options;
  if (streamed) {
    options = streamed->options;
  } else {
    LoadOptions load;
    load.max_bytes = plan.stream.max_image_bytes;
    own_reader = read_at_depth(open_row_reader(job.input, load), in_shape.depth);  // --depth
    if (!own_reader) throw std::logic_error("run_placed_on_ranks: the input is not read in rows");
    options = plan.stream.options();
  }
  WindowReader input(streamed ? *streamed->reader : *own_reader, window);
  PlacedBandWriter output(file, *placed_rows(job.output, out_shape), out_shape,
                          {share.begin - first, share.end - first}, share.begin,
                          job.output.string());
  std::unique_ptr<Backend> own_backend;
  Backend* backend = node_backend_of(runner.backend());
  if (backend == nullptr) {
    own_backend = make_rank_local_backend(runner.backend_options());
    backend = own_backend.get();
  }
  (void)run_streamed(*backend, chain, input, &output, options);
  output.commit();
}

}  // namespace

std::optional<int> run_placed_on_ranks(const JobRunner& runner, const CliJob& job,
                                       std::optional<StreamedJob>& streamed) {
  int rank = 0;
  int ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const bool shared_files = !files_on_root(runner.backend_options(), MPI_COMM_WORLD);
  PlacedPlan plan;
  std::string temporary;
  if (rank == kRoot && shared_files) {
    try {
      plan = root_plan(runner, job, *streamed, temporary);
    } catch (...) {  // a reader that cannot seek back: the root's stream runs the job
      plan = {};
    }
  }
  MPI_Bcast(&plan, sizeof(plan), MPI_BYTE, kRoot, MPI_COMM_WORLD);
  if (plan.placed == 0) return std::nullopt;
  temporary.resize(plan.temporary_length);
  MPI_Bcast(temporary.data(), static_cast<int>(temporary.size()), MPI_CHAR, kRoot, MPI_COMM_WORLD);

  std::exception_ptr failure;
  MPI_File file = MPI_FILE_NULL;
  if (const int result =
          MPI_File_open(MPI_COMM_WORLD, temporary.c_str(), MPI_MODE_WRONLY, MPI_INFO_NULL, &file);
      result != MPI_SUCCESS) {
    failure = std::make_exception_ptr(RuntimeError(
        job.output.string() + ": cannot open its temporary file: " + error_text(result)));
  } else {
    try {
      run_share(runner, job, streamed, plan, file, rank, ranks);
    } catch (...) {
      failure = job_failure_naming(job.input, std::current_exception());
    }
    MPI_File_close(&file);
  }

  // The lowest rank that failed tells the root why, and where (each rank opened the files
  // itself), and the root says it once; the root commits where none failed.
  int failed = failure ? rank : ranks;
  MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  int code = kExitSuccess;
  if (failed < ranks) {
    std::string message;
    if (rank == failed) {
      message = failure_message(failure) + " (rank " + std::to_string(rank) + " on host " +
                host_name() + ")";
      code = exit_code_for(failure);
      if (rank != kRoot) {
        send_bytes(MPI_COMM_WORLD, kRoot, kFailureTag,
                   {reinterpret_cast<const std::uint8_t*>(message.data()), message.size()});
      }
    }
    if (rank == kRoot) {
      if (failed != kRoot) {
        const std::vector<std::uint8_t> bytes = recv_bytes(MPI_COMM_WORLD, failed, kFailureTag);
        message.assign(bytes.begin(), bytes.end());
      }
      runner.error(message);
    }
    MPI_Bcast(&code, 1, MPI_INT, failed, MPI_COMM_WORLD);
  } else {
    if (rank == kRoot) {
      try {
        runner.finish_streamed(job, *streamed, OpOutput{});
      } catch (...) {
        const std::exception_ptr commit_failure =
            job_failure_naming(job.output, std::current_exception());
        runner.error(failure_message(commit_failure));
        code = exit_code_for(commit_failure);
      }
    }
    MPI_Bcast(&code, 1, MPI_INT, kRoot, MPI_COMM_WORLD);
  }
  if (rank == kRoot) streamed.reset();  // an uncommitted output's temporary goes now
  return code;
}

}  // namespace parfilter::mpi_detail
