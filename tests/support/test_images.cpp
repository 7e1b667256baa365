#include "support/test_images.hpp"

#include <algorithm>
#include <random>
#include <sstream>
#include <stdexcept>

#include "parfilter/image_io.hpp"

namespace parfilter::test {

Image synthetic_image(int width, int height, int channels, std::uint32_t seed) {
  constexpr int kNoiseAmplitude = 24;
  constexpr int kBlockSize = 7;
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> noise(-kNoiseAmplitude, kNoiseAmplitude);
  std::uniform_int_distribution<int> level(0, 255);
  const int flat_value = level(rng);
  Image img(width, height, channels);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      // Left third: a flat region; middle: blocks with hard edges; right: gradient + noise.
      const int region = width >= 3 ? (3 * x) / width : 2;
      for (int c = 0; c < channels; ++c) {
        int v = 0;
        if (region == 0) {
          v = flat_value;
        } else if (region == 1) {
          v = ((x / kBlockSize + y / kBlockSize + c) % 2) != 0 ? 200 + c * 10 : 30 + c * 20;
        } else {
          v = (x * 255) / std::max(1, width - 1) / 2 + (y * 255) / std::max(1, height - 1) / 2 +
              noise(rng);
        }
        img.at(x, y, c) = static_cast<std::uint8_t>(std::clamp(v, 0, 255));
      }
    }
  }
  return img;
}

Image noise_image(int width, int height, int channels, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> sample(0, 255);
  Image img(width, height, channels);
  for (std::size_t i = 0; i < img.size_bytes(); ++i) {
    img.data()[i] = static_cast<std::uint8_t>(sample(rng));
  }
  return img;
}

Image make_image(int width, int height, int channels, std::initializer_list<int> samples) {
  Image img(width, height, channels);
  if (samples.size() != img.size_bytes()) {
    throw std::invalid_argument("make_image: wrong number of samples");
  }
  std::size_t i = 0;
  for (int v : samples) img.data()[i++] = static_cast<std::uint8_t>(v);
  return img;
}

Image make_image_16(int width, int height, int channels, std::initializer_list<int> samples) {
  Image image(width, height, channels, Depth::u16);
  if (samples.size() != static_cast<std::size_t>(width) * height * channels) {
    throw std::invalid_argument("make_image_16: wrong number of samples");
  }
  int i = 0;
  for (const int v : samples) {
    image.set_sample(i / channels % width, i / channels / width, i % channels, v);
    ++i;
  }
  return image;
}

Image every_colour_image() {
  constexpr int kSide = 4096;  // kSide^2 = 2^24 pixels
  constexpr int kByte = 8;
  constexpr int kRgb = 3;
  Image image = Image::uninitialized(kSide, kSide, kRgb);
  for (int y = 0; y < kSide; ++y) {
    for (int x = 0; x < kSide; ++x) {
      const int i = y * kSide + x;
      for (int c = 0; c < kRgb; ++c) {
        image.at(x, y, c) = static_cast<std::uint8_t>(i >> (kByte * (kRgb - 1 - c)));
      }
    }
  }
  return image;
}

std::filesystem::path data_dir() { return PARFILTER_DATA_DIR; }
std::filesystem::path shared_dir() { return PARFILTER_SHARED_DIR; }

Image load_data_image(const std::string& name) { return load_image(data_dir() / name); }

Image synthetic_image_16(int width, int height, int channels, std::uint32_t seed,
                         int significant_bits) {
  constexpr int kBitsPerByte = 8;
  const Image structure = synthetic_image(width, height, channels, seed);
  const Image low = noise_image(width, height, channels, seed + 1);
  Image image(width, height, channels, Depth::u16);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      for (int c = 0; c < channels; ++c) {
        const int v = (structure.at(x, y, c) << kBitsPerByte) | low.at(x, y, c);
        image.set_sample(x, y, c, v >> (bits_of(Depth::u16) - significant_bits));
      }
    }
  }
  return image;
}

::testing::AssertionResult same_output(const OpOutput& expected, const OpOutput& actual) {
  if (expected.threshold != actual.threshold) {
    return ::testing::AssertionFailure()
           << "threshold differs: expected " << expected.threshold.value_or(-1) << ", got "
           << actual.threshold.value_or(-1);
  }
  if (expected.histogram.size() != actual.histogram.size()) {
    return ::testing::AssertionFailure()
           << "histogram count differs: expected " << expected.histogram.size() << ", got "
           << actual.histogram.size();
  }
  for (std::size_t h = 0; h < expected.histogram.size(); ++h) {
    for (std::size_t v = 0; v < expected.histogram[h].size(); ++v) {
      if (expected.histogram[h][v] != actual.histogram[h][v]) {
        return ::testing::AssertionFailure()
               << "histogram " << h << " bin " << v << ": expected " << expected.histogram[h][v]
               << ", got " << actual.histogram[h][v];
      }
    }
  }
  if (expected.wide_histogram != actual.wide_histogram) {
    return ::testing::AssertionFailure() << "16-bit histograms differ";
  }
  return same_image(expected.image, actual.image);
}

::testing::AssertionResult same_image(const Image& expected, const Image& actual) {
  if (expected.width() != actual.width() || expected.height() != actual.height() ||
      expected.channels() != actual.channels()) {
    return ::testing::AssertionFailure()
           << "shape differs: expected " << expected.width() << "x" << expected.height() << "x"
           << expected.channels() << ", got " << actual.width() << "x" << actual.height() << "x"
           << actual.channels();
  }
  if (expected.depth() != actual.depth()) {
    return ::testing::AssertionFailure() << "depth differs: expected " << bits_of(expected.depth())
                                         << " bits, got " << bits_of(actual.depth());
  }
  for (int y = 0; y < expected.height(); ++y) {
    for (int x = 0; x < expected.width(); ++x) {
      for (int c = 0; c < expected.channels(); ++c) {
        if (expected.sample(x, y, c) != actual.sample(x, y, c)) {
          return ::testing::AssertionFailure()
                 << "first difference at (x=" << x << ", y=" << y << ", c=" << c << "): expected "
                 << expected.sample(x, y, c) << ", got " << actual.sample(x, y, c);
        }
      }
    }
  }
  return ::testing::AssertionSuccess();
}

TempDir::TempDir() {
  std::random_device rd;
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::ostringstream name;
    name << "parfilter-test-" << std::hex << rd() << rd();
    auto candidate = std::filesystem::temp_directory_path() / name.str();
    if (std::filesystem::create_directory(candidate)) {
      path_ = candidate;
      return;
    }
  }
  throw std::runtime_error("TempDir: could not create a temporary directory");
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::vector<std::string> TempDir::files() const {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(path_)) {
    if (entry.is_regular_file()) names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace parfilter::test
