#include "strip_threads.hpp"

#include <algorithm>
#include <stdexcept>

#include "row_stream_codecs.hpp"

namespace parfilter::strips {

Bytes StripBuffers::take(std::size_t bytes) {
  Bytes buffer;
  {
    const std::lock_guard lock(mutex_);
    if (!free_.empty()) {
      buffer = std::move(free_.back());
      free_.pop_back();
    }
  }
  buffer.resize(bytes);
  return buffer;
}

void StripBuffers::give(Bytes buffer) {
  const std::lock_guard lock(mutex_);
  free_.push_back(std::move(buffer));
}

PrefetchStage::PrefetchStage(RowStage& upstream, int strip_rows)
    : upstream_(upstream), strip_rows_(std::max(strip_rows, 1)) {}

void PrefetchStage::start() {
  queue_ = std::make_unique<StripQueue>(kQueuedStrips);
  thread_ = std::thread([this, queue = queue_.get()] {
    const StreamShape shape = upstream_.shape();
    const std::size_t row_bytes = shape.row_bytes();
    try {
      for (int row = 0; row < shape.height; row += strip_rows_) {
        RowStrip strip;
        strip.count = std::min(strip_rows_, shape.height - row);
        strip.rows = buffers_.take(static_cast<std::size_t>(strip.count) * row_bytes);
        upstream_.read(strip.rows.data(), static_cast<std::ptrdiff_t>(row_bytes), strip.count);
        if (!queue->push(std::move(strip))) return;  // stopped
      }
      queue->close();
    } catch (...) {
      queue->close(std::current_exception());
    }
  });
}

void PrefetchStage::stop() {
  if (queue_) queue_->close();
  if (thread_.joinable()) thread_.join();
  queue_.reset();
  current_ = {};
  used_ = 0;
}

void PrefetchStage::read(std::uint8_t* dst, std::ptrdiff_t stride, int count) {
  if (!queue_) start();
  const std::size_t row_bytes = upstream_.shape().row_bytes();
  while (count > 0) {
    if (used_ == current_.count) {
      if (!current_.rows.empty()) buffers_.give(std::move(current_.rows));
      if (!queue_->pop(current_)) throw std::logic_error("PrefetchStage: read past the end");
      used_ = 0;
    }
    const int rows = std::min(count, current_.count - used_);
    io::copy_rows(current_.rows.data() + static_cast<std::size_t>(used_) * row_bytes,
                  static_cast<std::ptrdiff_t>(row_bytes), dst, stride, row_bytes, rows);
    dst += static_cast<std::ptrdiff_t>(rows) * stride;
    used_ += rows;
    count -= rows;
  }
}

void PrefetchStage::rewind() {
  stop();
  upstream_.rewind();
}

std::uint64_t PrefetchStage::held_bytes() const {
  // The queued strips, the one being read into, and the one being read from.
  return (kQueuedStrips + 2) * static_cast<std::uint64_t>(strip_rows_) *
             upstream_.shape().row_bytes() +
         upstream_.held_bytes();
}

WriterThread::WriterThread(RowWriter& writer, std::size_t row_bytes)
    : writer_(writer), row_bytes_(row_bytes), queue_(kQueuedStrips) {
  thread_ = std::thread([this] {
    try {
      RowStrip strip;
      while (queue_.pop(strip)) {
        writer_.write_rows(strip.rows.data(), static_cast<std::ptrdiff_t>(row_bytes_), strip.count);
      }
    } catch (...) {
      {
        const std::lock_guard lock(failure_mutex_);
        failure_ = std::current_exception();
      }
      queue_.close();  // the producer's next push fails, and it rethrows this
    }
  });
}

WriterThread::~WriterThread() {
  queue_.close();
  if (thread_.joinable()) thread_.join();
}

void WriterThread::write(RowStrip strip) {
  if (!queue_.push(std::move(strip))) finish();
}

void WriterThread::finish() {
  queue_.close();
  if (thread_.joinable()) thread_.join();
  const std::lock_guard lock(failure_mutex_);
  if (failure_) std::rethrow_exception(failure_);
}

}  // namespace parfilter::strips
