// BMP rows streamed (row_stream.hpp): the common uncompressed layouts that load_bmp_rows reads
// (24- and 32-bit, 8-bit palettes), a chunk of rows at a time; a bottom-up file's chunk is read
// from where its rows lie. The writer writes encode_bmp's header and each chunk of rows at its
// offset (bottom-up: the image's first rows end the file).
#include <algorithm>
#include <stdexcept>
#include <variant>
#include <vector>

#include "bmp_rows.hpp"
#include "codecs.hpp"
#include "output_file.hpp"
#include "row_stream_codecs.hpp"

namespace parfilter::io {
namespace {

using Bytes = std::vector<std::uint8_t, DefaultInitAllocator<std::uint8_t>>;

class BmpRowReader final : public RowReader {
 public:
  BmpRowReader(std::unique_ptr<InputFile> file, const BmpLayout& layout, const LoadOptions& options)
      : file_(std::move(file)),
        layout_(layout),
        channels_(decoded_channels(layout)),
        decoder_(layout, channels_),
        stride_(bmp_row_stride(layout)),
        checkpoint_(options.checkpoint) {
    chunk_rows_ = std::min(bmp_chunk_rows(stride_), layout.height);
    check_stream_size(file_->name(), layout.width, layout.height, channels_, Depth::u8, chunk_rows_,
                      options.max_bytes);
    if (auto cause = check_bmp_pixel_data(file_->size(), layout)) fail(file_->name(), *cause);
    chunk_.resize(static_cast<std::size_t>(stride_) * static_cast<std::size_t>(chunk_rows_));
  }

  [[nodiscard]] StreamShape shape() const override {
    return {layout_.width, layout_.height, channels_, Depth::u8};
  }

  void read_rows(std::uint8_t* dst, std::ptrdiff_t stride_bytes, int count) override {
    if (count < 0 || next_row_ + count > layout_.height) {
      throw std::logic_error("BmpRowReader: read past the last row");
    }
    read_in_bands(
        dst, stride_bytes, count, chunk_rows_, next_row_, checkpoint_,
        [&](int row, int n, std::uint8_t* band_dst) {
          // Image rows [row, row + n) are stored rows [first, first + n), reversed in a
          // bottom-up file.
          const int first = layout_.top_down ? row : layout_.height - row - n;
          const std::uint64_t offset =
              layout_.pixel_offset + static_cast<std::uint64_t>(first) * stride_;
          // The last stored row's padding may be missing (check_bmp_pixel_data allows it).
          const std::uint64_t wanted =
              std::min(static_cast<std::uint64_t>(n) * stride_, file_->size() - offset);
          const std::uint64_t needed =
              static_cast<std::uint64_t>(n - 1) * stride_ + bmp_row_pixel_bytes(layout_);
          if (file_->read_at(offset, {chunk_.data(), static_cast<std::size_t>(wanted)}) < needed) {
            fail(file_->name(), "truncated file: it shrank while being read");
          }
          for (int r = 0; r < n; ++r) {
            const int stored = layout_.top_down ? r : n - 1 - r;
            decoder_.decode(chunk_.data() + static_cast<std::uint64_t>(stored) * stride_,
                            band_dst + r * stride_bytes);
          }
        });
  }

  void rewind() override { next_row_ = 0; }
  [[nodiscard]] bool seek(int row) override {
    if (row < 0 || row > layout_.height) throw std::logic_error("BmpRowReader: seek past the end");
    next_row_ = row;
    return true;
  }
  [[nodiscard]] std::size_t held_bytes() const override { return chunk_.size(); }

 private:
  std::unique_ptr<InputFile> file_;
  BmpLayout layout_;
  int channels_;
  BmpRowDecoder decoder_;
  std::uint64_t stride_;
  Checkpoint checkpoint_;
  int chunk_rows_ = 1;
  Bytes chunk_;
  int next_row_ = 0;
};

class BmpRowWriter final : public RowWriter {
 public:
  BmpRowWriter(const std::filesystem::path& path, const StreamShape& shape, BmpHead head,
               const SaveOptions& options)
      : file_(path), shape_(shape), head_(std::move(head)), options_(options) {
    file_.write_at(0, head_.bytes);
    chunk_rows_ = std::min(bmp_chunk_rows(head_.row_bytes), shape.height);
    // Zero-filled: the padding of every row stays zero, as encode_bmp writes it.
    chunk_.assign(static_cast<std::size_t>(head_.row_bytes) * static_cast<std::size_t>(chunk_rows_),
                  0);
  }

