// Internal: a streamed run's codecs on threads of their own, so that decoding strip k+1 and
// encoding strip k-1 overlap the compute on strip k (libvips overlaps its loaders and savers
// with its workers the same way). Each hands strips through a queue of a few buffers, so what
// it holds stays bounded. Not installed.
#pragma once

#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "strip_stages.hpp"

namespace parfilter::strips {

/// Strips of rows with their row count, handed from one thread to another, at most `slots`
/// at a time; close() ends it, fail() ends it with the producer's error.
class StripQueue {
 public:
  struct Strip {
    Bytes rows;
    int count = 0;
  };
  explicit StripQueue(std::size_t slots) : slots_(slots) {}
  /// Waits for room; false when the queue was closed meanwhile.
  bool push(Strip strip);
  /// Waits for a strip; false at the end (rethrows the producer's failure).
  bool pop(Strip& strip);
  /// No more strips: pop() gives false once the queue is empty, push() false at once.
  void close(std::exception_ptr failure = nullptr);

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Strip> strips_;
  std::size_t slots_;
  bool closed_ = false;
  std::exception_ptr failure_;
};

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
  StripQueue::Strip current_;
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
  void write(StripQueue::Strip strip);
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

/// Strips in flight between two threads: one being filled, one being used, one waiting.
inline constexpr std::size_t kQueuedStrips = 1;

}  // namespace parfilter::strips
