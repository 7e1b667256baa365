// The OpenCV counterparts when the benchmark was built without OpenCV: none.
#include "opencv_ops.hpp"

namespace parfilter::bench {

std::optional<std::string> opencv_description() { return std::nullopt; }

void opencv_set_threads(int /*threads*/) {}

OpenCvCounterpart opencv_counterpart(Op /*op*/, const OpParams& /*params*/,
                                     const Image& /*input*/) {
  return {};
}

}  // namespace parfilter::bench
