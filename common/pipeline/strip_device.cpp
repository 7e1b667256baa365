// A band segment's strips on a device backend's in-flight ring (strip_threads.hpp). The ring
// thread reads each strip's input rows straight into an image of the backend's host allocator
// (page-locked where it can), so that its upload runs at bus speed; the rows that consecutive
// strips share (the halo) are carried over in a small buffer of their own, as the backend may
// download a result into its input's buffer.
#include <algorithm>
#include <stdexcept>

#include "parfilter/strip_plan.hpp"
#include "row_stream_codecs.hpp"
#include "strip_threads.hpp"

namespace parfilter::strips {

DeviceBandStage::DeviceBandStage(Backend& backend, OpChain segment, RowStage& upstream,
                                 int strip_rows)
    : backend_(backend),
      segment_(std::move(segment)),
      upstream_(upstream),
      input_(upstream.shape()),
      shape_(streamed_result_shape(segment_, input_)),
      strip_rows_(std::max(strip_rows, 1)) {}

std::optional<BatchInput> DeviceBandStage::next_strip() {
  const int band_begin = started_ == 0 ? 0 : bands_.back().end;
  if (stopping_ || band_begin >= shape_.height) return std::nullopt;
  const RowRange band{band_begin, std::min(band_begin + strip_rows_, shape_.height)};
  const RowRange need = band_input_rows(segment_, input_.height, input_.channels, band);
  Image image = Image::uninitialized(input_.width, need.size(), input_.channels, input_.depth,
                                     backend_.host_allocator());
  const std::size_t row_bytes = input_.row_bytes();
  const auto stride = static_cast<std::ptrdiff_t>(row_bytes);
  const auto at = [&](int y) { return image.bytes() + static_cast<std::size_t>(y) * row_bytes; };
  // Rows the last strip read too come from the carry; rows past them from upstream, after
  // reading over any the plan skips (into the image, whose rows are written again below).
  int y = need.begin;
  if (y < read_to_) {
    if (y < carried_.begin || read_to_ > carried_.end) {
      throw std::logic_error("DeviceBandStage: rows outside the strips' plan");
    }
    io::copy_rows(carry_.data() + static_cast<std::size_t>(y - carried_.begin) * row_bytes, stride,
                  at(0), stride, row_bytes, read_to_ - y);
    y = read_to_;
  }
  while (read_to_ < need.begin) {
    const int skip = std::min(need.begin - read_to_, need.size());
    upstream_.read(at(0), stride, skip);
    read_to_ += skip;
  }
  upstream_.read(at(y - need.begin), stride, need.end - y);
  read_to_ = need.end;
  // Keep the rows the next strip shares with this one.
  carried_ = {need.end, need.end};
  if (band.end < shape_.height) {
    const RowRange next_band{band.end, std::min(band.end + strip_rows_, shape_.height)};
    const int shared_from = std::max(
        band_input_rows(segment_, input_.height, input_.channels, next_band).begin, need.begin);
    carried_ = {std::min(shared_from, need.end), need.end};
    carry_.resize(static_cast<std::size_t>(carried_.size()) * row_bytes);
    io::copy_rows(at(carried_.begin - need.begin), stride, carry_.data(), stride, row_bytes,
                  carried_.size());
  }
  bands_.push_back(band);
  return BatchInput{started_++, std::move(image)};
}

void DeviceBandStage::strip_done(std::size_t index, OpOutput&& output, const StageTimes& times) {
  {
    const std::lock_guard lock(times_mutex_);
    add_stage_times(times_, times);
  }
  const RowRange band = bands_.at(index);
  const RowRange need = band_input_rows(segment_, input_.height, input_.channels, band);
  StripResult result{std::move(output.image), strip_result_first_row(segment_, need), band};
  check_strip_result(result.image, shape_, result.first_row, band);
  (void)queue_->push(std::move(result));  // false: the reader stopped
}

void DeviceBandStage::start() {
  queue_ = std::make_unique<BoundedQueue<StripResult>>(kQueuedStrips);
  thread_ = std::thread([this, queue = queue_.get()] {
    BatchCallbacks callbacks;
    callbacks.next = [this] { return next_strip(); };
    callbacks.done = [this](std::size_t index, OpOutput&& output, const StageTimes& times) {
      strip_done(index, std::move(output), times);
    };
    callbacks.failed = [this, queue](std::size_t /*index*/, std::exception_ptr failure) {
      stopping_ = true;  // no strip after a failed one
      queue->close(std::move(failure));
    };
    try {
      backend_.run_batch(segment_, callbacks);
      queue->close();
    } catch (...) {
      queue->close(std::current_exception());
    }
  });
}

void DeviceBandStage::stop() {
  stopping_ = true;
  if (queue_) queue_->close();
  if (thread_.joinable()) thread_.join();
  queue_.reset();
  stopping_ = false;
  started_ = 0;
  bands_.clear();
  carried_ = {};
  read_to_ = 0;
  current_ = {};
  next_ = 0;
}

void DeviceBandStage::read(std::uint8_t* dst, std::ptrdiff_t stride, int count) {
  if (!queue_) start();
  const std::size_t row_bytes = shape_.row_bytes();
  while (count > 0) {
    if (next_ >= current_.band.end) {
      current_ = {};  // its buffer goes back to the backend's pool before the next one comes
      if (!queue_->pop(current_)) throw std::logic_error("DeviceBandStage: read past the end");
    }
    const int rows = std::min(count, current_.band.end - next_);
    io::copy_rows(
        current_.image.bytes() + static_cast<std::size_t>(next_ - current_.first_row) * row_bytes,
        static_cast<std::ptrdiff_t>(row_bytes), dst, stride, row_bytes, rows);
    dst += static_cast<std::ptrdiff_t>(rows) * stride;
    count -= rows;
    next_ += rows;
  }
}

void DeviceBandStage::rewind() {
  stop();
  upstream_.rewind();
}

std::uint64_t DeviceBandStage::held_bytes() const {
  const auto halo = static_cast<std::uint64_t>(2 * segment_halo(segment_));
  const std::uint64_t input =
      (band_input_rows(segment_, input_.height, input_.channels, {0, strip_rows_}).size() + halo) *
      input_.row_bytes();
  const std::uint64_t result = (strip_rows_ + halo) * shape_.row_bytes();
  // Each strip in flight holds its input and its result; the queue, the strip waiting to
  // enter it and the one being read hold results; and the carry.
  return backend_.batch_depth() * (input + result) + (kQueuedStrips + 2) * result + input;
}

void DeviceBandStage::add_times(StageTimes& total) const {
  const std::lock_guard lock(times_mutex_);
  add_stage_times(total, times_);
}

}  // namespace parfilter::strips
