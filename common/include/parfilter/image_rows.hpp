// An image in memory as a RowReader, and a RowWriter into one: a streamed run (strip_pipeline.hpp)
// on an image that is already loaded, as the tests and the Python module run it.
#pragma once

#include "parfilter/image.hpp"
#include "parfilter/row_stream.hpp"

namespace parfilter {

/// The rows of `image`, which must outlive the reader.
class ImageRowReader final : public RowReader {
 public:
  explicit ImageRowReader(const Image& image) : image_(image) {}
  [[nodiscard]] StreamShape shape() const override;
  void read_rows(std::uint8_t* dst, std::ptrdiff_t stride_bytes, int count) override;
  void rewind() override { next_ = 0; }
  [[nodiscard]] std::size_t held_bytes() const override { return 0; }

 private:
  const Image& image_;
  int next_ = 0;
};

/// Rows written into an image of `shape`, complete once commit() is called.
class ImageRowWriter final : public RowWriter {
 public:
  explicit ImageRowWriter(const StreamShape& shape);
  void write_rows(const std::uint8_t* src, std::ptrdiff_t stride_bytes, int count) override;
  void commit() override;
  /// The image, once committed.
  [[nodiscard]] Image& image() { return image_; }

 private:
  Image image_;
  int next_ = 0;
};

}  // namespace parfilter
