// Internal to stb_codec.cpp: the walk over a JPEG's marker segments that runs before stb_image
// 2.27 sees the file. That stb trusts the segments: it writes past its Huffman tables for a
// table of over 256 codes, decodes with tables no segment defined (its decoder state is
// malloc'ed, not zeroed: heap garbage reaches the pixels), leaves a component that no scan codes
// uninitialized, and decodes zeros into a buffer as large as the frame claims when the scans
// are far too short. Each case is refused here; the first two are fixed upstream in 2.28.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace parfilter::io {

struct JpegCheck {
  std::optional<std::string> corrupt;      // refused before stb even probes the header
  std::optional<std::string> undecodable;  // refused after the size check, before decoding
  std::uint64_t stb_buffer_bytes = 0;      // the largest buffer stb allocates (0: no frame)
};

namespace jpeg {

inline constexpr std::uint8_t kMarkerPrefix = 0xff;
inline constexpr std::uint8_t kEndOfImage = 0xd9;
inline constexpr std::uint8_t kStartOfScan = 0xda;
inline constexpr std::uint8_t kHuffmanTables = 0xc4;
inline constexpr std::uint8_t kQuantizationTables = 0xdb;
inline constexpr std::uint8_t kBaseline = 0xc0;
inline constexpr std::uint8_t kExtendedHuffman = 0xc1;
inline constexpr std::uint8_t kProgressive = 0xc2;
inline constexpr std::uint8_t kLastFrameHeader = 0xcf;
inline constexpr std::uint8_t kExtension = 0xc8;         // JPG, inside the SOFn range
inline constexpr std::uint8_t kArithmeticTables = 0xcc;  // DAC, inside the SOFn range
inline constexpr std::uint8_t kFirstRestart = 0xd0;
inline constexpr std::uint8_t kLastRestart = 0xd7;
inline constexpr std::uint8_t kTemporary = 0x01;
inline constexpr std::size_t kTableSlots = 4;  // table ids 0..3
inline constexpr std::size_t kCodeLengthCounts = 16;
inline constexpr std::size_t kMaxHuffmanCodes = 256;
inline constexpr std::size_t kCoefficients = 64;
inline constexpr std::uint64_t kBlockSize = 8;
inline constexpr std::uint64_t kBitsPerByte = 8;
inline constexpr int kNibble = 4;
inline constexpr std::uint8_t kNibbleMask = 0x0f;

struct Component {
  std::uint8_t id = 0;
  std::uint64_t h = 0;  // sampling factors
  std::uint64_t v = 0;
  std::uint8_t quantization_table = 0;
  bool coded = false;  // by a scan that writes every block (for progressive: a first DC scan)
};

struct Frame {
  bool progressive = false;
  std::uint64_t width = 0;
  std::uint64_t height = 0;
  std::vector<Component> components;
};

/// Which tables DQT and DHT segments have defined so far.
struct Tables {
  std::array<bool, kTableSlots> quantization{};
  std::array<std::array<bool, kTableSlots>, 2> huffman{};  // [0] DC, [1] AC
};

inline std::uint64_t be16(std::span<const std::uint8_t> bytes, std::size_t at) {
  return std::uint64_t{bytes[at]} << kBitsPerByte | bytes[at + 1];
}

/// The frame header SOFn whose segment runs from `at` (its length field) to `end`; nullopt
/// when stb would refuse it anyway.
inline std::optional<Frame> parse_frame(std::span<const std::uint8_t> bytes, std::uint8_t marker,
                                        std::size_t at, std::size_t end) {
  constexpr std::size_t kComponentsOffset = 8;  // length 2, precision 1, height 2, width 2, Nf 1
  constexpr std::size_t kComponentBytes = 3;    // id, sampling factors (H << 4 | V), table
  if (at + kComponentsOffset > end) return std::nullopt;
  Frame frame;
  frame.progressive = marker == kProgressive;
  frame.height = be16(bytes, at + 3);
  frame.width = be16(bytes, at + 5);
  const std::size_t count = bytes[at + 7];
  if (at + kComponentsOffset + count * kComponentBytes > end) return std::nullopt;
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t c = at + kComponentsOffset + i * kComponentBytes;
    const std::uint8_t sampling = bytes[c + 1];
    frame.components.push_back(Component{bytes[c], std::uint64_t{sampling} >> kNibble,
                                         std::uint64_t{sampling} & kNibbleMask, bytes[c + 2]});
    const Component& added = frame.components.back();
    if (added.h == 0 || added.v == 0 || added.quantization_table >= kTableSlots)
      return std::nullopt;
  }
  return frame;
}

