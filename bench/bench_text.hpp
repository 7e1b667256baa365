// Small text helpers the benchmark programs share: numbers for tables and CSVs, and a line of
// a /proc file.
#pragma once

#include <optional>
#include <string>

namespace parfilter::bench {

/// `value` with `decimals` digits after the point, or `missing` when there is none.
[[nodiscard]] std::string fixed(std::optional<double> value, int decimals,
                                const std::string& missing = "");

/// What follows "key<spaces>: " on the first line of `path` that starts with `key` (as in
/// /proc/cpuinfo's "model name"), or `fallback`.
[[nodiscard]] std::string first_line_with(const std::string& path, const std::string& key,
                                          const std::string& fallback = "unknown");

}  // namespace parfilter::bench
