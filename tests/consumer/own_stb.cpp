// A program with stb_image's and stb_image_write's implementations of its own, linked with
// parfilter, which compiles stb privately (every stb function static in its library): it links
// and both decode the same PNG.
#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb_image.h>
#include <stb_image_write.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "parfilter/image_io.hpp"

int main() {
  constexpr int kWidth = 5;
  constexpr int kHeight = 3;
  parfilter::Image image(kWidth, kHeight, 3);
  for (std::size_t i = 0; i < image.size_bytes(); ++i) {
    image.data()[i] = static_cast<unsigned char>(i * 7);
  }
  const auto path = std::filesystem::temp_directory_path() / "parfilter_own_stb.png";
  parfilter::save_image(image, path);
  int w = 0;
  int h = 0;
  int c = 0;
  unsigned char* pixels = stbi_load(path.c_str(), &w, &h, &c, 3);
  std::filesystem::remove(path);
  const bool same = pixels != nullptr && w == kWidth && h == kHeight &&
                    std::equal(image.data(), image.data() + image.size_bytes(), pixels);
  stbi_image_free(pixels);
  if (!same) {
    std::fputs("consumer_own_stb: stb read back other pixels\n", stderr);
    return EXIT_FAILURE;
  }
  std::puts("consumer_own_stb: its own stb links beside parfilter's");
  return EXIT_SUCCESS;
}
