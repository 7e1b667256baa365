// gaussian: the 5x5 kernel with sigma's integer weights, in six techniques
// (kernels/gaussian_*.cu).
#include <cstdint>
#include <cstring>

#include "cuda_op.hpp"
#include "filter_math.hpp"

namespace parfilter::cuda::ops {
namespace {

constexpr std::array<VariantName<GaussianVariant>, 6> kVariants = {
    {{"registers", GaussianVariant::registers},
     {"separable", GaussianVariant::separable},
     {"direct", GaussianVariant::direct},
     {"unrolled", GaussianVariant::unrolled},
     {"lut", GaussianVariant::lut},
     {"texture", GaussianVariant::texture}}};

std::vector<std::string> variants() { return variant_names(kVariants); }

/// Copies `bytes` from host memory to the device through pinned memory, on the stream.
void upload_small(Workspace& ws, void* device, const void* host, std::size_t bytes) {
  ws.reserve(ws.host_small, bytes);
  std::memcpy(ws.host_small.get(), host, bytes);
  CUDA_CHECK(
      cudaMemcpyAsync(device, ws.host_small.get(), bytes, cudaMemcpyHostToDevice, ws.stream.get()));
}

/// The tables the direct kernel (the 25 weights) and the lut kernel (the 6 x 256 products)
/// read from global memory; the other techniques need none.
GaussianTables upload_tables(Workspace& ws, GaussianVariant variant,
                             const GaussianWeights& weights) {
  GaussianTables tables;
  if (variant != GaussianVariant::direct && variant != GaussianVariant::lut) return tables;
  std::vector<std::uint32_t> host;
  if (variant == GaussianVariant::direct) {
    for (int i = 0; i < kGaussianTaps; ++i) {
      for (int j = 0; j < kGaussianTaps; ++j) {
        host.push_back(static_cast<std::uint32_t>(weights.weight(i, j)));
      }
    }
  } else {
    for (const auto& row : gaussian_lut(weights)) host.insert(host.end(), row.begin(), row.end());
  }
  const std::size_t bytes = host.size() * sizeof(std::uint32_t);
  ws.reserve(ws.tables, bytes);
  upload_small(ws, ws.tables.get(), host.data(), bytes);
  tables.weights = ws.tables.as<const int>();
  tables.lut = ws.tables.as<const std::uint32_t>();
  return tables;
}

DeviceResult run(Workspace& ws, const OpParams& params, const DeviceImage& in) {
  const DeviceImage out = ws.image(ws.output, in.width, in.height, in.channels);
  const GaussianVariant variant = variant_value(kVariants, params.variant);
  const GaussianWeights weights = gaussian_weights(params.sigma);
  const GaussianTables tables = upload_tables(ws, variant, weights);
  // The texture launcher waits for its kernel (the texture object must outlive it): the
  // stream has to run, so its launch gap counts as kernel time.
  if (variant == GaussianVariant::texture) ws.gate.open();
  launch_gaussian(variant, in, out, weights.q, tables, params.border, ws.stream.get());
  return DeviceResult{out, {}, {}};
}

}  // namespace

extern const CudaOp gaussian_op{"gaussian", variants, run, Chain16::step_of<&Chain16::gaussian>};

}  // namespace parfilter::cuda::ops
