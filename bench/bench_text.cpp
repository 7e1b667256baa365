#include "bench_text.hpp"

#include <fstream>
#include <iomanip>
#include <sstream>

namespace parfilter::bench {

std::string fixed(std::optional<double> value, int decimals, const std::string& missing) {
  if (!value) return missing;
  std::ostringstream text;
  text << std::fixed << std::setprecision(decimals) << *value;
  return text.str();
}

std::string first_line_with(const std::string& path, const std::string& key,
                            const std::string& fallback) {
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(key, 0) != 0) continue;
    const std::size_t colon = line.find(':');
    const std::size_t value =
        colon == std::string::npos ? colon : line.find_first_not_of(' ', colon + 1);
    return value == std::string::npos ? fallback : line.substr(value);
  }
  return fallback;
}

}  // namespace parfilter::bench
