// Image: construction rules, row-range views and slices, copies.
#include <gtest/gtest.h>

#include <climits>
#include <stdexcept>

#include "parfilter/image.hpp"
#include "support/test_images.hpp"

namespace parfilter {
namespace {

TEST(Image, ConstructsZeroFilledWithEveryChannelCount) {
  for (int channels : {1, 3, 4}) {
    const Image image(5, 3, channels);
    EXPECT_EQ(image.width(), 5);
    EXPECT_EQ(image.height(), 3);
    EXPECT_EQ(image.channels(), channels);
    EXPECT_EQ(image.stride(), 5 * channels);
    EXPECT_EQ(image.size_bytes(), static_cast<std::size_t>(5 * 3 * channels));
    EXPECT_FALSE(image.empty());
    for (std::size_t i = 0; i < image.size_bytes(); ++i) EXPECT_EQ(image.data()[i], 0);
  }
}

TEST(Image, UninitializedHasTheSizeAndTakesWrites) {
  for (int channels : {1, 3, 4}) {
    Image image = Image::uninitialized(5, 3, channels);
    EXPECT_EQ(image.width(), 5);
    EXPECT_EQ(image.height(), 3);
    EXPECT_EQ(image.channels(), channels);
    EXPECT_EQ(image.size_bytes(), static_cast<std::size_t>(5 * 3 * channels));
    // Its samples are unspecified until written: write all of them before reading any.
    for (std::size_t i = 0; i < image.size_bytes(); ++i) {
      image.data()[i] = static_cast<std::uint8_t>(i);
    }
    EXPECT_EQ(image.at(1, 2, 0), static_cast<std::uint8_t>((2 * 5 + 1) * channels));
  }
}

TEST(Image, UninitializedRejectsWhatTheConstructorRejects) {
  EXPECT_THROW((void)Image::uninitialized(0, 3, 1), std::invalid_argument);
  EXPECT_THROW((void)Image::uninitialized(3, -1, 1), std::invalid_argument);
  EXPECT_THROW((void)Image::uninitialized(3, 3, 2), std::invalid_argument);
  EXPECT_THROW((void)Image::uninitialized(INT_MAX, INT_MAX, 4), std::length_error);
}

TEST(Image, DefaultIsEmpty) {
  const Image image;
  EXPECT_TRUE(image.empty());
  EXPECT_EQ(image.size_bytes(), 0U);
}

TEST(Image, RejectsNonPositiveSizes) {
  EXPECT_THROW(Image(0, 1, 1), std::invalid_argument);
  EXPECT_THROW(Image(1, 0, 1), std::invalid_argument);
  EXPECT_THROW(Image(-1, 4, 3), std::invalid_argument);
  EXPECT_THROW(Image(4, -7, 3), std::invalid_argument);
}

TEST(Image, RejectsChannelCountsOtherThanOneThreeFour) {
  for (int channels : {-1, 0, 2, 5, 8}) {
    EXPECT_THROW(Image(2, 2, channels), std::invalid_argument) << channels;
  }
}

TEST(Image, RejectsBuffersThatDoNotFitInMemory) {
  EXPECT_THROW(Image(INT_MAX, INT_MAX, 4), std::length_error);
}

TEST(Image, AtAddressesInterleavedSamples) {
  Image image = test::make_image(2, 2, 3, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  EXPECT_EQ(image.at(0, 0, 0), 1);
  EXPECT_EQ(image.at(1, 0, 2), 6);
  EXPECT_EQ(image.at(0, 1, 1), 8);
  EXPECT_EQ(image.at(1, 1, 2), 12);
  image.at(1, 1, 0) = 99;
  EXPECT_EQ(image.row(1)[3], 99);
}

TEST(Image, FullViewAddressesEveryRow) {
  Image image = test::synthetic_image(7, 5, 3, 1);
  const ImageView view = image.view();
  EXPECT_EQ(view.rows(), (RowRange{0, 5}));
  EXPECT_EQ(view.width(), 7);
  EXPECT_EQ(view.height(), 5);
  EXPECT_EQ(view.channels(), 3);
  EXPECT_EQ(view.stride(), image.stride());
  EXPECT_EQ(view.row_samples(), 21);
  for (int y = 0; y < 5; ++y) EXPECT_EQ(view.row(y), image.row(y));
}

TEST(Image, RowRangeViewUsesFullImageRowIndices) {
  Image image = test::synthetic_image(4, 9, 1, 2);
  const ImageView view = image.view(RowRange{3, 7});
  EXPECT_EQ(view.rows().size(), 4);
  EXPECT_EQ(view.height(), 9);  // the full image's height, for borders
  EXPECT_EQ(view.first_row(), image.row(3));
  for (int y = 3; y < 7; ++y) EXPECT_EQ(view.row(y), image.row(y));
}

TEST(Image, SliceOfAViewNarrowsTheRows) {
  Image image = test::synthetic_image(3, 10, 4, 3);
  const ImageView view = image.view(RowRange{2, 9});
  const ImageView slice = view.slice(RowRange{4, 6});
  EXPECT_EQ(slice.rows(), (RowRange{4, 6}));
  EXPECT_EQ(slice.row(4), image.row(4));
  EXPECT_EQ(slice.row(5), image.row(5));
  const ImageView empty = view.slice(RowRange{5, 5});
  EXPECT_TRUE(empty.rows().empty());
}

TEST(Image, WritesThroughAViewReachTheImage) {
  Image image(3, 3, 1);
  ImageView view = image.view(RowRange{1, 2});
  view.row(1)[2] = 42;
  EXPECT_EQ(image.at(2, 1), 42);
}

TEST(Image, ConstViewConvertsFromMutableView) {
  Image image = test::synthetic_image(5, 4, 3, 4);
  const ConstImageView view = image.view(RowRange{1, 3});
  EXPECT_EQ(view.rows(), (RowRange{1, 3}));
  EXPECT_EQ(view.row(2), image.row(2));
  const Image& const_image = image;
  EXPECT_EQ(const_image.view().row(3), image.row(3));
}

TEST(Image, CopyOfFullViewIsEqual) {
  const Image image = test::synthetic_image(6, 5, 4, 5);
  const Image copy = Image::copy_of(image.view());
  EXPECT_TRUE(test::same_image(image, copy));
  EXPECT_NE(copy.data(), image.data());
}

TEST(Image, CopyOfPartialViewThrows) {
  const Image image = test::synthetic_image(6, 5, 1, 6);
  EXPECT_THROW((void)Image::copy_of(image.view(RowRange{1, 5})), std::invalid_argument);
  EXPECT_THROW((void)Image::copy_of(image.view(RowRange{0, 4})), std::invalid_argument);
}

TEST(Image, EqualityComparesShapeAndSamples) {
  const Image a = test::make_image(2, 1, 1, {1, 2});
  Image b = a;
  EXPECT_EQ(a, b);
  b.at(1, 0) = 3;
  EXPECT_NE(a, b);
  EXPECT_NE(test::make_image(2, 1, 1, {0, 0}), Image(1, 2, 1));
}

TEST(Image, OneByOneAndThinShapes) {
  for (auto [w, h] : {std::pair{1, 1}, std::pair{1, 17}, std::pair{17, 1}}) {
    const Image image = test::synthetic_image(w, h, 3, 7);
    EXPECT_EQ(image.size_bytes(), static_cast<std::size_t>(w * h * 3));
    EXPECT_TRUE(test::same_image(image, Image::copy_of(image.view())));
  }
}

}  // namespace
}  // namespace parfilter
