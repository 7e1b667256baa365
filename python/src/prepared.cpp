#include "prepared.hpp"

#include <cstddef>

#include "parfilter/op_set.hpp"

namespace parfilter::python {
namespace {

/// Below this many samples, a call that leaves the threads to parfilter runs on one: starting
/// the workers' parallel regions (microseconds each, several per op) costs more than the work
/// they would split. 64x64 gray otsu on OpenMP: 24 us on every core, about 7 us on one.
constexpr std::size_t kOneThreadSamples = std::size_t{1} << 16;

}  // namespace

PreparedChain::PreparedChain(const OpChain& chain, const std::string& backend, int threads)
    : slot_(&BackendPool::shared().slot(backend, threads)),
      one_(threads == 0 ? &BackendPool::shared().slot(backend, 1) : slot_) {
  const nb::gil_scoped_release release;
  const BackendPool::Lease lease = BackendPool::shared().lease(*slot_);
  chain_ = resolve_chain(*lease, chain);
  last_traits_ = &op_info(chain_.back().op).traits;
}

nb::object PreparedChain::run(const HostArray& array) const {
  const ArrayInput input(array);
  OpOutput output;
  {
    const nb::gil_scoped_release release;
    const BackendPool::Lease lease =
        BackendPool::shared().lease(input.samples() < kOneThreadSamples ? *one_ : *slot_);
    for (const OpStep& step : chain_) validate_params(step.op, step.params, input.depth());
    check_depth(*lease, input.depth());
    output = input.run(*lease, chain_);
  }
  if (last_traits_->histogram_result) return histogram_array(output);
  nb::object image = to_array(std::move(output.image), input.channel_axis());
  if (last_traits_->gives_threshold() && output.threshold) {
    return nb::make_tuple(image, *output.threshold);
  }
  return image;
}

}  // namespace parfilter::python
