// A chain of ops on one lane: one upload of the input, every step's kernels on device buffers
// (each step reads the previous step's result where it lies), one download of the last result
// into host-mapped memory. start_chain only enqueues, so that a batch keeps several images in
// flight on several lanes (opencl_backend.cpp); finish_chain waits for one.
#pragma once

#include <optional>
#include <vector>

#include "cl_lane.hpp"
#include "parfilter/image.hpp"
#include "parfilter/op_set.hpp"

namespace parfilter::opencl {

/// An image's upload, steps and download enqueued on a lane, not yet waited for.
struct PendingImage {
  std::vector<HistogramBins> histogram;
  std::optional<int> threshold;
  bool downloading = false;
  Image output;  ///< host-mapped; the download's target
  Image input;   ///< a batch's input, kept while the upload may still read it
};

/// Enqueues on `lane` the upload of `input` (a view of every row), each step of `chain`
/// (variants resolved) and the download of the result, and hands them to the device. `owned`:
/// the input's image when the caller gives it up (a batch): its host-mapped buffer becomes the
/// result's when it is large enough (the download follows the upload in the queue), else the
/// image is kept until the lane finishes. On failure the lane has drained before it throws.
[[nodiscard]] PendingImage start_chain(Lane& lane, const OpChain& chain,
                                       const ConstImageView& input, Image* owned = nullptr);

/// Waits for the lane and returns the chain's output; fills `times` from the lane's events.
[[nodiscard]] OpOutput finish_chain(Lane& lane, PendingImage& pending, StageTimes* times);

}  // namespace parfilter::opencl
