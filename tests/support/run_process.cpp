#include "support/run_process.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace parfilter::test {
namespace {

constexpr mode_t kCaptureMode = 0600;
constexpr int kExecFailed = 127;  // as a shell reports a command it could not run
constexpr auto kPollInterval = std::chrono::milliseconds(2);

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<char*> pointers_to(std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  for (auto& s : strings) pointers.push_back(s.data());
  pointers.push_back(nullptr);
  return pointers;
}

/// In the child, between fork and exec: async-signal-safe calls only.
[[noreturn]] void exec_child(const char* out_path, const char* err_path,
                             const ProcessLimits& limits, char* const* argv, char* const* envp) {
  const int out = ::open(out_path, O_WRONLY | O_CREAT | O_TRUNC, kCaptureMode);
  const int err = ::open(err_path, O_WRONLY | O_CREAT | O_TRUNC, kCaptureMode);
  if (out < 0 || err < 0 || ::dup2(out, STDOUT_FILENO) < 0 || ::dup2(err, STDERR_FILENO) < 0) {
    ::_exit(kExecFailed);
  }
  ::close(out);
  ::close(err);
  ::signal(SIGXFSZ, SIG_DFL);
  if (limits.file_size_bytes) {
    const rlimit limit{*limits.file_size_bytes, *limits.file_size_bytes};
    if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) ::_exit(kExecFailed);
  }
  if (limits.address_space_bytes) {
    const rlimit limit{*limits.address_space_bytes, *limits.address_space_bytes};
    if (::setrlimit(RLIMIT_AS, &limit) != 0) ::_exit(kExecFailed);
  }
  ::execve(argv[0], argv, envp);
  ::_exit(kExecFailed);
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv,
                          const std::filesystem::path& capture_dir,
                          const std::vector<std::string>& extra_environment,
                          const ProcessLimits& limits) {
  const auto out_path = capture_dir / "stdout";
  const auto err_path = capture_dir / "stderr";
  std::vector<std::string> arguments = argv;
  std::vector<std::string> environment;
  for (char** e = environ; *e != nullptr; ++e) environment.emplace_back(*e);
  environment.insert(environment.end(), extra_environment.begin(), extra_environment.end());
  std::vector<char*> argument_pointers = pointers_to(arguments);
  std::vector<char*> environment_pointers = pointers_to(environment);

  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("cannot start " + arguments[0]);
  if (pid == 0) {
    exec_child(out_path.c_str(), err_path.c_str(), limits, argument_pointers.data(),
               environment_pointers.data());
  }
  ProcessResult result;
  const auto deadline = std::chrono::steady_clock::now() + limits.timeout;
  int status = 0;
  while (true) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) throw std::runtime_error("waitpid failed");
    if (!result.timed_out && std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      result.timed_out = true;
    }
    std::this_thread::sleep_for(kPollInterval);
  }
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  result.out = read_file(out_path);
  result.err = read_file(err_path);
  return result;
}

}  // namespace parfilter::test
