#include "parfilter/histogram_output.hpp"

#include <stb_easy_font.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <string>
#include <vector>

#include "parfilter/error.hpp"
#include "parfilter/image_io.hpp"

namespace parfilter {
namespace {

using Rgb = std::array<std::uint8_t, 3>;

constexpr int kChartChannels = 3;
constexpr Rgb kBackground = {255, 255, 255};
constexpr Rgb kAxisColour = {0, 0, 0};
constexpr Rgb kTextColour = {32, 32, 32};
constexpr Rgb kGrayBars = {96, 96, 96};
constexpr Rgb kRedBars = {210, 40, 40};
constexpr Rgb kGreenBars = {30, 150, 50};
constexpr Rgb kBlueBars = {40, 70, 210};
constexpr Rgb kAlphaBars = {64, 64, 64};

constexpr int kBarWidth = 2;
constexpr int kPlotWidth = kHistogramBins * kBarWidth;
constexpr int kPlotHeight = 160;
constexpr int kMarginLeft = 24;
constexpr int kMarginRight = 24;
constexpr int kTitleHeight = 22;  // room for "red  max 1234" above the bars
constexpr int kTickLength = 5;
constexpr int kTickLabelGap = 3;  // between a tick's end and its number
constexpr int kLabelHeight = 18;  // room for the tick numbers
constexpr int kPanelGap = 10;     // empty rows between two panels
constexpr int kTickStep = 64;     // ticks at 0, 64, 128, 192 and 255
constexpr int kFontScale = 2;     // stb_easy_font glyphs are ~7 px tall; double them
constexpr int kTextInset = 2;     // title's distance from the panel's top

constexpr int kPanelHeight =
    kTitleHeight + kPlotHeight + 1 + kTickLength + kTickLabelGap + kLabelHeight + kPanelGap;
constexpr int kChartWidth = kMarginLeft + kPlotWidth + kMarginRight;

/// stb_easy_font's vertex layout: x, y, z as float and an RGBA colour.
struct FontVertex {
  float x;
  float y;
  float z;
  std::uint8_t rgba[4];
};
constexpr int kVerticesPerQuad = 4;
constexpr std::size_t kFontBytesPerChar = 1024;  // the header expects ~270 on average

struct Series {
  const char* name;
  Rgb colour;
};

/// Names and colours of the histograms: gray alone, or r, g, b[, a] per channel.
Series series_for(std::size_t index, std::size_t count) {
  constexpr std::array<Series, 4> kPerChannel = {
      {{"red", kRedBars}, {"green", kGreenBars}, {"blue", kBlueBars}, {"alpha", kAlphaBars}}};
  if (count == 1) return {"gray", kGrayBars};
  if (count <= kPerChannel.size()) return kPerChannel.at(index);
  return {"channel", kGrayBars};
}

/// Column names of the CSV: "count" for one histogram, r,g,b[,a] per channel.
std::string csv_column(std::size_t index, std::size_t count) {
  constexpr std::array<const char*, 4> kShort = {"r", "g", "b", "a"};
  if (count == 1) return "count";
  if (count == 3 || count == 4) return kShort.at(index);
  return "c" + std::to_string(index);
}

class Canvas {
 public:
  Canvas(int width, int height) : image_(width, height, kChartChannels) {
    fill(0, 0, width, height, kBackground);
  }

  /// Fills [x0, x1) x [y0, y1), clipped to the canvas.
  void fill(int x0, int y0, int x1, int y1, const Rgb& colour) {
    x0 = std::max(x0, 0);
    y0 = std::max(y0, 0);
    x1 = std::min(x1, image_.width());
    y1 = std::min(y1, image_.height());
    for (int y = y0; y < y1; ++y) {
      for (int x = x0; x < x1; ++x) {
        for (int c = 0; c < kChartChannels; ++c) image_.at(x, y, c) = colour[c];
      }
    }
  }

  /// Draws `text` with its top-left corner at (x, y), through stb_easy_font's quads.
  void text(int x, int y, const std::string& text, const Rgb& colour) {
    std::string buffer = text;  // stb_easy_font takes a non-const char*
    std::vector<FontVertex> vertices((text.size() + 1) * kFontBytesPerChar / sizeof(FontVertex));
    const int quads = stb_easy_font_print(0.0F, 0.0F, buffer.data(), nullptr, vertices.data(),
                                          static_cast<int>(vertices.size() * sizeof(FontVertex)));
    for (int q = 0; q < quads; ++q) {
      const FontVertex* v = &vertices[static_cast<std::size_t>(q) * kVerticesPerQuad];
      // Quads are axis-aligned: vertex 0 is the top-left, vertex 2 the bottom-right.
      fill(x + static_cast<int>(v[0].x) * kFontScale, y + static_cast<int>(v[0].y) * kFontScale,
           x + static_cast<int>(v[2].x) * kFontScale, y + static_cast<int>(v[2].y) * kFontScale,
           colour);
    }
  }

  [[nodiscard]] static int text_width(const std::string& text) {
    std::string buffer = text;
    return stb_easy_font_width(buffer.data()) * kFontScale;
  }

  Image take() { return std::move(image_); }

