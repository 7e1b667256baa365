#include "cl_device.hpp"

#include <CL/cl_ext.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <iomanip>
#include <sstream>

namespace parfilter::opencl {
namespace {

constexpr double kBytesPerGiB = 1024.0 * 1024.0 * 1024.0;
/// Where the ICD loaders (ocl-icd, Khronos) look for the drivers' .icd files by default.
constexpr std::string_view kVendorsDir = "/etc/OpenCL/vendors";

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool contains_ci(std::string_view haystack, std::string_view needle) {
  return lower(haystack).find(lower(needle)) != std::string::npos;
}

/// The index `text` names, when it is all digits.
std::optional<std::size_t> as_index(std::string_view text) {
  if (text.empty() || !std::all_of(text.begin(), text.end(),
                                   [](unsigned char c) { return std::isdigit(c) != 0; })) {
    return std::nullopt;
  }
  try {
    return static_cast<std::size_t>(std::stoull(std::string(text)));
  } catch (const std::exception&) {
    return static_cast<std::size_t>(-1);  // too large to name anything
  }
}

bool platform_matches(const PlatformInfo& platform, std::size_t index, std::string_view want) {
  if (const auto n = as_index(want)) return *n == index;
  return contains_ci(platform.name, want) || contains_ci(platform.vendor, want);
}

bool device_matches(const DeviceInfo& device, std::string_view want) {
  return contains_ci(device.name, want) || contains_ci(device_type_name(device.type), want);
}

std::string in_quotes(std::string_view text) { return "'" + std::string(text) + "'"; }

template <typename Query, typename Object, typename Info>
std::string info_string(Query query, Object object, Info what, std::string_view call) {
  std::size_t size = 0;
  check(query(object, what, 0, nullptr, &size), call);
  std::string text(size, '\0');
  check(query(object, what, size, text.data(), nullptr), call);
  while (!text.empty() && (text.back() == '\0' || text.back() == ' ')) text.pop_back();
  return text;
}

template <typename T>
T device_value(cl_device_id device, cl_device_info what) {
  T value{};
  check(clGetDeviceInfo(device, what, sizeof(value), &value, nullptr), "clGetDeviceInfo");
  return value;
}

}  // namespace

std::string_view device_type_name(cl_device_type type) {
  if ((type & CL_DEVICE_TYPE_GPU) != 0) return "GPU";
  if ((type & CL_DEVICE_TYPE_CPU) != 0) return "CPU";
  if ((type & CL_DEVICE_TYPE_ACCELERATOR) != 0) return "accelerator";
  return "other";
}

std::string device_string(cl_device_id device, cl_device_info what) {
  return info_string(clGetDeviceInfo, device, what, "clGetDeviceInfo");
}

std::string platform_string(cl_platform_id platform, cl_platform_info what) {
  return info_string(clGetPlatformInfo, platform, what, "clGetPlatformInfo");
}

DeviceRequest parse_device_env(std::string_view text) {
  DeviceRequest request;
  request.source = std::string(kDeviceEnvVar) + "=" + std::string(text);
  if (const auto colon = text.find(':'); colon != std::string_view::npos) {
    request.platform = std::string(text.substr(0, colon));
    request.device = std::string(text.substr(colon + 1));
  } else {
    request.device = std::string(text);
  }
  return request;
}

DeviceRequest device_request(const BackendOptions& options, const char* env) {
  if (!options.platform.empty() || !options.device.empty()) {
    return {options.platform, options.device, "--platform/--device"};
  }
  if (env != nullptr && *env != '\0') return parse_device_env(env);
  return {"", "", "default: the first GPU, else the first device"};
}

namespace {

/// The devices on the platforms `platform` matches (every one when empty), platform by
/// platform, GPUs first: what an index (--device N, the listing's [N]) counts.
std::vector<std::size_t> ordered_candidates(const DeviceList& list, std::string_view platform) {
  std::vector<std::size_t> candidates;
  for (std::size_t p = 0; p < list.platforms.size(); ++p) {
    if (!platform.empty() && !platform_matches(list.platforms[p], p, platform)) continue;
    for (std::size_t d = 0; d < list.devices.size(); ++d) {
      if (list.devices[d].platform == static_cast<int>(p)) candidates.push_back(d);
    }
  }
  // GPUs first, so that index N names the N-th GPU wherever there are GPUs (ranks spread
  // over a host's GPUs by index, never onto a CPU device beside them).
  std::stable_partition(candidates.begin(), candidates.end(), [&](std::size_t d) {
    return (list.devices[d].type & CL_DEVICE_TYPE_GPU) != 0;
  });
  return candidates;
}

}  // namespace

DeviceChoice choose_device(const DeviceList& list, const DeviceRequest& request) {
  if (list.platforms.empty()) return {std::nullopt, "no OpenCL platform"};
  bool any_platform = request.platform.empty();
  for (std::size_t p = 0; p < list.platforms.size() && !any_platform; ++p) {
    any_platform = platform_matches(list.platforms[p], p, request.platform);
  }
  if (!any_platform) {
    return {std::nullopt, "no OpenCL platform matching " + in_quotes(request.platform)};
  }
  const std::vector<std::size_t> candidates = ordered_candidates(list, request.platform);
  const std::string where =
      request.platform.empty() ? "" : " on platform " + in_quotes(request.platform);
  if (candidates.empty()) return {std::nullopt, "no OpenCL device" + where};
  if (request.device.empty()) return {candidates.front(), ""};  // the first GPU, else device 0
  if (const auto n = as_index(request.device)) {
    if (*n < candidates.size()) return {candidates[*n], ""};
  } else {
    for (const std::size_t d : candidates) {
      if (device_matches(list.devices[d], request.device)) return {d, ""};
    }
  }
  return {std::nullopt, "no OpenCL device matching " + in_quotes(request.device) + where};
}

std::size_t candidate_count(const DeviceList& list, std::string_view platform) {
  const std::vector<std::size_t> candidates = ordered_candidates(list, platform);
  const auto gpus = std::count_if(candidates.begin(), candidates.end(), [&](std::size_t d) {
    return (list.devices[d].type & CL_DEVICE_TYPE_GPU) != 0;
  });
  return gpus > 0 ? static_cast<std::size_t>(gpus) : candidates.size();
}

bool drivers_look_registered() {
  namespace fs = std::filesystem;
  std::error_code error;
  // OCL_ICD_FILENAMES: driver libraries, ':'-separated (a bare name is dlopen's to find).
  if (const char* names = std::getenv("OCL_ICD_FILENAMES"); names != nullptr) {
    std::string_view rest(names);
    while (!rest.empty()) {
      const std::string_view name = rest.substr(0, rest.find(':'));
      rest.remove_prefix(std::min(rest.size(), name.size() + 1));
      if (!name.empty() && (name.find('/') == std::string_view::npos ||
                            fs::is_regular_file(fs::path(name), error))) {
        return true;
      }
    }
  }
  // OCL_ICD_VENDORS (else the default): a directory of .icd files, or one such file.
  const char* vendors = std::getenv("OCL_ICD_VENDORS");
  const fs::path where(vendors != nullptr && *vendors != '\0' ? std::string_view(vendors)
                                                              : kVendorsDir);
  if (fs::is_regular_file(where, error)) return true;
  fs::directory_iterator entry(where, error);
  for (; !error && entry != fs::directory_iterator(); entry.increment(error)) {
    if (entry->path().extension() == ".icd") return true;
  }
  return false;
}

DeviceList enumerate_devices() {
  DeviceList list;
  cl_uint platform_count = 0;
  const cl_int status = clGetPlatformIDs(0, nullptr, &platform_count);
  // The ICD loader says CL_PLATFORM_NOT_FOUND_KHR when no driver is registered.
  if (status == CL_PLATFORM_NOT_FOUND_KHR || platform_count == 0) return list;
  check(status, "clGetPlatformIDs");
  std::vector<cl_platform_id> platforms(platform_count);
  check(clGetPlatformIDs(platform_count, platforms.data(), nullptr), "clGetPlatformIDs");
  for (std::size_t p = 0; p < platforms.size(); ++p) {
    const cl_platform_id platform = platforms[p];
    list.platforms.push_back({platform, platform_string(platform, CL_PLATFORM_NAME),
                              platform_string(platform, CL_PLATFORM_VENDOR),
                              platform_string(platform, CL_PLATFORM_VERSION)});
    cl_uint device_count = 0;
    const cl_int found = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &device_count);
    if (found == CL_DEVICE_NOT_FOUND || device_count == 0) continue;
    check(found, "clGetDeviceIDs");
    std::vector<cl_device_id> devices(device_count);
    check(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, device_count, devices.data(), nullptr),
          "clGetDeviceIDs");
    for (std::size_t d = 0; d < devices.size(); ++d) {
      const cl_device_id id = devices[d];
      list.devices.push_back(
          {id, static_cast<int>(p), static_cast<int>(d), device_string(id, CL_DEVICE_NAME),
           device_string(id, CL_DEVICE_VERSION), device_string(id, CL_DRIVER_VERSION),
           device_value<cl_device_type>(id, CL_DEVICE_TYPE),
           device_value<cl_uint>(id, CL_DEVICE_MAX_COMPUTE_UNITS),
           device_value<cl_ulong>(id, CL_DEVICE_GLOBAL_MEM_SIZE)});
    }
  }
  return list;
}

