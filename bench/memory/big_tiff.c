// Writes a BigTIFF of WIDTH x HEIGHT 8-bit gray samples in Deflate strips of ROWS rows, for the
// device-memory benchmark (scripts/bench-device-memory.sh): an image larger than a GPU's memory,
// made in seconds on a few hundred MB of disk, as every strip holds the same rows (a diagonal
// gradient) and is compressed once, then written raw.
//
//   big_tiff OUT.tif WIDTH HEIGHT [ROWS]
#include <stdio.h>
#include <stdlib.h>
#include <tiffio.h>
#include <zlib.h>

enum { kDefaultRows = 64, kGradientStep = 3 };

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: %s OUT.tif WIDTH HEIGHT [ROWS]\n", argv[0]);
    return 2;
  }
  const unsigned long width = strtoul(argv[2], NULL, 10);
  const unsigned long height = strtoul(argv[3], NULL, 10);
  const unsigned long rows = argc > 4 ? strtoul(argv[4], NULL, 10) : kDefaultRows;
  if (width == 0 || height == 0 || rows == 0 || height % rows != 0) {
    fprintf(stderr, "big_tiff: WIDTH, HEIGHT and ROWS must be positive, ROWS dividing HEIGHT\n");
    return 2;
  }
  const size_t raw_bytes = (size_t)width * rows;
  unsigned char* raw = malloc(raw_bytes);
  uLongf packed_bytes = compressBound((uLong)raw_bytes);
  unsigned char* packed = malloc(packed_bytes);
  if (raw == NULL || packed == NULL) return 1;
  for (size_t y = 0; y < rows; ++y) {
    for (size_t x = 0; x < width; ++x) raw[y * width + x] = (unsigned char)(x + kGradientStep * y);
  }
  if (compress2(packed, &packed_bytes, raw, (uLong)raw_bytes, 1) != Z_OK) return 1;
  TIFF* tif = TIFFOpen(argv[1], "w8");
  if (tif == NULL) return 1;
  TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, (uint32_t)width);
  TIFFSetField(tif, TIFFTAG_IMAGELENGTH, (uint32_t)height);
  TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, 8);
  TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, 1);
  TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
  TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
  TIFFSetField(tif, TIFFTAG_COMPRESSION, COMPRESSION_ADOBE_DEFLATE);
  TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, (uint32_t)rows);
  for (uint32_t strip = 0; strip < height / rows; ++strip) {
    if (TIFFWriteRawStrip(tif, strip, packed, (tmsize_t)packed_bytes) < 0) return 1;
  }
  TIFFClose(tif);
  free(raw);
  free(packed);
  return 0;
}
