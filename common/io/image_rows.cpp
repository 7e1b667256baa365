#include "parfilter/image_rows.hpp"

#include <stdexcept>

#include "row_stream_codecs.hpp"

namespace parfilter {
namespace {

std::size_t row_bytes_of(const Image& image) {
  return static_cast<std::size_t>(image.stride()) * bytes_per_sample(image.depth());
}

}  // namespace

StreamShape ImageRowReader::shape() const {
  return {image_.width(), image_.height(), image_.channels(), image_.depth()};
}

void ImageRowReader::read_rows(std::uint8_t* dst, std::ptrdiff_t stride_bytes, int count) {
  if (count < 0 || next_ + count > image_.height()) {
    throw std::logic_error("ImageRowReader: read past the last row");
  }
  const std::size_t bytes = row_bytes_of(image_);
  io::copy_rows(image_.bytes() + static_cast<std::size_t>(next_) * bytes,
                static_cast<std::ptrdiff_t>(bytes), dst, stride_bytes, bytes, count);
  next_ += count;
}

ImageRowWriter::ImageRowWriter(const StreamShape& shape)
    : image_(Image::uninitialized(shape.width, shape.height, shape.channels, shape.depth)) {}

void ImageRowWriter::write_rows(const std::uint8_t* src, std::ptrdiff_t stride_bytes, int count) {
  if (count < 0 || next_ + count > image_.height()) {
    throw std::logic_error("ImageRowWriter: written past the last row");
  }
  const std::size_t bytes = row_bytes_of(image_);
  io::copy_rows(src, stride_bytes, image_.bytes() + static_cast<std::size_t>(next_) * bytes,
                static_cast<std::ptrdiff_t>(bytes), bytes, count);
  next_ += count;
}

void ImageRowWriter::commit() {
  if (next_ != image_.height()) throw std::logic_error("ImageRowWriter: rows missing");
}

}  // namespace parfilter