/// The fewest bits of entropy-coded data the frame needs: every 8x8 block of every component
/// has its DC coefficient Huffman-coded, in at least 1 bit, baseline or progressive.
inline std::uint64_t min_scan_bits(const Frame& frame) {
  std::uint64_t h_max = 0;
  std::uint64_t v_max = 0;
  for (const auto& c : frame.components) {
    h_max = std::max(h_max, c.h);
    v_max = std::max(v_max, c.v);
  }
  auto blocks = [](std::uint64_t size, std::uint64_t factor, std::uint64_t max_factor) {
    const std::uint64_t samples = (size * factor + max_factor - 1) / max_factor;
    return (samples + kBlockSize - 1) / kBlockSize;
  };
  std::uint64_t bits = 0;
  for (const auto& c : frame.components) {
    bits += blocks(frame.width, c.h, h_max) * blocks(frame.height, c.v, v_max);
  }
  return bits;
}

/// The largest buffer stb_image 2.27 allocates for the frame (each must fit its int sizes):
/// width x height x components, each component's plane padded to whole MCUs (+15 for
/// alignment; progressive frames keep a 16-bit coefficient per sample as well), and the
/// output of 1 or 3 channels (+1).
inline std::uint64_t stb_buffer_bytes(const Frame& frame) {
  constexpr std::uint64_t kAlignment = 15;
  constexpr std::uint64_t kCoefficientBytes = 2;
  std::uint64_t h_max = 1;
  std::uint64_t v_max = 1;
  for (const auto& c : frame.components) {
    h_max = std::max(h_max, c.h);
    v_max = std::max(v_max, c.v);
  }
  const std::uint64_t mcu_x = (frame.width + h_max * kBlockSize - 1) / (h_max * kBlockSize);
  const std::uint64_t mcu_y = (frame.height + v_max * kBlockSize - 1) / (v_max * kBlockSize);
  const std::uint64_t pixels = frame.width * frame.height;
  const std::uint64_t output_channels = frame.components.size() >= 3 ? 3 : 1;
  std::uint64_t largest = std::max(pixels * frame.components.size(), pixels * output_channels + 1);
  for (const auto& c : frame.components) {
    const std::uint64_t plane = mcu_x * c.h * kBlockSize * mcu_y * c.v * kBlockSize;
    largest = std::max(largest, plane * (frame.progressive ? kCoefficientBytes : 1) + kAlignment);
  }
  return largest;
}

/// Records the tables of a DQT segment; stb refuses malformed ones itself.
inline void read_quantization_tables(std::span<const std::uint8_t> bytes, std::size_t at,
                                     std::size_t end, Tables& tables) {
  for (std::size_t table = at + 2; table < end;) {
    const int precision = bytes[table] >> kNibble;  // 0: 8-bit entries, 1: 16-bit
    const std::size_t id = bytes[table] & kNibbleMask;
    const std::size_t size = 1 + kCoefficients * (precision == 0 ? 1 : 2);
    if (precision > 1 || id >= kTableSlots || table + size > end) return;
    tables.quantization[id] = true;
    table += size;
  }
}

