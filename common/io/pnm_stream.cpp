// Binary PNM (P5/P6) rows streamed (row_stream.hpp): the header parsed as decode_pnm_file
// parses it, then the samples read and converted a band of rows at a time; the writer writes
// encode_pnm's header and rows.
#include <algorithm>
#include <stdexcept>
#include <vector>

#include "codecs.hpp"
#include "output_file.hpp"
#include "pnm_format.hpp"
#include "row_stream_codecs.hpp"

namespace parfilter::io {
namespace {

using Bytes = std::vector<std::uint8_t, DefaultInitAllocator<std::uint8_t>>;

/// The first bytes read for the header; a longer one (comments) is read again, twice as long.
constexpr std::size_t kHeaderPrefixBytes = std::size_t{4} << 10;
constexpr std::string_view kTruncatedHeader = "truncated PNM header";

PnmHeader read_pnm_header(const InputFile& file) {
  Bytes prefix;
  std::size_t wanted = kHeaderPrefixBytes;
  for (;;) {
    prefix.resize(static_cast<std::size_t>(std::min<std::uint64_t>(wanted, file.size())));
    prefix.resize(file.read_at(0, prefix));
    PnmHeader header;
    const auto cause = parse_pnm_header(prefix, header);
    if (!cause) return header;
    if (*cause != kTruncatedHeader || prefix.size() < wanted) fail(file.name(), *cause);
    wanted *= 2;
  }
}

class PnmRowReader final : public RowReader {
 public:
  PnmRowReader(std::unique_ptr<InputFile> file, const LoadOptions& options)
      : file_(std::move(file)), header_(read_pnm_header(*file_)), checkpoint_(options.checkpoint) {
    const std::string& name = file_->name();
    const Depth depth = header_.bytes_per_sample == 2 ? Depth::u16 : Depth::u8;
    check_stream_size(name, static_cast<std::int64_t>(header_.width),
                      static_cast<std::int64_t>(header_.height), header_.channels, depth, 1,
                      options.max_bytes);
    shape_ = {static_cast<int>(header_.width), static_cast<int>(header_.height), header_.channels,
              depth};
    band_rows_ = static_cast<int>(std::clamp<std::size_t>(kStreamBandBytes / shape_.row_bytes(), 1,
                                                          static_cast<std::size_t>(shape_.height)));
    check_stream_size(name, shape_.width, shape_.height, shape_.channels, depth, band_rows_,
                      options.max_bytes);
    if (auto cause = check_pnm_data(header_, file_->size())) fail(name, *cause);
    band_.resize(shape_.row_bytes() * static_cast<std::size_t>(band_rows_));
  }

  [[nodiscard]] StreamShape shape() const override { return shape_; }

  void read_rows(std::uint8_t* dst, std::ptrdiff_t stride_bytes, int count) override {
    if (count < 0 || next_row_ + count > shape_.height) {
      throw std::logic_error("PnmRowReader: read past the last row");
    }
    const std::size_t row_bytes = shape_.row_bytes();  // the same in the file and in memory
    const auto row_samples = static_cast<std::size_t>(shape_.width) * shape_.channels;
    read_in_bands(
        dst, stride_bytes, count, band_rows_, next_row_, checkpoint_,
        [&](int row, int n, std::uint8_t* band_dst) {
          const std::span<std::uint8_t> band(band_.data(), row_bytes * static_cast<std::size_t>(n));
          const std::uint64_t at =
              header_.data_offset + static_cast<std::uint64_t>(row) * row_bytes;
          if (file_->read_at(at, band) != band.size()) {
            fail(file_->name(),
                 "truncated file: the PNM pixel data ends before row " + std::to_string(row + n));
          }
          for (int r = 0; r < n; ++r) {
            convert_pnm_samples(band.data() + static_cast<std::size_t>(r) * row_bytes, row_samples,
                                header_, band_dst + r * stride_bytes);
          }
        });
  }

