// Error types. The CLI maps them to exit codes: UsageError and InputError exit 2, any other
// exception (a runtime failure: out of memory, a device error) exits 1.
#pragma once

#include <stdexcept>
#include <string>

namespace parfilter {

/// Bad command line or bad parameters.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Bad input data: a corrupt or unsupported file, absurd dimensions, an unreadable path,
/// an unknown output extension. The message names the file and the cause.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A failure while running (a device missing or failing, an I/O error while writing).
class RuntimeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace parfilter
