// What the OpenCL tests on a device share: the device the backend would choose, and the
// fixture that runs the backend there (skipped, with the reason, where there is none).
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>

#include "cl_device.hpp"
#include "parfilter/backend.hpp"
#include "parfilter/backends/opencl.hpp"

namespace parfilter::opencl {

/// The device the backend would choose, or why there is none.
inline DeviceChoice test_choice(DeviceList& list) {
  list = enumerate_devices();
  return choose_device(list, device_request({}, std::getenv("PARFILTER_OPENCL_DEVICE")));
}

class OpenClBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    backend_ = make_opencl_backend({});
    const Availability availability = backend_->availability();
    if (!availability.present) GTEST_SKIP() << availability.reason;
  }
  std::unique_ptr<Backend> backend_;
};

}  // namespace parfilter::opencl
