#include "mpi_stream.hpp"

#include <mpi.h>

#include <cstdint>
#include <exception>

#include "parfilter/error.hpp"

namespace parfilter::mpi_detail {
namespace {

constexpr int kRoot = 0;

int rank_of_world() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

/// The root's reader as the others see it: its shape and held bytes, no rows.
class FollowerReader final : public RowReader {
 public:
  FollowerReader(const StreamShape& shape, std::size_t held) : shape_(shape), held_(held) {}
  [[nodiscard]] StreamShape shape() const override { return shape_; }
  void read_rows(std::uint8_t* /*dst*/, std::ptrdiff_t /*stride*/, int /*count*/) override {}
  void rewind() override {}
  [[nodiscard]] std::size_t held_bytes() const override { return held_; }

 private:
  StreamShape shape_;
  std::size_t held_;
};

class DiscardingWriter final : public RowWriter {
 public:
  void write_rows(const std::uint8_t* /*src*/, std::ptrdiff_t /*stride*/, int /*count*/) override {}
  void commit() override {}
};

/// The root's reader, its first failure kept for after the last strip (the rows after it are
/// left as they were): the other ranks are waiting for those strips.
class DeferringReader final : public RowReader {
 public:
  explicit DeferringReader(RowReader& reader) : reader_(reader) {}
  [[nodiscard]] StreamShape shape() const override { return reader_.shape(); }
  void read_rows(std::uint8_t* dst, std::ptrdiff_t stride, int count) override {
    if (failure_) return;
    try {
      reader_.read_rows(dst, stride, count);
    } catch (...) {
      failure_ = std::current_exception();
    }
  }
  void rewind() override {
    if (!failure_) reader_.rewind();
  }
  [[nodiscard]] std::size_t held_bytes() const override { return reader_.held_bytes(); }
  void rethrow() const {
    if (failure_) std::rethrow_exception(failure_);
  }

 private:
  RowReader& reader_;
  std::exception_ptr failure_;
};

/// The root's writer, the same way: a full disk is reported after the last strip.
class DeferringWriter final : public RowWriter {
 public:
  explicit DeferringWriter(RowWriter& writer) : writer_(writer) {}
  void write_rows(const std::uint8_t* src, std::ptrdiff_t stride, int count) override {
    if (failure_) return;
    try {
      writer_.write_rows(src, stride, count);
    } catch (...) {
      failure_ = std::current_exception();
    }
  }
  void commit() override {}  // the root commits the real writer, once no failure is kept
  void rethrow() const {
    if (failure_) std::rethrow_exception(failure_);
  }

 private:
  RowWriter& writer_;
  std::exception_ptr failure_;
};

}  // namespace

StripOptions StreamPlan::options() const {
  StripOptions options;
  options.strip_rows = strip_rows;
  options.threads = threads;
  options.max_memory = max_memory;
  options.strip_bytes = strip_bytes;
  return options;
}

StreamPlan plan_of(const StreamedJob& streamed) {
  const StreamShape shape = streamed.reader->shape();
  const StripOptions& options = streamed.options;
  return {shape.width,
          shape.height,
          shape.channels,
          static_cast<std::int32_t>(shape.depth),
          options.strip_rows,
          options.threads,
          streamed.reader->held_bytes(),
          streamed.load.max_bytes,
          options.max_memory,
          options.strip_bytes};
}

bool agree_streamed(const std::optional<StreamedJob>& streamed) {
  int flag = streamed.has_value() ? 1 : 0;
  MPI_Bcast(&flag, 1, MPI_INT, kRoot, MPI_COMM_WORLD);
  return flag != 0;
}

int run_streamed_on_ranks(const JobRunner& runner, const CliJob& job,
                          std::optional<StreamedJob>& streamed) {
  const bool root = rank_of_world() == kRoot;
  StreamPlan plan;
  if (root) plan = plan_of(*streamed);
  MPI_Bcast(&plan, sizeof(plan), MPI_BYTE, kRoot, MPI_COMM_WORLD);

  FollowerReader follower_reader(plan.shape(), plan.reader_held);
  DiscardingWriter discarding;
  std::optional<DeferringReader> reader;
  std::optional<DeferringWriter> writer;
  StripOptions options;
  if (root) {
    options = streamed->options;
    reader.emplace(*streamed->reader);
    if (streamed->writer) writer.emplace(*streamed->writer);
  } else {
    options = plan.options();
    options.follower = true;
  }
  const bool histogram = op_info(runner.chain().back().op).traits.histogram_result;
  RowReader& input = root ? static_cast<RowReader&>(*reader) : follower_reader;
  RowWriter* output = histogram ? nullptr : root ? static_cast<RowWriter*>(&*writer) : &discarding;
  OpOutput result;
  int code = kExitSuccess;
  try {
    // The backend agrees on its own failures: every rank throws the same one.
    result = run_streamed(runner.backend(), runner.chain(), input, output, options);
  } catch (...) {
    const std::exception_ptr failure = job_failure_naming(job.input, std::current_exception());
    if (root) runner.error(failure_message(failure));
    code = exit_code_for(failure);
  }
  if (code == kExitSuccess && root) {
    bool reading = true;
    try {
      reader->rethrow();
      reading = false;
      if (writer) writer->rethrow();
      runner.finish_streamed(job, *streamed, result);
    } catch (...) {
      const std::exception_ptr failure =
          job_failure_naming(reading ? job.input : job.output, std::current_exception());
      runner.error(failure_message(failure));
      code = exit_code_for(failure);
    }
  }
  if (root) streamed.reset();  // an uncommitted output's temporary goes now
  MPI_Bcast(&code, 1, MPI_INT, kRoot, MPI_COMM_WORLD);
  return code;
}

}  // namespace parfilter::mpi_detail
