// Running an executable as the user would, without a shell: exit status, signal, stdout, stderr.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace parfilter::test {

struct ProcessResult {
  int exit_code = -1;  // when it exited
  int signal = 0;      // when a signal ended it
  std::string out;
  std::string err;
};

/// Runs argv (argv[0]: the executable's path) with this process's environment plus
/// `extra_environment` ("NAME=value" entries), capturing stdout and stderr through files in
/// `capture_dir`, and waits for it.
[[nodiscard]] ProcessResult run_process(const std::vector<std::string>& argv,
                                        const std::filesystem::path& capture_dir,
                                        const std::vector<std::string>& extra_environment = {});

}  // namespace parfilter::test
