// Node backends: looked up in the registry the program passes in, made with the device the
// rank's local rank picks.
#include "mpi_node.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string_view>
#include <thread>

#include "parfilter/error.hpp"

namespace parfilter::mpi_detail {
namespace {

constexpr std::string_view kMpiName = "mpi";

/// The first of `names` set in the environment to a number.
std::optional<int> env_int(std::initializer_list<const char*> names) {
  for (const char* name : names) {
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0') continue;
    char* end = nullptr;
    const long number = std::strtol(value, &end, 10);
    if (*end == '\0' && number >= 0 && number <= std::numeric_limits<int>::max()) {
      return static_cast<int>(number);
    }
  }
  return std::nullopt;
}

std::string built_names(std::span<const BackendInfo> backends) {
  std::string names;
  for (const BackendInfo& info : backends) {
    if (info.name == kMpiName) continue;
    names += (names.empty() ? "" : ", ") + std::string(info.name);
  }
  return names;
}

}  // namespace

LocalPlace local_place() {
  LocalPlace place;
  place.rank =
      env_int({"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"}).value_or(0);
  place.size = std::max(
      1, env_int({"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "SLURM_NTASKS_PER_NODE"})
             .value_or(1));
  return place;
}

std::string host_name() {
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int length = 0;
  MPI_Get_processor_name(name, &length);
  return std::string(name, static_cast<std::size_t>(std::max(0, length)));
}

std::unique_ptr<Backend> make_node_backend(const BackendOptions& options, const MpiOptions& mpi) {
  const std::string& name = options.node_backend.empty() ? mpi.node_backend : options.node_backend;
  if (name.empty()) return nullptr;
  if (mpi.backends == nullptr) {
    throw UsageError("--node-backend " + name + ": this program has no registry of backends");
  }
  if (name == kMpiName) throw UsageError("--node-backend mpi: MPI cannot run inside itself");
  const std::span<const BackendInfo> backends = mpi.backends();
  const auto info = std::find_if(backends.begin(), backends.end(),
                                 [&](const BackendInfo& b) { return b.name == name; });
  if (info == backends.end()) {
    throw UsageError("--node-backend '" + name +
                     "': no such backend in this build (built: " + built_names(backends) + ")");
  }
  BackendOptions node;
  // A threaded CPU backend's 0 means every hardware thread: with several ranks per host that
  // would oversubscribe it, so 0 is one thread per rank, as for the MPI backend itself.
  node.threads = info->threaded ? std::max(1, options.threads) : options.threads;
  node.platform = options.platform;
  node.device = options.device;
  std::unique_ptr<Backend> backend = info->create(node);
  if (node.device.empty() && backend->device_count() > 1) {
    node.device = std::to_string(local_place().rank % backend->device_count());
    backend = info->create(node);
  }
  return backend;
}

int device_rank_codec_threads(const BackendOptions& options) {
  if (options.threads > 0) return options.threads;
  const int hardware = static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
  return std::max(1, hardware / local_place().size);
}

}  // namespace parfilter::mpi_detail
