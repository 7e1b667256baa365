// The CUDA backend the CUDA test programs share, and the skip when this machine has no GPU.
#pragma once

#include <gtest/gtest.h>

#include <memory>

#include "parfilter/backends/cuda.hpp"

namespace parfilter::test {

inline Backend& cuda_backend() {
  static const std::unique_ptr<Backend> backend = make_cuda_backend({});
  return *backend;
}

}  // namespace parfilter::test

/// Skips the test, with the reason, where no CUDA device is present.
#define SKIP_WITHOUT_GPU()                                                                \
  do {                                                                                    \
    const ::parfilter::Availability a = ::parfilter::test::cuda_backend().availability(); \
    if (!a.present) GTEST_SKIP() << "cuda: " << a.reason;                                 \
  } while (false)
