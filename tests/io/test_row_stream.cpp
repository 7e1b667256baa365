// Rows streamed from and to files (row_stream.hpp): for every format read and written in rows,
// every depth and channel count and shapes from one pixel to several TIFF strips and PNG
// bands, streamed reads give load_image's samples and streamed writes give encode_image's
// bytes, whatever the chunks the rows come in. Also: every TIFF layout libtiff writes (tiles,
// planes), truncated files, writers abandoned without commit, interlaced PNGs.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "codecs.hpp"
#include "parfilter/error.hpp"
#include "parfilter/image_io.hpp"
#include "parfilter/row_stream.hpp"
#include "support/image_files.hpp"
#include "support/test_images.hpp"
#include "support/tiff_files.hpp"

namespace parfilter {
namespace {

namespace fs = std::filesystem;
using test::files::Bytes;

struct Shape {
  int width;
  int height;
};
/// One pixel, a column, a row, odd sides; the last spans several TIFF strips (256 KiB) and PNG
/// bands (512 KiB) at every depth and channel count.
constexpr std::array kShapes = {Shape{1, 1}, Shape{1, 9}, Shape{9, 1}, Shape{37, 23}};
constexpr int kWideWidth = 300;
constexpr std::size_t kWideBytes = std::size_t{560} << 10;
/// Rows per read_rows call; 0 means all rows at once.
constexpr std::array kReadChunks = {1, 3, 0};
/// Rows per write_rows call, in turn.
constexpr std::array kWriteChunks = {1, 2, 5, 13, 64};

/// The file's bytes (one read: test::files::read_bytes goes byte by byte, slow in Debug).
Bytes file_bytes(const fs::path& path) {
  Bytes bytes(fs::file_size(path));
  std::ifstream in(path, std::ios::binary);
  in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  return bytes;
}

/// same_image, with a fast path for the equal images of every passing case.
::testing::AssertionResult same_samples(const Image& expected, const Image& actual) {
  const bool equal =
      expected.width() == actual.width() && expected.height() == actual.height() &&
      expected.channels() == actual.channels() && expected.depth() == actual.depth() &&
      std::equal(expected.bytes(), expected.bytes() + expected.size_bytes(), actual.bytes());
  return equal ? ::testing::AssertionSuccess() : test::same_image(expected, actual);
}

StreamShape shape_of(const Image& image) {
  return {image.width(), image.height(), image.channels(), image.depth()};
}

Image test_image(int width, int height, int channels, Depth depth) {
  const auto seed = static_cast<std::uint32_t>(width * 31 + height + channels);
  return depth == Depth::u8 ? test::synthetic_image(width, height, channels, seed)
                            : test::synthetic_image_16(width, height, channels, seed);
}

std::vector<Image> images_at(int channels, Depth depth) {
  std::vector<Image> images;
  for (const Shape& shape : kShapes) {
    images.push_back(test_image(shape.width, shape.height, channels, depth));
  }
  const std::size_t row_bytes =
      static_cast<std::size_t>(kWideWidth) * channels * bytes_per_sample(depth);
  images.push_back(
      test_image(kWideWidth, static_cast<int>(kWideBytes / row_bytes), channels, depth));
  return images;
}

/// Every row of `path` through a row reader, `chunk` rows a call (0: all).
Image read_streamed(const fs::path& path, int chunk) {
  const auto reader = open_row_reader(path);
  if (!reader) return {};
  const StreamShape shape = reader->shape();
  Image image(shape.width, shape.height, shape.channels, shape.depth);
  const auto stride = static_cast<std::ptrdiff_t>(shape.row_bytes());
  const int step = chunk == 0 ? shape.height : chunk;
  for (int y = 0; y < shape.height; y += step) {
    reader->read_rows(image.bytes() + y * stride, stride, std::min(step, shape.height - y));
  }
  return image;
}

void write_streamed(const Image& image, const fs::path& path, const SaveOptions& options) {
  const auto writer = open_row_writer(path, shape_of(image), options);
  ASSERT_TRUE(writer);
  const auto stride = static_cast<std::ptrdiff_t>(shape_of(image).row_bytes());
  std::size_t turn = 0;
  for (int y = 0; y < image.height();) {
    const int count = std::min(kWriteChunks[turn++ % kWriteChunks.size()], image.height() - y);
    writer->write_rows(image.bytes() + y * stride, stride, count);
    y += count;
  }
  writer->commit();
}

struct Variant {
  std::string extension;
  SaveOptions options;
  std::string name;
};

std::vector<Variant> variants(bool rgba, bool sixteen_bits) {
  std::vector<Variant> out;
  if (io::have_tiff()) {
    for (const auto& [compression, name] :
         {std::pair{TiffCompression::none, "none"}, std::pair{TiffCompression::lzw, "lzw"},
          std::pair{TiffCompression::deflate, "deflate"},
          std::pair{TiffCompression::packbits, "packbits"}}) {
      SaveOptions options;
      options.tiff_compression = compression;
      out.push_back({".tif", options, std::string("tiff ") + name});
    }
  }
  if (io::have_fast_png_decoder() && io::have_fast_png_encoder()) {
    for (const int level : {0, 1, 6}) {
      SaveOptions options;
      options.png_level = level;
      out.push_back({".png", options, "png level " + std::to_string(level)});
    }
  }
  if (!rgba) out.push_back({".pgm", SaveOptions{}, "pnm"});
  if (!sixteen_bits) out.push_back({".bmp", SaveOptions{}, "bmp"});
  if (!sixteen_bits && io::have_fast_jpeg()) {
    for (const int quality : {kDefaultJpegQuality, 50}) {
      SaveOptions options;
      options.jpeg_quality = quality;
      out.push_back({".jpg", options, "jpeg quality " + std::to_string(quality)});
    }
  }
  return out;
}

TEST(RowStream, WritesEncodeImageBytesAndReadsLoadImageSamples) {
  test::TempDir dir;
  for (const Depth depth : {Depth::u8, Depth::u16}) {
    for (const int channels : {1, 3, 4}) {
      for (const Image& image : images_at(channels, depth)) {
        for (const Variant& variant : variants(channels == 4, depth == Depth::u16)) {
          SCOPED_TRACE(variant.name + ", " + std::to_string(image.width()) + "x" +
                       std::to_string(image.height()) + "x" + std::to_string(channels) + " at " +
                       std::to_string(bits_of(depth)) + " bits");
          const fs::path path = dir / ("out" + variant.extension);
          write_streamed(image, path, variant.options);
          const Bytes expected =
              encode_image(image, format_for_path(path), variant.options, path.string());
          ASSERT_TRUE(file_bytes(path) == expected);
          const Image loaded = load_image(path);
          for (const int chunk : kReadChunks) {
            ASSERT_TRUE(same_samples(loaded, read_streamed(path, chunk))) << chunk;
          }
        }
      }
    }
  }
}

TEST(RowStream, ReadsEveryTiffLayout) {
  if (!io::have_tiff()) GTEST_SKIP() << "no libtiff in this build";
  test::TempDir dir;
  for (const test::TiffLayout& layout : test::tiff_layouts()) {
    for (const Depth depth : {Depth::u8, Depth::u16}) {
      for (const int channels : {1, 3, 4}) {
        if (layout.gray_alpha && channels != 4) continue;
        // A multi-page file's notice on stderr (both readers give it) once is enough.
        if (layout.pages > 1 && (channels != 1 || depth != Depth::u8)) continue;
        SCOPED_TRACE(layout.name + ", " + std::to_string(channels) + " channels");
        const Image image = test_image(37, 23, channels, depth);
        const fs::path path = dir / "layout.tif";
        ASSERT_TRUE(test::write_tiff(path, image, layout));
        const Image loaded = load_image(path);
        for (const int chunk : kReadChunks) {
          ASSERT_TRUE(same_samples(loaded, read_streamed(path, chunk))) << chunk;
        }
      }
    }
  }
}

TEST(RowStream, ReadsBmpsOfSeveralChunksAndTopDownOnes) {
  test::TempDir dir;
  // Over 1 MiB of rows: several of the reader's chunks, each read from the end of the file up.
  const Image image = test_image(kWideWidth, 1300, 3, Depth::u8);
  save_image(image, dir / "tall.bmp");
  for (const int chunk : kReadChunks) {
    ASSERT_TRUE(same_samples(image, read_streamed(dir / "tall.bmp", chunk))) << chunk;
  }
  // 5x3 24-bit, top-down (negative height): rows of 15 bytes padded to 16.
  constexpr int kWidth = 5;
  constexpr int kHeight = 3;
  constexpr std::size_t kStride = 16;
  Bytes pixels(kStride * kHeight, 0);
  for (std::size_t i = 0; i < pixels.size(); ++i) {
    if (i % kStride < kWidth * 3) pixels[i] = static_cast<std::uint8_t>(i * 7);
  }
  test::files::write_bytes(dir / "top.bmp", test::files::make_bmp(kWidth, -kHeight, pixels));
  const Image loaded = load_image(dir / "top.bmp");
  for (const int chunk : kReadChunks) {
    ASSERT_TRUE(same_samples(loaded, read_streamed(dir / "top.bmp", chunk))) << chunk;
  }
}

TEST(RowStream, RewindReadsTheRowsAgain) {
  test::TempDir dir;
  for (const std::string extension : {".tif", ".png", ".ppm", ".bmp", ".jpg"}) {
    if (extension == ".tif" && !io::have_tiff()) continue;
    if (extension == ".jpg" && !io::have_fast_jpeg()) continue;
    const Image image = test_image(37, 23, 3, Depth::u8);
    const fs::path path = dir / ("image" + extension);
    save_image(image, path);
    const auto reader = open_row_reader(path);
    ASSERT_TRUE(reader) << extension;
    const auto stride = static_cast<std::ptrdiff_t>(reader->shape().row_bytes());
    Image first(37, 23, 3);
    reader->read_rows(first.bytes(), stride, 10);
    reader->rewind();
    Image again(37, 23, 3);
    reader->read_rows(again.bytes(), stride, 23);
    EXPECT_TRUE(test::same_image(load_image(path), again)) << extension;
    EXPECT_GT(reader->held_bytes(), 0U);
  }
}

bool one_line(const std::string& message) { return message.find('\n') == std::string::npos; }

TEST(RowStream, TruncatedFilesAreInputErrors) {
  test::TempDir dir;
  for (const std::string extension : {".tif", ".png", ".ppm", ".bmp", ".jpg"}) {
    if (extension == ".tif" && !io::have_tiff()) continue;
    if (extension == ".jpg" && !io::have_fast_jpeg()) continue;
    const Image image = test::noise_image(kWideWidth, 200, 3, 7);
    const fs::path path = dir / ("cut" + extension);
    save_image(image, path);
    Bytes bytes = test::files::read_bytes(path);
    bytes.resize(bytes.size() / 2);
    test::files::write_bytes(path, bytes);
    try {
      (void)read_streamed(path, 3);
      ADD_FAILURE() << extension << ": a truncated file was read";
    } catch (const InputError& e) {
      const std::string message = e.what();
      EXPECT_TRUE(one_line(message)) << message;
      EXPECT_EQ(message.rfind(path.string() + ": ", 0), 0U) << message;
    }
  }
}

TEST(RowStream, AWriterWithoutCommitLeavesNoFile) {
  test::TempDir dir;
  const Image image = test_image(37, 23, 3, Depth::u8);
  for (const std::string extension : {".tif", ".png", ".ppm", ".bmp", ".jpg"}) {
    if (extension == ".tif" && !io::have_tiff()) continue;
    if (extension == ".jpg" && !io::have_fast_jpeg()) continue;
    const fs::path fresh = dir / ("fresh" + extension);
    const fs::path existing = dir / ("existing" + extension);
    test::files::write_text(existing, "old");
    for (const fs::path& path : {fresh, existing}) {
      const auto writer = open_row_writer(path, shape_of(image));
      ASSERT_TRUE(writer);
      writer->write_rows(image.bytes(), static_cast<std::ptrdiff_t>(shape_of(image).row_bytes()),
                         image.height() / 2);
    }
    EXPECT_FALSE(fs::exists(fresh)) << extension;
    const Bytes old = test::files::read_bytes(existing);
    EXPECT_EQ(std::string(old.begin(), old.end()), "old") << extension;
    EXPECT_EQ(dir.files().size(), 1U) << extension;  // the existing file, no temporary
    fs::remove(existing);
  }
}

TEST(RowStream, InterlacedPngAndTgaAreNotStreamed) {
  test::TempDir dir;
  const Image image = test_image(9, 7, 3, Depth::u8);
  save_image(image, dir / "image.png");
  Bytes png = test::files::read_bytes(dir / "image.png");
  // IHDR's interlace byte, then its CRC: signature 8, length and type 8, 12 bytes before it.
  constexpr std::size_t kInterlaceAt = 8 + 8 + 12;
  constexpr std::size_t kIhdrTypeAt = 12;
  constexpr std::size_t kIhdrTypeAndDataBytes = 4 + 13;
  png[kInterlaceAt] = 1;
  const std::uint32_t crc = test::files::crc32(
      Bytes(png.begin() + kIhdrTypeAt, png.begin() + kIhdrTypeAt + kIhdrTypeAndDataBytes));
  for (int i = 0; i < 4; ++i) {
    png[kIhdrTypeAt + kIhdrTypeAndDataBytes + static_cast<std::size_t>(i)] =
        static_cast<std::uint8_t>(crc >> (24 - 8 * i));
  }
  test::files::write_bytes(dir / "interlaced.png", png);
  if (io::have_fast_png_decoder()) {
    EXPECT_FALSE(open_row_reader(dir / "interlaced.png"));
  }
  save_image(image, dir / "image.tga");
  EXPECT_FALSE(open_row_reader(dir / "image.tga"));
  EXPECT_FALSE(open_row_writer(dir / "out.tga", shape_of(image)));
  // A baseline JPEG streams; one that EXIF turns is read whole, as load_image turns it.
  if (io::have_fast_jpeg()) {
    save_image(image, dir / "image.jpg");
    EXPECT_TRUE(open_row_reader(dir / "image.jpg"));
    EXPECT_TRUE(open_row_writer(dir / "out.jpg", shape_of(image)));
  }
}

TEST(RowStream, RefusesWhatLoadImageAndSaveImageRefuse) {
  test::TempDir dir;
  EXPECT_THROW((void)open_row_reader(dir / "missing.png"), InputError);
  EXPECT_THROW((void)open_row_reader(dir.path()), InputError);
  test::files::write_text(dir / "ascii.pgm", "P2\n1 1\n255\n0\n");
  EXPECT_THROW((void)open_row_reader(dir / "ascii.pgm"), InputError);
  const StreamShape deep{4, 4, 3, Depth::u16};
  EXPECT_THROW((void)open_row_writer(dir / "out.bmp", deep), UsageError);
  EXPECT_THROW((void)open_row_writer(dir / "out.xyz", deep), InputError);
  EXPECT_THROW((void)open_row_writer(dir / "out.ppm", StreamShape{4, 4, 4, Depth::u8}), InputError);
  // The limit bounds what is held: a band of a wide image over it is refused.
  const Image image = test_image(kWideWidth, 40, 3, Depth::u8);
  save_image(image, dir / "wide.png");
  LoadOptions small;
  small.max_bytes = 100;
  EXPECT_THROW((void)open_row_reader(dir / "wide.png", small), InputError);
  small.max_bytes = image.size_bytes() / 4;
  EXPECT_TRUE(open_row_reader(dir / "wide.png", small));
}

}  // namespace
}  // namespace parfilter
