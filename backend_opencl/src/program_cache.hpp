// Programs built once per process and device, their binaries cached on disk.
//
// An entry's key is the device (platform, name, version, driver), the build options and a hash
// of the source; the file is <dir>/<program>-<hash of the key>.bin and holds the key itself, so
// that a hash collision or a stale file is recognized. A missing, truncated, corrupt or
// unloadable entry is rebuilt from source and rewritten, never fatal; writes go to a temporary
// file renamed into place, so concurrent processes never see half an entry.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "cl_api.hpp"

namespace parfilter::opencl {

/// $XDG_CACHE_HOME/parfilter, else $HOME/.cache/parfilter; none when neither is set.
[[nodiscard]] std::optional<std::filesystem::path> default_cache_dir();

/// 64-bit FNV-1a, for cache keys and entry checksums (not for security).
[[nodiscard]] std::uint64_t fnv1a(std::string_view bytes, std::uint64_t seed = 0);

class ProgramCache {
 public:
  /// `cache_dir` empty: memory only.
  ProgramCache(Context context, cl_device_id device,
               std::optional<std::filesystem::path> cache_dir);

  /// The built program `name` (for messages and file names) from `source` with `options`:
  /// from memory, else from the disk cache, else compiled from source. Adds the time spent
  /// building or loading to *build_ms when given. A compile error prints the build log on
  /// stderr and throws RuntimeError.
  const Program& get(std::string_view name, std::string_view source, const std::string& options,
                     double* build_ms = nullptr);
  /// Whether `source` builds with `options` on this device: a probe of what the driver takes,
  /// quiet on failure. A program that builds is cached as get() caches it.
  [[nodiscard]] bool builds(std::string_view name, std::string_view source,
                            const std::string& options);

  struct Stats {
    int compiled = 0;     ///< built from source
    int loaded = 0;       ///< from a disk entry
    int memory_hits = 0;  ///< already built in this process
    int rejected = 0;     ///< disk entries found unusable (and rebuilt)
  };
  [[nodiscard]] const Stats& stats() const { return stats_; }

  /// The disk entry for a program (whether or not it exists); empty without a cache dir.
  [[nodiscard]] std::optional<std::filesystem::path> entry_path(std::string_view name,
                                                                std::string_view source,
                                                                const std::string& options) const;

 private:
  [[nodiscard]] std::string key_text(std::string_view source, const std::string& options) const;
  [[nodiscard]] Program load(const std::filesystem::path& path, const std::string& key,
                             const std::string& options);
  /// The program built from source; on failure an empty one when `quiet`, else the build
  /// log on stderr and a RuntimeError.
  [[nodiscard]] Program compile(std::string_view name, std::string_view source,
                                const std::string& options, bool quiet = false);
  void store(const std::filesystem::path& path, const std::string& key, const Program& program);

  Context context_;
  cl_device_id device_;
  std::optional<std::filesystem::path> dir_;
  std::string device_identity_;
  std::map<std::string, Program> programs_;  ///< by key text
  Stats stats_;
};

}  // namespace parfilter::opencl