/// Checks and records the tables of a DHT segment: at most 256 codes each, inside the segment.
inline std::optional<std::string> read_huffman_tables(std::span<const std::uint8_t> bytes,
                                                      std::size_t at, std::size_t end,
                                                      Tables& tables) {
  for (std::size_t table = at + 2; table < end;) {
    if (table + 1 + kCodeLengthCounts > end) return "corrupt JPEG Huffman table";
    std::size_t codes = 0;
    for (std::size_t i = 1; i <= kCodeLengthCounts; ++i) codes += bytes[table + i];
    if (codes > kMaxHuffmanCodes) {
      return "corrupt JPEG Huffman table with " + std::to_string(codes) + " codes (at most " +
             std::to_string(kMaxHuffmanCodes) + ")";
    }
    const std::size_t table_class = bytes[table] >> kNibble;
    const std::size_t id = bytes[table] & kNibbleMask;
    if (table_class < tables.huffman.size() && id < kTableSlots)
      tables.huffman[table_class][id] = true;
    table += 1 + kCodeLengthCounts + codes;
    if (table > end) return "corrupt JPEG Huffman table";
  }
  return std::nullopt;
}

/// Checks that a scan header (SOS from `at` to `end`) uses only defined tables, as stb reads
/// them: baseline scans both Huffman tables, progressive first DC scans the DC table, AC scans
/// the AC table; every scanned component its quantization table. A progressive component's
/// first DC scan must come before its other scans (as the standard requires). Marks the
/// components coded.
inline std::optional<std::string> check_scan(std::span<const std::uint8_t> bytes, std::size_t at,
                                             std::size_t end, const Tables& tables, Frame& frame) {
  constexpr std::size_t kScanComponentBytes = 2;  // id, tables (DC << 4 | AC)
  constexpr std::size_t kSpectralBytes = 3;       // Ss, Se, Ah << 4 | Al
  if (at + 3 > end) return std::nullopt;
  const std::size_t count = bytes[at + 2];
  const std::size_t spectral = at + 3 + count * kScanComponentBytes;
  if (spectral + kSpectralBytes > end) return std::nullopt;  // stb: "bad SOS len"
  const bool dc_scan = bytes[spectral] == 0;
  const bool first_pass = (bytes[spectral + 2] >> kNibble) == 0;
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t s = at + 3 + i * kScanComponentBytes;
    // stb matches the first component with this id, and refuses an id the frame lacks.
    auto component = std::find_if(frame.components.begin(), frame.components.end(),
                                  [&](const Component& c) { return c.id == bytes[s]; });
    if (component == frame.components.end()) continue;
    const std::size_t dc_table = bytes[s + 1] >> kNibble;
    const std::size_t ac_table = bytes[s + 1] & kNibbleMask;
    if (dc_table >= kTableSlots || ac_table >= kTableSlots) continue;  // stb: "bad huff"
    const bool uses_dc = frame.progressive ? dc_scan && first_pass : true;
    const bool uses_ac = frame.progressive ? !dc_scan : true;
    if ((uses_dc && !tables.huffman[0][dc_table]) || (uses_ac && !tables.huffman[1][ac_table])) {
      return "corrupt JPEG: a scan uses a Huffman table that no DHT segment defines";
    }
    if (!tables.quantization[component->quantization_table]) {
      return "corrupt JPEG: a scan uses a quantization table that no DQT segment defines";
    }
    // stb's first DC scan zeroes each block; any earlier progressive scan would refine or
    // fill coefficients of uninitialized blocks.
    const bool first_dc_scan = dc_scan && first_pass;
    if (frame.progressive && !first_dc_scan && !component->coded) {
      return "corrupt JPEG: a progressive scan of component " + std::to_string(component->id) +
             " comes before its first DC scan";
    }
    if (!frame.progressive || first_dc_scan) component->coded = true;
  }
  return std::nullopt;
}

