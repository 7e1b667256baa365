// OpenCV's counterparts of the benchmarked ops, run in the same process at the same thread
// count. Built against OpenCV when CMake finds it (opencv_ops.cpp), else as stubs that say so
// (opencv_absent.cpp), so the benchmark builds and runs either way.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "parfilter/image.hpp"
#include "parfilter/op_set.hpp"

namespace parfilter::bench {

/// "OpenCV 4.6.0, parallel framework: TBB ...", or nullopt when built without OpenCV.
[[nodiscard]] std::optional<std::string> opencv_description();

/// cv::setNumThreads(threads); nothing without OpenCV.
void opencv_set_threads(int threads);

/// One OpenCV counterpart: `run` does the op once (its inputs wrapped or converted and its
/// outputs allocated beforehand, as an OpenCV program reuses its Mats); `calls` names the
/// OpenCV functions it makes. `run` is empty when OpenCV has no counterpart for the op.
struct OpenCvCounterpart {
  std::function<void()> run;
  std::string calls;
};

/// The counterpart of `op` with `params` on `input` (interleaved RGB(A) or gray), which must
/// outlive the result.
[[nodiscard]] OpenCvCounterpart opencv_counterpart(Op op, const OpParams& params,
                                                   const Image& input);

}  // namespace parfilter::bench
