#include "parfilter/backends/serial.hpp"

#include "cpu_backend.hpp"

namespace parfilter {
namespace {

/// The whole image as one block on the calling thread.
class SerialScheduler final : public RowScheduler {
 public:
  [[nodiscard]] int max_blocks() const override { return 1; }
  void for_each_block(int rows, const std::function<void(RowRange, int)>& fn) override {
    if (rows > 0) fn(RowRange{0, rows}, 0);
  }
};

}  // namespace

std::unique_ptr<Backend> make_serial_backend(const BackendOptions& /*options*/) {
  return make_cpu_backend("serial", std::make_unique<SerialScheduler>(), 1, false);
}

}  // namespace parfilter
