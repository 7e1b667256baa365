// Internal: a streamed run's codecs on threads of their own, so that decoding strip k+1 and
// encoding strip k-1 overlap the compute on strip k (libvips overlaps its loaders and savers
// with its workers the same way). Each hands strips through a queue of a few buffers, so what
// it holds stays bounded. Not installed.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "strip_stages.hpp"

namespace parfilter::strips {

/// Items handed from one thread to another, at most `slots` at a time; close() ends it, with
/// the producer's error when it failed.
template <typename Item>
class BoundedQueue {
 public:
  explicit BoundedQueue(std::size_t slots) : slots_(slots) {}
  /// Waits for room; false when the queue was closed meanwhile.
  bool push(Item item) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return closed_ || items_.size() < slots_; });
    if (closed_) return false;
    items_.push_back(std::move(item));
    changed_.notify_all();
    return true;
  }
  /// Waits for an item; false at the end (rethrows the producer's failure).
  bool pop(Item& item) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return closed_ || !items_.empty(); });
    if (!items_.empty()) {
      item = std::move(items_.front());
      items_.pop_front();
      changed_.notify_all();
      return true;
    }
    if (failure_) std::rethrow_exception(failure_);
    return false;
  }
  /// No more items: pop() gives false once the queue is empty, push() false at once.
  void close(std::exception_ptr failure = nullptr) {
    const std::lock_guard lock(mutex_);
    closed_ = true;
    if (failure && !failure_) failure_ = std::move(failure);
    changed_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Item> items_;
  std::size_t slots_;
  bool closed_ = false;
  std::exception_ptr failure_;
};

/// Packed rows with their row count.
struct RowStrip {
  Bytes rows;
  int count = 0;
};
using StripQueue = BoundedQueue<RowStrip>;

/// Strip buffers handed back for reuse, so that two threads passing strips allocate them once
/// (a buffer freed on another thread than it came from stays in that thread's malloc arena).
class StripBuffers {
 public:
  /// A buffer of `bytes`: a returned one, or a new one.
  [[nodiscard]] Bytes take(std::size_t bytes);
  void give(Bytes buffer);

 private:
  std::mutex mutex_;
  std::vector<Bytes> free_;
};

/// The upstream's rows read ahead on a thread, `strip_rows` at a time.
class PrefetchStage final : public RowStage {
 public:
  PrefetchStage(RowStage& upstream, int strip_rows);
  ~PrefetchStage() override { stop(); }
  PrefetchStage(const PrefetchStage&) = delete;
  PrefetchStage& operator=(const PrefetchStage&) = delete;

  [[nodiscard]] StreamShape shape() const override { return upstream_.shape(); }
  void read(std::uint8_t* dst, std::ptrdiff_t stride, int count) override;
  void rewind() override;
  [[nodiscard]] std::uint64_t held_bytes() const override;

 private:
  void start();
  void stop();

  RowStage& upstream_;
  int strip_rows_;
  std::unique_ptr<StripQueue> queue_;
  StripBuffers buffers_;
  std::thread thread_;
  RowStrip current_;
  int used_ = 0;  ///< rows of current_ already read
};

/// Rows written to a RowWriter on a thread of its own.
class WriterThread {
 public:
  WriterThread(RowWriter& writer, std::size_t row_bytes);
  ~WriterThread();
  WriterThread(const WriterThread&) = delete;
  WriterThread& operator=(const WriterThread&) = delete;

  /// Queues `count` packed rows (waits while the queue is full); rethrows a failed write.
  void write(RowStrip strip);
  /// Waits until every queued row is written; rethrows a failed write.
  void finish();
  /// A buffer for the next strip, of `bytes`.
  [[nodiscard]] Bytes buffer(std::size_t bytes) { return buffers_.take(bytes); }

 private:
  RowWriter& writer_;
  std::size_t row_bytes_;
  StripQueue queue_;
  StripBuffers buffers_;
  std::thread thread_;
  std::exception_ptr failure_;
  std::mutex failure_mutex_;
};

/// A run of band steps (BandStage's) on a device backend's in-flight ring (Backend::run_batch):
/// the strips, each with its halo, go to the device as a batch of images from a thread of
/// their own, so that reading strip k+1 and its upload overlap the kernels on strip k and the
/// download of strip k-1, and the device holds only the strips in flight.
class DeviceBandStage final : public RowStage {
 public:
  DeviceBandStage(Backend& backend, OpChain segment, RowStage& upstream, int strip_rows);
  ~DeviceBandStage() override { stop(); }
  DeviceBandStage(const DeviceBandStage&) = delete;
  DeviceBandStage& operator=(const DeviceBandStage&) = delete;

  [[nodiscard]] StreamShape shape() const override { return shape_; }
  void read(std::uint8_t* dst, std::ptrdiff_t stride, int count) override;
  void rewind() override;
  [[nodiscard]] std::uint64_t held_bytes() const override;
  void add_times(StageTimes& total) const override;

 private:
  /// A strip's result: its row 0 is output row `first_row`; it gives the image's `band`.
  struct StripResult {
    Image image;
    int first_row = 0;
    RowRange band{};
  };
  void start();
  void stop();
  /// The ring thread's next strip: its input rows in an image of the backend's allocator.
  std::optional<BatchInput> next_strip();
  void strip_done(std::size_t index, OpOutput&& output, const StageTimes& times);

  Backend& backend_;
  OpChain segment_;
  RowStage& upstream_;
  StreamShape input_;
  StreamShape shape_;
  int strip_rows_;
  // The ring thread's: the strips it handed over, their bands, and the input rows the next
  // strip shares with the last one.
  std::size_t started_ = 0;
  std::vector<RowRange> bands_;
  Bytes carry_;
  RowRange carried_{};
  int read_to_ = 0;  ///< input rows read from upstream
  std::atomic<bool> stopping_{false};
  std::unique_ptr<BoundedQueue<StripResult>> queue_;
  std::thread thread_;
  mutable std::mutex times_mutex_;
  StageTimes times_;
  // The reader's.
  StripResult current_;
  int next_ = 0;  ///< the next output row read() gives
};

/// Strips in flight between two threads: one being filled, one being used, one waiting.
inline constexpr std::size_t kQueuedStrips = 1;

}  // namespace parfilter::strips
