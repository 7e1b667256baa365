#include "parfilter/backends/serial.hpp"

#include "cpu_backend.hpp"

namespace parfilter {

std::unique_ptr<Backend> make_serial_backend(const BackendOptions& /*options*/) {
  return make_cpu_backend("serial", std::make_unique<CallingThreadScheduler>(), 1, false);
}

}  // namespace parfilter