std::string describe(const DeviceList& list, const DeviceRequest& request,
                     const DeviceChoice& choice) {
  std::ostringstream out;
  const std::vector<std::size_t> order = ordered_candidates(list, "");
  if (list.platforms.empty())
    out << "no OpenCL platform (no driver registered with the ICD loader)\n";
  for (std::size_t p = 0; p < list.platforms.size(); ++p) {
    const PlatformInfo& platform = list.platforms[p];
    out << "platform " << p << ": " << platform.name << " (" << platform.vendor << "; "
        << platform.version << ")\n";
    for (std::size_t d = 0; d < list.devices.size(); ++d) {
      const DeviceInfo& device = list.devices[d];
      if (device.platform != static_cast<int>(p)) continue;
      const auto listed = std::find(order.begin(), order.end(), d) - order.begin();
      out << (choice.device == d ? "  * " : "    ") << "[" << listed << "] device " << device.index
          << ": " << device.name << " (" << device_type_name(device.type) << ", "
          << device.compute_units << " compute units, " << std::fixed << std::setprecision(1)
          << static_cast<double>(device.global_memory) / kBytesPerGiB << " GiB, " << device.version
          << ", driver " << device.driver << ")\n";
    }
  }
  out << "selection: " << request.source;
  if (!request.platform.empty()) out << "; platform " << in_quotes(request.platform);
  if (!request.device.empty()) out << "; device " << in_quotes(request.device);
  out << (choice.device ? "" : "; " + choice.reason) << "\n"
      << "(--device takes the [N] above, or the device number with --platform, or a name)\n";
  return out.str();
}

}  // namespace parfilter::opencl
