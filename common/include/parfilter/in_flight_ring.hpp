// The ring of images a device backend keeps in flight in a batch (CUDA's streams, OpenCL's
// queues): image i is started on slot i mod depth once that slot's previous image is finished,
// so that one image uploads while the ones before it compute and download, and results come
// back in input order. The device's half (what a slot enqueues and waits for) is the backend's;
// the order, the retiring, the failures and the unwinding are here, once.
#pragma once

#include <concepts>
#include <cstddef>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "parfilter/backend.hpp"

namespace parfilter {

/// A device's queues or streams, each with its buffers, lent to one caller at a time: callers
/// on several threads (a streamed chain's device stages, Python threads) never share one, and
/// repeated runs reuse what an earlier one allocated. An object goes back idle once its
/// drain() (noexcept) has waited for its commands.
template <typename T>
class LeasePool {
 public:
  /// An object on loan, back to its pool when the lease ends.
  class Lease {
   public:
    Lease(LeasePool& pool, std::unique_ptr<T> object) : pool_(&pool), object_(std::move(object)) {}
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    Lease(Lease&& other) noexcept = default;
    Lease& operator=(Lease&& other) noexcept = delete;
    ~Lease() {
      if (!object_) return;
      object_->drain();
      const std::scoped_lock lock(pool_->mutex_);
      pool_->idle_.push_back(std::move(object_));
    }
    [[nodiscard]] T& operator*() const { return *object_; }
    [[nodiscard]] T* operator->() const { return object_.get(); }

   private:
    LeasePool* pool_;
    std::unique_ptr<T> object_;
  };

  /// An idle object, else a new one from `make()` (a std::unique_ptr<T>).
  template <typename Make>
  [[nodiscard]] Lease lease(Make&& make) {
    {
      const std::scoped_lock lock(mutex_);
      if (!idle_.empty()) {
        std::unique_ptr<T> object = std::move(idle_.back());
        idle_.pop_back();
        return {*this, std::move(object)};
      }
    }
    return {*this, std::forward<Make>(make)()};
  }

 private:
  std::mutex mutex_;
  std::vector<std::unique_ptr<T>> idle_;
};

/// Runs `run(&times)` for input `index` and reports its result or its failure to `callbacks`
/// (a failure in `done` itself is the caller's, not the input's).
template <typename Run>
void report_run(const BatchCallbacks& callbacks, std::size_t index, Run&& run) {
  StageTimes times;
  OpOutput output;
  try {
    output = std::forward<Run>(run)(&times);
  } catch (...) {
    callbacks.failed(index, std::current_exception());
    return;
  }
  callbacks.done(index, std::move(output), times);
}

/// A device's half of the ring. Slots are numbered 0 .. depth - 1; a slot holds one image at a
/// time, from start() to finish().
template <typename Device>
concept InFlightDevice = requires(Device& device, std::size_t slot, BatchInput& input,
                                  typename Device::Pending& pending, StageTimes* times) {
  /// Enqueues the input's upload, kernels and download on the slot without waiting; the
  /// Pending keeps what those commands use (the input may be moved into it).
  { device.start(slot, input) } -> std::same_as<typename Device::Pending>;
  /// Waits for the slot's commands and hands the result over.
  { device.finish(slot, pending, times) } -> std::same_as<OpOutput>;
  /// Whether the input may overlap others; one that may not (a 16-bit image) runs alone...
  { device.overlaps(input) } -> std::same_as<bool>;
  /// ... through run_alone, on a slot with nothing in flight.
  { device.run_alone(slot, input, times) } -> std::same_as<OpOutput>;
  /// Waits for the slot's commands, ignoring errors, before its Pending is dropped unfinished
  /// (the batch is unwinding).
  { device.abandon(slot) }
  noexcept;
};

/// The batch of `callbacks` on `device`, `depth` images in flight.
template <InFlightDevice Device>
void run_in_flight(Device& device, std::size_t depth, const BatchCallbacks& callbacks) {
  using Pending = typename Device::Pending;
  struct Slot {
    std::size_t index = 0;
    std::optional<Pending> pending;
  };
  /// Slots in flight when the batch unwinds (a callback threw) wait before they are freed:
  /// their commands may still read their input and write their result.
  struct Ring {
    Device& device;
    std::vector<Slot> slots;
    Ring(Device& d, std::size_t n) : device(d), slots(n) {}
    Ring(const Ring&) = delete;
    Ring& operator=(const Ring&) = delete;
    ~Ring() {
      for (std::size_t s = 0; s < slots.size(); ++s) {
        if (slots[s].pending) device.abandon(s);
      }
    }
  };
  Ring ring(device, depth == 0 ? 1 : depth);
  std::vector<Slot>& slots = ring.slots;
  const auto retire = [&](std::size_t s) {
    Slot& slot = slots[s];
    if (!slot.pending) return;
    Pending pending = std::move(*slot.pending);
    slot.pending.reset();
    report_run(callbacks, slot.index,
               [&](StageTimes* times) { return device.finish(s, pending, times); });
  };
  std::size_t started = 0;
  const auto retire_all = [&] {
    for (std::size_t k = 0; k < slots.size(); ++k) retire((started + k) % slots.size());
  };
  for (std::optional<BatchInput> input = callbacks.next(); input; input = callbacks.next()) {
    if (!device.overlaps(*input)) {
      retire_all();  // after the images in flight, so that results stay in input order
      const std::size_t s = started % slots.size();
      report_run(callbacks, input->index,
                 [&](StageTimes* times) { return device.run_alone(s, *input, times); });
      continue;
    }
    const std::size_t s = started++ % slots.size();
    retire(s);  // the oldest image in flight
    slots[s].index = input->index;
    try {
      slots[s].pending.emplace(device.start(s, *input));
    } catch (...) {
      device.abandon(s);  // what it enqueued before it failed may still read the input
      callbacks.failed(input->index, std::current_exception());
    }
  }
  retire_all();
}

}  // namespace parfilter
