// Compiles stb_image and stb_image_write (Debian's libstb-dev headers) into parfilter::core.
// Configuration, chosen for untrusted input:
// - only the formats stb decodes for parfilter (BMP, PNG, JPEG, TGA; PNM is decoded in
//   image_io.cpp); GIF, PSD, HDR and PIC are left out and reported as unsupported;
// - no stdio: image_io.cpp reads files into memory itself and writes them atomically;
// - STBI_MAX_DIMENSIONS equals detail::kMaxImageDimension, the cap of the BMP fallback.
#include "bmp_fallback.hpp"

#define STBI_NO_STDIO
#define STBI_ONLY_BMP
#define STBI_ONLY_PNG
#define STBI_ONLY_JPEG
#define STBI_ONLY_TGA
#define STBI_MAX_DIMENSIONS (1 << 24)
#define STBI_WRITE_NO_STDIO
#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_WRITE_IMPLEMENTATION

static_assert(STBI_MAX_DIMENSIONS == parfilter::detail::kMaxImageDimension);

// stb is third-party C-style code: its warnings are not ours to fix, in this TU only. stb 2.27
// with GCC 12 raises only -Wmissing-field-initializers; the others cover nearby versions.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#pragma GCC diagnostic ignored "-Wtype-limits"
#include <stb_image.h>
#include <stb_image_write.h>
#pragma GCC diagnostic pop
