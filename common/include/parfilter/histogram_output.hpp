// Writing the histogram op's result: CSV, or a bar chart image.
#pragma once

#include <filesystem>
#include <span>
#include <string>

#include "parfilter/image.hpp"
#include "parfilter/op_set.hpp"

namespace parfilter {

/// "value,count" (one histogram) or "value,c0,c1,..." (one per channel), 256 data rows.
[[nodiscard]] std::string histogram_csv(std::span<const HistogramBins> histograms);

/// A bar chart a person would look at: one panel per histogram, bars scaled to the panel's
/// largest count, axis ticks every 64 values, each channel in its colour.
[[nodiscard]] Image histogram_chart(std::span<const HistogramBins> histograms);

/// Writes the histograms to `path` atomically: CSV for .csv, else a chart in the image
/// format of the extension. Throws InputError for an unknown extension.
void save_histogram(std::span<const HistogramBins> histograms, const std::filesystem::path& path);

/// The same for an op's output at either depth: a 16-bit histogram's CSV has 65536 data rows,
/// and its chart draws 256 levels per bar.
[[nodiscard]] std::string histogram_csv(const OpOutput& output);
[[nodiscard]] Image histogram_chart(const OpOutput& output);
void save_histogram(const OpOutput& output, const std::filesystem::path& path);

}  // namespace parfilter
