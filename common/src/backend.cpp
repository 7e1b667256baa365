#include "parfilter/backend.hpp"

#include <algorithm>
#include <thread>

#include "parfilter/error.hpp"

namespace parfilter {

std::string Backend::describe_devices() const {
  return "* cpu: " + std::to_string(std::thread::hardware_concurrency()) +
         " hardware thread(s), using " + std::to_string(threads()) + "\n";
}

std::string resolve_variant(const Backend& backend, Op op, const std::string& requested) {
  const auto variants = backend.variants(op);
  if (requested.empty()) return variants.front();
  if (std::find(variants.begin(), variants.end(), requested) != variants.end()) return requested;
  std::string valid;
  for (const auto& v : variants) valid += (valid.empty() ? "" : ", ") + v;
  throw UsageError("unknown variant '" + requested + "' for " + std::string(op_name(op)) +
                   " on the " + std::string(backend.name()) + " backend (valid: " + valid + ")");
}

}  // namespace parfilter
