// Running an executable as the user would, without a shell: exit status, signal, stdout, stderr.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace parfilter::test {

struct ProcessResult {
  int exit_code = -1;      // when it exited
  int signal = 0;          // when a signal ended it
  bool timed_out = false;  // killed (SIGKILL) after ProcessLimits::timeout
  std::string out;
  std::string err;
};

/// What the child runs under, set between fork and exec.
struct ProcessLimits {
  /// RLIMIT_FSIZE (`ulimit -f`), in bytes; SIGXFSZ keeps its default action (death), so only
  /// a program that ignores it itself survives a write past the limit.
  std::optional<std::uint64_t> file_size_bytes;
  /// RLIMIT_AS (`ulimit -v`), in bytes: a machine with that little memory.
  std::optional<std::uint64_t> address_space_bytes;
  /// Killed with SIGKILL when still running after this long.
  std::chrono::milliseconds timeout{std::chrono::minutes(2)};
};

/// Runs argv (argv[0]: the executable's path) with this process's environment plus
/// `extra_environment` ("NAME=value" entries), capturing stdout and stderr through files in
/// `capture_dir`, and waits for it.
[[nodiscard]] ProcessResult run_process(const std::vector<std::string>& argv,
                                        const std::filesystem::path& capture_dir,
                                        const std::vector<std::string>& extra_environment = {},
                                        const ProcessLimits& limits = {});

}  // namespace parfilter::test