  void write_rows(const std::uint8_t* src, std::ptrdiff_t stride_bytes, int count) override {
    if (count < 0 || next_row_ + count > shape_.height) {
      throw std::logic_error("BmpRowWriter: write past the last row");
    }
    while (count > 0) {
      const int n = std::min(count, chunk_rows_);
      // Image rows [next_row_, next_row_ + n) are the stored rows ending at height - next_row_.
      for (int r = 0; r < n; ++r) {
        encode_bmp_row(src + r * stride_bytes, shape_.width, shape_.channels,
                       chunk_.data() + static_cast<std::uint64_t>(n - 1 - r) * head_.row_bytes);
      }
      const int first = shape_.height - next_row_ - n;
      file_.write_at(head_.bytes.size() + static_cast<std::uint64_t>(first) * head_.row_bytes,
                     {chunk_.data(), static_cast<std::size_t>(n) * head_.row_bytes});
      if (options_.checkpoint) options_.checkpoint();
      src += n * stride_bytes;
      next_row_ += n;
      count -= n;
    }
  }

  void commit() override {
    if (next_row_ != shape_.height && !handed_out_) {
      throw std::logic_error("BmpRowWriter: commit before the last row");
    }
    file_.commit(options_.sync);
  }

  [[nodiscard]] std::optional<std::filesystem::path> hand_out_rows() override {
    if (next_row_ != 0) throw std::logic_error("BmpRowWriter: rows handed out after some written");
    handed_out_ = true;  // the head is in the file
    return file_.temporary();
  }

 private:
  OutputFile file_;
  StreamShape shape_;
  BmpHead head_;
  SaveOptions options_;
  int chunk_rows_ = 1;
  std::vector<std::uint8_t> chunk_;
  int next_row_ = 0;
  bool handed_out_ = false;
};

void encode_placed_bmp_row(const std::uint8_t* row, const StreamShape& shape, std::uint8_t* out) {
  encode_bmp_row(row, shape.width, shape.channels, out);
}

}  // namespace

PlacedRows placed_bmp_rows(const StreamShape& shape) {
  const BmpHead head = bmp_head(shape.width, shape.height, shape.channels);
  PlacedRows placed;
  placed.header_bytes = head.bytes.size();
  placed.stored_row_bytes = head.row_bytes;
  placed.bottom_up = true;
  placed.height = shape.height;
  placed.encode = &encode_placed_bmp_row;
  return placed;
}

std::unique_ptr<RowReader> open_bmp_row_reader(std::unique_ptr<InputFile> file,
                                               const LoadOptions& options) {
  Bytes head(static_cast<std::size_t>(std::min<std::uint64_t>(file->size(), kBmpHeadBytes)));
  head.resize(file->read_at(0, head));
  const auto parsed = parse_bmp(head);
  const auto* layout = std::get_if<BmpLayout>(&parsed);
  // A head shorter than the file may cut a large palette or header: anything unusual, an
  // error included, is left to load_image and its messages.
  if (layout == nullptr) {
    if (head.size() >= file->size()) fail(file->name(), std::get<std::string>(parsed));
    return nullptr;
  }
  if (!direct_layout(*layout)) return nullptr;
  return std::make_unique<BmpRowReader>(std::move(file), *layout, options);
}

std::unique_ptr<RowWriter> open_bmp_row_writer(const std::filesystem::path& path,
                                               const StreamShape& shape,
                                               const SaveOptions& options) {
  BmpHead head = bmp_head(shape.width, shape.height, shape.channels);
  return std::make_unique<BmpRowWriter>(path, shape, std::move(head), options);
}

}  // namespace parfilter::io