/// The walk of check_jpeg_segments; `frame` receives the first frame header (stb refuses a
/// second one).
[[nodiscard]] inline JpegCheck walk_segments(std::span<const std::uint8_t> bytes,
                                             std::optional<Frame>& frame) {
  const JpegCheck truncated{std::nullopt, "truncated file: the JPEG ends before its EOI marker"};
  auto corrupt = [](std::string cause) { return JpegCheck{std::move(cause), std::nullopt}; };
  auto undecodable = [](std::string cause) { return JpegCheck{std::nullopt, std::move(cause)}; };
  auto is_restart = [](std::uint8_t m) { return m >= kFirstRestart && m <= kLastRestart; };
  // The frame headers stb decodes (the others it refuses): SOF0, SOF1, SOF2.
  auto is_frame_header = [](std::uint8_t m) {
    return m == kBaseline || m == kExtendedHuffman || m == kProgressive;
  };
  Tables tables;
  std::uint64_t scan_bytes = 0;
  std::size_t at = 2;  // after SOI
  while (true) {
    while (at < bytes.size() && bytes[at] != kMarkerPrefix) ++at;
    while (at < bytes.size() && bytes[at] == kMarkerPrefix) ++at;
    if (at >= bytes.size()) return truncated;
    const std::uint8_t marker = bytes[at++];
    if (marker == kEndOfImage) break;
    if (is_restart(marker) || marker == kTemporary || marker == 0) continue;
    if (at + 2 > bytes.size()) return truncated;
    const std::size_t end = at + be16(bytes, at);
    // stb reads zeros past the end: its Huffman tables would still overflow, even in the probe.
    if (end > bytes.size() && marker == kHuffmanTables) {
      return corrupt("truncated file: the JPEG ends inside a Huffman table segment");
    }
    if (end > bytes.size()) return truncated;
    if (is_frame_header(marker) && !frame) frame = parse_frame(bytes, marker, at, end);
    if (marker == kQuantizationTables) read_quantization_tables(bytes, at, end, tables);
    if (marker == kHuffmanTables) {
      if (auto cause = read_huffman_tables(bytes, at, end, tables)) return corrupt(*cause);
    }
    if (marker == kStartOfScan && frame) {
      if (auto cause = check_scan(bytes, at, end, tables, *frame)) return undecodable(*cause);
    }
    at = end;
    if (marker == kStartOfScan) {  // skip the entropy-coded data
      const std::size_t scan_start = at;
      while (at + 1 < bytes.size() &&
             !(bytes[at] == kMarkerPrefix && bytes[at + 1] != 0 && bytes[at + 1] != kMarkerPrefix &&
               !is_restart(bytes[at + 1]))) {
        ++at;
      }
      if (at + 1 >= bytes.size()) return truncated;
      scan_bytes += at - scan_start;
    }
  }
  if (!frame) return {};  // stb reports the missing or malformed frame header
  for (const Component& c : frame->components) {
    if (!c.coded) {
      return undecodable("corrupt JPEG: component " + std::to_string(c.id) +
                         " is coded by no scan" +
                         (frame->progressive ? " of its DC coefficients" : ""));
    }
  }
  if (scan_bytes * kBitsPerByte < min_scan_bits(*frame)) {
    return undecodable("truncated or corrupt JPEG: " + std::to_string(scan_bytes) +
                       " bytes of scan data cannot code its " + std::to_string(frame->width) + "x" +
                       std::to_string(frame->height) + " frame");
  }
  return {};
}

}  // namespace jpeg

/// Walks the JPEG marker segments the way stb_image finds them (bytes before a 0xFF are
/// skipped, entropy-coded data after SOS runs to the next marker that is not a stuffed 0xFF00
/// or a restart) and refuses what stb 2.27 mishandles (see the top of this file). Also reports
/// a file that ends inside a segment or before EOI, and stb's largest buffer for the frame.
[[nodiscard]] inline JpegCheck check_jpeg_segments(std::span<const std::uint8_t> bytes) {
  std::optional<jpeg::Frame> frame;
  JpegCheck check = jpeg::walk_segments(bytes, frame);
  if (frame) check.stb_buffer_bytes = jpeg::stb_buffer_bytes(*frame);
  return check;
}

}  // namespace parfilter::io
