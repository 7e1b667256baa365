// The window over an upstream stage, and the stage that runs a run of steps on the backend
// strip by strip (the plan of strip_plan.hpp says why each strip's rows are the image's).
#include "strip_stages.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "parfilter/strip_plan.hpp"
#include "row_stream_codecs.hpp"

namespace parfilter::strips {

RowWindow::RowWindow(RowStage& upstream, int capacity)
    : upstream_(upstream),
      capacity_(std::max(capacity, 1)),
      row_bytes_(upstream.shape().row_bytes()) {}

void RowWindow::hold(RowRange need) {
  if (need.size() > capacity_ || need.begin < rows_.begin) {
    throw std::logic_error("RowWindow: rows outside the window's plan");
  }
  if (buffer_.empty()) buffer_.resize(static_cast<std::size_t>(capacity_) * row_bytes_);
  // Rows still needed move to the front; rows between the window and `need` are read over.
  const int keep_from = std::min(need.begin, rows_.end);
  const int kept = rows_.end - keep_from;
  if (kept > 0 && keep_from > rows_.begin) {
    std::memmove(buffer_.data(), row(keep_from), static_cast<std::size_t>(kept) * row_bytes_);
  }
  rows_ = {keep_from, rows_.end};
  while (rows_.end < need.begin) {
    const int skip = std::min(need.begin - rows_.end, capacity_);
    upstream_.read(buffer_.data(), static_cast<std::ptrdiff_t>(row_bytes_), skip);
    rows_ = {rows_.end + skip, rows_.end + skip};
  }
  if (need.end > rows_.end) {
    const int count = need.end - rows_.end;
    upstream_.read(buffer_.data() + static_cast<std::size_t>(rows_.size()) * row_bytes_,
                   static_cast<std::ptrdiff_t>(row_bytes_), count);
    rows_.end = need.end;
  }
}

void RowWindow::rewind() {
  upstream_.rewind();
  rows_ = {};
}

int strip_result_first_row(const OpChain& segment, RowRange need) {
  return op_info(segment.front().op).traits.reach == RowReach::stride ? need.begin / kPoolStride
                                                                      : need.begin;
}

void check_strip_result(const Image& result, const StreamShape& shape, int first_row,
                        RowRange band) {
  if (result.width() != shape.width || result.channels() != shape.channels ||
      first_row > band.begin || first_row + result.height() < band.end) {
    throw std::logic_error("a strip: the backend's result has the wrong shape");
  }
}

BandStage::BandStage(Backend& backend, OpChain segment, RowStage& upstream, int strip_rows,
                     bool follower)
    : backend_(backend),
      segment_(std::move(segment)),
      input_(upstream.shape()),
      shape_(streamed_result_shape(segment_, input_)),
      strip_rows_(std::max(strip_rows, 1)),
      follower_(follower),
      window_(upstream,
              band_input_rows(segment_, input_.height, input_.channels, {0, strip_rows_}).size() +
                  2 * segment_halo(segment_)) {}

void BandStage::read(std::uint8_t* dst, std::ptrdiff_t stride, int count) {
  const std::size_t row_bytes = shape_.row_bytes();
  while (count > 0) {
    if (next_ >= strip_rows_at_.end) run_next_strip();
    const int rows = std::min(count, strip_rows_at_.end - next_);
    if (!follower_) {
      io::copy_rows(strip_.bytes() + static_cast<std::size_t>(next_ - strip_first_) * row_bytes,
                    static_cast<std::ptrdiff_t>(row_bytes), dst, stride, row_bytes, rows);
    }
    dst += static_cast<std::ptrdiff_t>(rows) * stride;
    count -= rows;
    next_ += rows;
  }
}

void BandStage::run_next_strip() {
  const RowRange band{next_, std::min(next_ + strip_rows_, shape_.height)};
  if (band.empty()) throw std::logic_error("BandStage: read past the last row");
  const RowRange need = band_input_rows(segment_, input_.height, input_.channels, band);
  window_.hold(need);
  StageTimes times;
  OpOutput out;
  if (input_.depth == Depth::u8) {
    const ConstImageView slab(window_.row(need.begin), input_.width, need.size(), input_.channels,
                              static_cast<std::ptrdiff_t>(window_.row_bytes()),
                              RowRange{0, need.size()});
    out = backend_.run_chain(segment_, slab, &times);
  } else {
    // run_chain_16 takes an image of its own: the slab's rows copied into one.
    Image slab = Image::uninitialized(input_.width, need.size(), input_.channels, Depth::u16);
    const auto stride = static_cast<std::ptrdiff_t>(window_.row_bytes());
    io::copy_rows(window_.row(need.begin), stride, slab.bytes(), stride, window_.row_bytes(),
                  need.size());
    out = backend_.run_chain_16(segment_, slab, &times);
  }
  add_stage_times(times_, times);
  strip_first_ = strip_result_first_row(segment_, need);
  strip_ = std::move(out.image);
  strip_rows_at_ = band;
  if (follower_) return;  // the root keeps the result
  check_strip_result(strip_, shape_, strip_first_, band);
}

void BandStage::rewind() {
  window_.rewind();
  next_ = 0;
  strip_rows_at_ = {};
  strip_ = Image();
}

std::uint64_t BandStage::held_bytes() const {
  // The window, the backend's copy of a 16-bit slab, and the strip's result with its halo.
  const std::uint64_t window = window_.bytes();
  const std::uint64_t slab_copy = input_.depth == Depth::u16 ? window : 0;
  const auto result =
      static_cast<std::uint64_t>(strip_rows_ + 2 * segment_halo(segment_)) * shape_.row_bytes();
  // A chain's intermediate images: one more result-sized image per step.
  return window + slab_copy + result * segment_.size();
}

int strip_rows_for(const StreamShape& shape, int halo, const StripOptions& options) {
  if (options.strip_rows > 0) return options.strip_rows;
  const std::size_t row_bytes = std::max<std::size_t>(shape.row_bytes(), 1);
  const int target = static_cast<int>(std::max<std::size_t>(options.strip_bytes / row_bytes, 1));
  return std::min(std::max({target, 2 * halo, options.threads}), std::max(shape.height, 1));
}

}  // namespace parfilter::strips
