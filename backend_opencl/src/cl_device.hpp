// OpenCL platforms and devices: what is there, which one the user asked for, and a listing.
//
// --platform takes an index or a case-insensitive substring of a platform's name or vendor.
// --device takes an index or a case-insensitive substring of a device's name or type ("gpu",
// "cpu", "accelerator"); its index counts the devices of the selected platform, or of every
// platform, GPUs first (in listing order), then the others. PARFILTER_OPENCL_DEVICE says the same
// as "PLATFORM:DEVICE", "PLATFORM:" or "DEVICE"; it is read only when neither --platform nor
// --device is given. The default is the first GPU, else the first device.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cl_api.hpp"
#include "parfilter/backend.hpp"

namespace parfilter::opencl {

inline constexpr std::string_view kDeviceEnvVar = "PARFILTER_OPENCL_DEVICE";

struct PlatformInfo {
  cl_platform_id id = nullptr;
  std::string name;
  std::string vendor;
  std::string version;
};

struct DeviceInfo {
  cl_device_id id = nullptr;
  int platform = 0;  ///< index into the platform list
  int index = 0;     ///< index among its platform's devices
  std::string name;
  std::string version;  ///< CL_DEVICE_VERSION
  std::string driver;   ///< CL_DRIVER_VERSION
  cl_device_type type = CL_DEVICE_TYPE_DEFAULT;
  cl_uint compute_units = 0;
  cl_ulong global_memory = 0;
};

struct DeviceList {
  std::vector<PlatformInfo> platforms;
  std::vector<DeviceInfo> devices;  ///< platform by platform, in the drivers' order
};

/// What the user asked for; empty fields mean "any".
struct DeviceRequest {
  std::string platform;
  std::string device;
  std::string source;  ///< where it came from, for the listing: "--platform/--device", ...
};

/// Parses PARFILTER_OPENCL_DEVICE's value.
[[nodiscard]] DeviceRequest parse_device_env(std::string_view text);

/// The request from the options, else from the environment value `env` (may be null).
[[nodiscard]] DeviceRequest device_request(const BackendOptions& options, const char* env);

/// The chosen device (an index into list.devices), or why there is none: "no OpenCL
/// platform", "no OpenCL platform matching 'x'", "no OpenCL device matching 'y'".
struct DeviceChoice {
  std::optional<std::size_t> device;
  std::string reason;
};
[[nodiscard]] DeviceChoice choose_device(const DeviceList& list, const DeviceRequest& request);

/// How many devices parfilter-mpi spreads its ranks over (by local rank, as --device N) on the
/// platforms `platform` matches (every platform when empty): the GPUs where there are any,
/// else every device.
[[nodiscard]] std::size_t candidate_count(const DeviceList& list, std::string_view platform);

/// Whether an OpenCL driver looks registered with the ICD loader, judged without the loader
/// (its first call starts every driver, about 0.3 s for a GPU's): a .icd file in
/// /etc/OpenCL/vendors, or OCL_ICD_VENDORS or OCL_ICD_FILENAMES set.
[[nodiscard]] bool drivers_look_registered();

/// Every platform and device of this machine (an empty list when the ICD loader finds none).
[[nodiscard]] DeviceList enumerate_devices();

/// The --list-devices text: every platform and device, the chosen one marked with '*'.
[[nodiscard]] std::string describe(const DeviceList& list, const DeviceRequest& request,
                                   const DeviceChoice& choice);

/// "GPU", "CPU", "accelerator" or "other".
[[nodiscard]] std::string_view device_type_name(cl_device_type type);

/// A string-valued clGetDeviceInfo / clGetPlatformInfo query.
[[nodiscard]] std::string device_string(cl_device_id device, cl_device_info what);
[[nodiscard]] std::string platform_string(cl_platform_id platform, cl_platform_info what);

}  // namespace parfilter::opencl