  void rewind() override { next_row_ = 0; }
  [[nodiscard]] bool seek(int row) override {
    if (row < 0 || row > shape_.height) throw std::logic_error("PnmRowReader: seek past the end");
    next_row_ = row;
    return true;
  }
  [[nodiscard]] std::size_t held_bytes() const override { return band_.size(); }

 private:
  std::unique_ptr<InputFile> file_;
  PnmHeader header_;
  Checkpoint checkpoint_;
  StreamShape shape_;
  int band_rows_ = 1;
  Bytes band_;
  int next_row_ = 0;
};

void encode_pnm_row(const std::uint8_t* row, const StreamShape& shape, std::uint8_t* out) {
  if (shape.depth == Depth::u8) {
    std::copy_n(row, shape.row_bytes(), out);
  } else {
    pnm_big_endian_row(reinterpret_cast<const std::uint16_t*>(row),
                       static_cast<std::ptrdiff_t>(shape.width) * shape.channels, out);
  }
}

class PnmRowWriter final : public RowWriter {
 public:
  PnmRowWriter(const std::filesystem::path& path, const StreamShape& shape,
               const SaveOptions& options)
      : file_(path), shape_(shape), options_(options) {
    const std::string header =
        pnm_header_text(shape.width, shape.height, shape.channels, shape.depth);
    file_.write(std::span(reinterpret_cast<const std::uint8_t*>(header.data()), header.size()));
    band_.reserve(std::max(kStreamBandBytes, shape.row_bytes()));
  }

  void write_rows(const std::uint8_t* src, std::ptrdiff_t stride_bytes, int count) override {
    if (count < 0 || next_row_ + count > shape_.height) {
      throw std::logic_error("PnmRowWriter: write past the last row");
    }
    const std::size_t row_bytes = shape_.row_bytes();
    for (int r = 0; r < count; ++r, ++next_row_) {
      if (band_.size() + row_bytes > band_.capacity()) flush();
      const std::size_t at = band_.size();
      band_.resize(at + row_bytes);
      encode_pnm_row(src + r * stride_bytes, shape_, band_.data() + at);
    }
  }

  void commit() override {
    if (next_row_ != shape_.height && !handed_out_) {
      throw std::logic_error("PnmRowWriter: commit before the last row");
    }
    flush();
    file_.commit(options_.sync);
  }

  [[nodiscard]] std::optional<std::filesystem::path> hand_out_rows() override {
    if (next_row_ != 0) throw std::logic_error("PnmRowWriter: rows handed out after some written");
    handed_out_ = true;  // the header is in the file
    return file_.temporary();
  }

 private:
  void flush() {
    file_.write(band_);
    band_.clear();
    if (options_.checkpoint) options_.checkpoint();
  }

  OutputFile file_;
  StreamShape shape_;
  SaveOptions options_;
  Bytes band_;
  int next_row_ = 0;
  bool handed_out_ = false;
};

}  // namespace

PlacedRows placed_pnm_rows(const StreamShape& shape) {
  PlacedRows placed;
  placed.header_bytes =
      pnm_header_text(shape.width, shape.height, shape.channels, shape.depth).size();
  placed.stored_row_bytes = shape.row_bytes();
  placed.height = shape.height;
  placed.encode = &encode_pnm_row;
  return placed;
}

std::unique_ptr<RowReader> open_pnm_row_reader(std::unique_ptr<InputFile> file,
                                               const LoadOptions& options) {
  return std::make_unique<PnmRowReader>(std::move(file), options);
}

std::unique_ptr<RowWriter> open_pnm_row_writer(const std::filesystem::path& path,
                                               const StreamShape& shape,
                                               const SaveOptions& options) {
  check_pnm_channels(shape.channels, path.string());
  return std::make_unique<PnmRowWriter>(path, shape, options);
}

}  // namespace parfilter::io
