// Internal: the stages of a streamed run (strip_pipeline.hpp). Each stage gives the rows of an
// image in order, pulling what it needs from the stage before it, the first of which reads the
// file: a demand-driven chain, as libvips runs its regions. Not installed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "parfilter/backend.hpp"
#include "parfilter/row_stream.hpp"
#include "parfilter/strip_pipeline.hpp"

namespace parfilter::strips {

using Bytes = std::vector<std::uint8_t, DefaultInitAllocator<std::uint8_t>>;

/// The rows of an image, in order, again from row 0 after rewind().
class RowStage {
 public:
  RowStage() = default;
  RowStage(const RowStage&) = delete;
  RowStage& operator=(const RowStage&) = delete;
  virtual ~RowStage() = default;

  [[nodiscard]] virtual StreamShape shape() const = 0;
  /// The next `count` rows into `dst`, rows `stride` bytes apart.
  virtual void read(std::uint8_t* dst, std::ptrdiff_t stride, int count) = 0;
  virtual void rewind() = 0;
  /// The bytes the stage's own buffers hold at most.
  [[nodiscard]] virtual std::uint64_t held_bytes() const = 0;
  /// Adds the backend's stage times of the strips run so far.
  virtual void add_times(StageTimes& /*total*/) const {}
  /// The global threshold it applies (otsu, segment), once its first pass is done.
  [[nodiscard]] virtual std::optional<int> threshold() const { return std::nullopt; }
};

/// The file's rows.
class ReaderStage final : public RowStage {
 public:
  explicit ReaderStage(RowReader& reader) : reader_(reader) {}
  [[nodiscard]] StreamShape shape() const override { return reader_.shape(); }
  void read(std::uint8_t* dst, std::ptrdiff_t stride, int count) override {
    reader_.read_rows(dst, stride, count);
  }
  void rewind() override { reader_.rewind(); }
  [[nodiscard]] std::uint64_t held_bytes() const override { return reader_.held_bytes(); }

 private:
  RowReader& reader_;
};

/// Rows [rows().begin, rows().end) of an upstream stage, in a buffer of at most `capacity` rows,
/// moving down the image: what a strip and its halo read.
class RowWindow {
 public:
  RowWindow(RowStage& upstream, int capacity);
  /// Holds rows `need` (need.size() <= capacity; need.begin never below an earlier call's).
  void hold(RowRange need);
  [[nodiscard]] RowRange rows() const { return rows_; }
  [[nodiscard]] const std::uint8_t* row(int y) const {
    return buffer_.data() + static_cast<std::size_t>(y - rows_.begin) * row_bytes_;
  }
  [[nodiscard]] std::size_t row_bytes() const { return row_bytes_; }
  /// A view of `rows` (held) with their indices in the full image, of Sample.
  template <typename Sample>
  [[nodiscard]] BasicImageView<const Sample> view(RowRange rows) const {
    const StreamShape shape = upstream_.shape();
    return {reinterpret_cast<const Sample*>(row(rows.begin)),
            shape.width,
            shape.height,
            shape.channels,
            static_cast<std::ptrdiff_t>(row_bytes_ / sizeof(Sample)),
            rows};
  }
  void rewind();
  [[nodiscard]] std::uint64_t bytes() const {
    return static_cast<std::uint64_t>(capacity_) * row_bytes_;
  }

 private:
  RowStage& upstream_;
  int capacity_;
  std::size_t row_bytes_;
  Bytes buffer_;
  RowRange rows_{};
};

/// The output row that row 0 of a band segment's result on input rows `need` is.
[[nodiscard]] int strip_result_first_row(const OpChain& segment, RowRange need);
/// Throws unless a strip's result, its row 0 being output row `first_row`, covers `band` of an
/// image of `shape`.
void check_strip_result(const Image& result, const StreamShape& shape, int first_row,
                        RowRange band);

/// A run of steps that read only rows near their output (band_segments), on the backend,
/// `strip_rows` output rows at a time, each strip with its halo as an image of its own.
class BandStage final : public RowStage {
 public:
  /// `follower`: StripOptions::follower.
  BandStage(Backend& backend, OpChain segment, RowStage& upstream, int strip_rows,
            bool follower = false);
  [[nodiscard]] StreamShape shape() const override { return shape_; }
  void read(std::uint8_t* dst, std::ptrdiff_t stride, int count) override;
  void rewind() override;
  [[nodiscard]] std::uint64_t held_bytes() const override;
  void add_times(StageTimes& total) const override { add_stage_times(total, times_); }

 private:
  void run_next_strip();

  Backend& backend_;
  OpChain segment_;
  StreamShape input_;
  StreamShape shape_;
  int strip_rows_;
  bool follower_;
  RowWindow window_;
  Image strip_;               ///< the last strip's result, from its first output row
  RowRange strip_rows_at_{};  ///< the output rows of strip_ that are the image's
  int strip_first_ = 0;       ///< the output row strip_'s row 0 is
  int next_ = 0;              ///< the next output row read() gives
  StageTimes times_;
};

/// A step that reads the whole image's histogram (equalize, otsu, segment): a first pass over
/// its input counts, a second maps, strip by strip, with the spec's row loops on the host.
[[nodiscard]] std::unique_ptr<RowStage> make_global_stage(const OpStep& step, RowStage& upstream,
                                                          const StripOptions& options);

/// histogram, the last step: its result from one pass over `upstream`.
[[nodiscard]] OpOutput stream_histogram(const OpStep& step, RowStage& upstream,
                                        const StripOptions& options);

/// A run's stages, each reading the one before it: destroyed last first, so that no stage
/// outlives one it reads (a prefetch thread stops before the reader it reads goes).
class StageList {
 public:
  StageList() = default;
  StageList(const StageList&) = delete;
  StageList& operator=(const StageList&) = delete;
  ~StageList() { clear(); }
  void clear() {
    while (!stages_.empty()) stages_.pop_back();
  }
  RowStage& add(std::unique_ptr<RowStage> stage) {
    stages_.push_back(std::move(stage));
    return *stages_.back();
  }
  [[nodiscard]] RowStage& last() const { return *stages_.back(); }
  [[nodiscard]] const std::vector<std::unique_ptr<RowStage>>& all() const { return stages_; }

 private:
  std::vector<std::unique_ptr<RowStage>> stages_;
};

/// The rows of a strip for an image of `shape` read with `halo` rows around it: options'
/// strip_rows, or about kStripTargetBytes, at least one row per thread and twice the halo.
[[nodiscard]] int strip_rows_for(const StreamShape& shape, int halo, const StripOptions& options);

}  // namespace parfilter::strips