 private:
  Image image_;
};

/// Bar height in pixels: proportional to the panel's largest count; a non-zero count is at
/// least one pixel so that rare values stay visible.
int bar_height(std::uint64_t count, std::uint64_t max_count) {
  if (count == 0 || max_count == 0) return 0;
  const std::uint64_t scaled = (count * kPlotHeight + max_count / 2) / max_count;
  return std::max(1, static_cast<int>(scaled));
}

void draw_panel(Canvas& canvas, int top, const HistogramBins& bins, const Series& series) {
  const std::uint64_t max_count = *std::max_element(bins.begin(), bins.end());
  canvas.text(kMarginLeft, top + kTextInset,
              std::string(series.name) + "   max " + std::to_string(max_count), kTextColour);

  const int baseline = top + kTitleHeight + kPlotHeight;  // first row below the bars
  for (int v = 0; v < kHistogramBins; ++v) {
    const int h = bar_height(bins[static_cast<std::size_t>(v)], max_count);
    const int x = kMarginLeft + v * kBarWidth;
    canvas.fill(x, baseline - h, x + kBarWidth, baseline, series.colour);
  }
  canvas.fill(kMarginLeft - 1, baseline, kMarginLeft + kPlotWidth + 1, baseline + 1, kAxisColour);

  for (int v = 0; v < kHistogramBins; v += kTickStep) {
    // The ticks at 0, 64, 128 and 192; 255 follows the loop.
    const int x = kMarginLeft + v * kBarWidth;
    canvas.fill(x, baseline + 1, x + 1, baseline + 1 + kTickLength, kAxisColour);
    const std::string label = std::to_string(v);
    canvas.text(x - Canvas::text_width(label) / 2, baseline + 1 + kTickLength + kTickLabelGap,
                label, kTextColour);
  }
  constexpr int kLastValue = kHistogramBins - 1;
  const int x = kMarginLeft + kLastValue * kBarWidth + kBarWidth - 1;
  canvas.fill(x, baseline + 1, x + 1, baseline + 1 + kTickLength, kAxisColour);
  const std::string label = std::to_string(kLastValue);
  canvas.text(x - Canvas::text_width(label) / 2, baseline + 1 + kTickLength + kTickLabelGap, label,
              kTextColour);
}

bool is_csv_path(const std::filesystem::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext == ".csv";
}

}  // namespace

namespace {

/// The CSV of histograms of `levels` bins each (HistogramBins, or 16-bit histograms).
template <typename Bins>
std::string csv_of(std::span<const Bins> histograms, std::size_t levels) {
  std::string csv = "value";
  for (std::size_t i = 0; i < histograms.size(); ++i) {
    csv += "," + csv_column(i, histograms.size());
  }
  csv += '\n';
  for (std::size_t v = 0; v < levels; ++v) {
    csv += std::to_string(v);
    for (const auto& bins : histograms) csv += "," + std::to_string(bins[v]);
    csv += '\n';
  }
  return csv;
}

/// 16-bit histograms drawn as 8-bit ones: each bar the sum of 256 consecutive levels.
std::vector<HistogramBins> chart_bins(const OpOutput& output) {
  if (output.wide_histogram.empty()) return output.histogram;
  std::vector<HistogramBins> grouped;
  for (const auto& wide : output.wide_histogram) {
    HistogramBins bins{};
    const std::size_t per_bar = wide.size() / bins.size();
    for (std::size_t v = 0; v < wide.size(); ++v) bins[v / per_bar] += wide[v];
    grouped.push_back(bins);
  }
  return grouped;
}

/// `histograms` (an OpOutput's, or bins alone) as CSV for a .csv path, else as the chart in
/// the image format the path names.
template <class Histograms>
void save_csv_or_chart(const Histograms& histograms, const std::filesystem::path& path) {
  if (is_csv_path(path)) {
    const std::string csv = histogram_csv(histograms);
    write_file_atomically(path,
                          std::span(reinterpret_cast<const std::uint8_t*>(csv.data()), csv.size()));
    return;
  }
  (void)format_for_path(path);  // an unknown extension throws before anything is drawn
  save_image(histogram_chart(histograms), path);
}

}  // namespace

std::string histogram_csv(std::span<const HistogramBins> histograms) {
  return csv_of(histograms, kHistogramBins);
}

std::string histogram_csv(const OpOutput& output) {
  if (output.wide_histogram.empty()) return histogram_csv(output.histogram);
  return csv_of(std::span<const std::vector<std::uint64_t>>(output.wide_histogram),
                output.wide_histogram.front().size());
}

Image histogram_chart(const OpOutput& output) { return histogram_chart(chart_bins(output)); }

void save_histogram(const OpOutput& output, const std::filesystem::path& path) {
  save_csv_or_chart(output, path);
}

Image histogram_chart(std::span<const HistogramBins> histograms) {
  const int panels = std::max<int>(1, static_cast<int>(histograms.size()));
  Canvas canvas(kChartWidth, panels * kPanelHeight);
  for (std::size_t i = 0; i < histograms.size(); ++i) {
    draw_panel(canvas, static_cast<int>(i) * kPanelHeight, histograms[i],
               series_for(i, histograms.size()));
  }
  return canvas.take();
}

void save_histogram(std::span<const HistogramBins> histograms, const std::filesystem::path& path) {
  save_csv_or_chart(histograms, path);
}

}  // namespace parfilter
