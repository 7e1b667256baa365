#include "parfilter/backend.hpp"

#include <algorithm>

#include "parfilter/error.hpp"

namespace parfilter {

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
