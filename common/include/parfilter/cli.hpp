// The command-line front end every parfilter-<backend> executable shares.
#pragma once

#include <string_view>

#include "parfilter/backend.hpp"

namespace parfilter {

/// Exit codes of every executable.
inline constexpr int kExitSuccess = 0;
inline constexpr int kExitRuntimeFailure = 1;
inline constexpr int kExitBadInput = 2;  ///< bad usage or bad input

/// Runs `parfilter-<backend_name> <op> [options] <input> <output>` (or a batch with
/// --out-dir). Errors go to stderr as one line; the return value is the exit code.
int cli_main(int argc, const char* const* argv, std::string_view backend_name,
             BackendFactory factory);

/// cli_main for an executable's main(): when the jobs are done while the backend's device is
/// still starting (Backend::start_still_running: a batch ran on the host's cores meanwhile),
/// the process ends at once (std::_Exit, its streams flushed) instead of returning.
int executable_main(int argc, const char* const* argv, std::string_view backend_name,
                    BackendFactory factory);

}  // namespace parfilter
