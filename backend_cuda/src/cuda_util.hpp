// Host-side CUDA boilerplate, written once: the error check every runtime call goes through,
// and RAII owners of device memory, pinned host memory, streams, events and texture objects.
// Every failure becomes a parfilter::RuntimeError naming the call and the CUDA error.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

namespace parfilter::cuda {

/// Throws RuntimeError("<call>: <error name> (<description>)") unless status is cudaSuccess.
/// Out-of-memory errors say so first, so the one-line message reads clearly.
void check(cudaError_t status, const char* call);

/// Checks the launch of `kernel` just enqueued (bad configuration, no kernel image, a fault of
/// an earlier kernel).
void check_launch(const char* kernel);

/// Whether a CUDA device looks visible to this process, judged without the CUDA runtime (whose
/// first call waits for the driver's start, 0.3 s): the NVIDIA driver's control node and a
/// device node exist, and CUDA_VISIBLE_DEVICES, where set, names a device first (the runtime
/// shows none when its first entry is empty or invalid). Asked once.
[[nodiscard]] bool device_looks_visible();

}  // namespace parfilter::cuda

/// Checks a CUDA runtime call: CUDA_CHECK(cudaMemcpyAsync(...)).
#define CUDA_CHECK(call) ::parfilter::cuda::check((call), #call)
/// Checks the kernel launch written just before it.
#define CUDA_CHECK_LAUNCH(kernel) ::parfilter::cuda::check_launch(kernel)

namespace parfilter::cuda {

/// Owns one allocation made by Alloc and released by Free. Grow-only: reserve() reallocates
/// (dropping the contents) only when the request exceeds the capacity, so buffers are reused
/// across --repeat runs and across the images of a batch. The usable bytes start at a multiple
/// of kAlignment (texture objects over linear memory need 512-byte aligned addresses; cudaMalloc
/// promises only 256).
template <typename Alloc, typename Free>
class OwnedBytes {
 public:
  static constexpr std::size_t kAlignment = 512;

  OwnedBytes() = default;
  OwnedBytes(const OwnedBytes&) = delete;
  OwnedBytes& operator=(const OwnedBytes&) = delete;
  OwnedBytes(OwnedBytes&& other) noexcept { take(other); }
  OwnedBytes& operator=(OwnedBytes&& other) noexcept {
    if (this != &other) {
      release();
      take(other);
    }
    return *this;
  }
  ~OwnedBytes() { release(); }

  void reserve(std::size_t bytes) {
    if (bytes <= bytes_) return;
    release();
    raw_ = Alloc{}(bytes + kAlignment - 1);
    const auto address = reinterpret_cast<std::uintptr_t>(raw_);
    data_ = static_cast<char*>(raw_) + (kAlignment - address % kAlignment) % kAlignment;
    bytes_ = bytes;
  }
  [[nodiscard]] void* get() const { return data_; }
  template <typename T>
  [[nodiscard]] T* as() const {
    return static_cast<T*>(data_);
  }
  [[nodiscard]] std::size_t capacity() const { return bytes_; }

 private:
  void take(OwnedBytes& other) noexcept {
    raw_ = std::exchange(other.raw_, nullptr);
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  void release() noexcept {
    if (raw_ != nullptr) Free{}(raw_);  // errors while freeing cannot be reported usefully
    raw_ = nullptr;
    data_ = nullptr;
    bytes_ = 0;
  }
  void* raw_ = nullptr;
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

struct DeviceAlloc {
  void* operator()(std::size_t bytes) const;
};
struct DeviceFree {
  void operator()(void* p) const noexcept;
};
struct PinnedAlloc {
  void* operator()(std::size_t bytes) const;
};
struct PinnedFree {
  void operator()(void* p) const noexcept;
};

/// Device memory (cudaMalloc).
using DeviceBuffer = OwnedBytes<DeviceAlloc, DeviceFree>;
/// Page-locked host memory (cudaMallocHost): transfers from it run at full speed and
/// asynchronously.
using PinnedBuffer = OwnedBytes<PinnedAlloc, PinnedFree>;

/// A non-blocking stream.
class Stream {
 public:
  Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  ~Stream();
  [[nodiscard]] cudaStream_t get() const { return stream_; }
  void synchronize() const;

 private:
  cudaStream_t stream_ = nullptr;
};

/// An event with timing.
class Event {
 public:
  Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  ~Event();
  [[nodiscard]] cudaEvent_t get() const { return event_; }
  void record(cudaStream_t stream) const;
  /// Milliseconds from `start` to this event; both must have completed.
  [[nodiscard]] float ms_since(const Event& start) const;

 private:
  cudaEvent_t event_ = nullptr;
};

/// Holds a stream's work back until the host has queued all of it. Events recorded between
/// commands on a stream time what the GPU does between them, idle time included: with a short
/// upload the GPU reaches the kernels' start event long before the host has launched them, and
/// the launch gaps would count as kernel time. close() enqueues a one-thread kernel that waits
/// for a pinned flag; open() writes the flag, so the stream runs what was queued behind the
/// gate back to back. Anything that waits for the device (a stream synchronize, cudaFree,
/// cudaFreeHost) must open the gate first, or it waits for the gate's time limit
/// (kernels/stream_gate.cu).
class StreamGate {
 public:
  StreamGate() = default;
  StreamGate(const StreamGate&) = delete;
  StreamGate& operator=(const StreamGate&) = delete;
  ~StreamGate() { open(); }
  /// Enqueues the wait on `stream` (opening a gate still closed first).
  void close(cudaStream_t stream);
  /// Lets the stream run on; does nothing when the gate is open.
  void open() noexcept;

 private:
  PinnedBuffer flag_;
  std::uint32_t* device_flag_ = nullptr;
  std::uint32_t ticket_ = 0;  ///< the value the newest gate waits for
  bool closed_ = false;
};

/// A texture object over pitched device memory; destroyed with the owner.
class TextureObject {
 public:
  TextureObject(const cudaResourceDesc& resource, const cudaTextureDesc& texture);
  TextureObject(const TextureObject&) = delete;
  TextureObject& operator=(const TextureObject&) = delete;
  ~TextureObject();
  [[nodiscard]] cudaTextureObject_t get() const { return texture_; }

 private:
  cudaTextureObject_t texture_ = 0;
};

}  // namespace parfilter::cuda
