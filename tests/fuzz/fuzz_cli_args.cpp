// libFuzzer target: the command-line parser and validator (cli_detail::parse_args), which every
// executable runs before it creates a backend or touches a file. The input is split at '\n'
// into arguments. Bad usage must be a UsageError; anything else escaping (a CLI11 exception, a
// std::out_of_range from a conversion) is reported by libFuzzer as a crash.
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include "cli_internal.hpp"
#include "parfilter/error.hpp"

namespace {

constexpr char kSeparator = '\n';
constexpr std::size_t kMaxArguments = 64;  // real command lines are short; keeps runs fast
constexpr const char* kProgram = "parfilter-fuzz";

void check(bool promise) {
  if (!promise) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  std::cout.setstate(std::ios::badbit);  // --help and --version print; nobody reads it here
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> arguments{kProgram};
  std::string current;
  for (std::size_t i = 0; i < size; ++i) {
    if (data[i] == kSeparator) {
      arguments.push_back(current);
      current.clear();
      if (arguments.size() > kMaxArguments) return -1;  // not added to the corpus
    } else {
      current += static_cast<char>(data[i]);
    }
  }
  if (size > 0) arguments.push_back(current);
  std::vector<const char*> argv;
  for (const auto& argument : arguments) argv.push_back(argument.c_str());
  argv.push_back(nullptr);
  try {
    const auto parsed = parfilter::cli_detail::parse_args(static_cast<int>(arguments.size()),
                                                          argv.data(), kProgram);
    if (parsed.exit_code) return 0;
    // An op's help, an op (or a chain) with at least one job, or a listing.
    if (parsed.args.help) return 0;
    check(!parsed.chain.empty() ? !parsed.jobs.empty()
                                : parsed.args.list || parsed.args.list_devices);
  } catch (const parfilter::UsageError&) {
    // the expected outcome of most inputs
  }
  return 0;
}
