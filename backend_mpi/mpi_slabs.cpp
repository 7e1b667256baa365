// One image through a node backend, slab by slab, each run as an image of its own (the plan
// of strip_plan.hpp says why its block's rows are then the whole image's).
#include "mpi_slabs.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "cpu_op.hpp"
#include "filter_math.hpp"
#include "mpi_ops.hpp"
#include "op_kernels.hpp"
#include "row_kernels.hpp"

namespace parfilter::mpi_detail {
namespace {

constexpr double kMsPerSecond = 1000.0;

double since_ms(double start) { return (MPI_Wtime() - start) * kMsPerSecond; }

/// Copies rows `block` of the slab's result, whose first row is output row `first`, into
/// `dst` (this rank's result rows), at either depth.
void keep_block(const Image& slab_out, int first, const Geometry& out, RowRange block,
                const LocalRows& dst) {
  if (slab_out.width() != out.width || slab_out.channels() != out.channels ||
      slab_out.depth() != out.depth || first > block.begin ||
      first + slab_out.height() < block.end) {
    throw std::logic_error("run_slabs: the node backend's slab result has the wrong shape");
  }
  const auto bytes = static_cast<std::size_t>(out.row_bytes());
  std::memcpy(dst.bytes_at(block),
              slab_out.bytes() + static_cast<std::size_t>(block.begin - first) * bytes,
              bytes * static_cast<std::size_t>(block.size()));
}

/// The node backend's run of `segment` on rows `need` of this rank's input, as an image of
/// its own: an 8-bit slab in place, a 16-bit one copied into an image (run_chain_16's input).
template <typename Sample>
OpOutput run_on_slab(Backend& node, const OpChain& segment, const BasicImageView<const Sample>& in,
                     RowRange need) {
  if constexpr (kDepthOf<Sample> == Depth::u8) {
    const ConstImageView slab(in.row(need.begin), in.width(), need.size(), in.channels(),
                              in.stride(), RowRange{0, need.size()});
    return node.run_chain(segment, slab);
  } else {
    Image slab = Image::uninitialized(in.width(), need.size(), in.channels(), Depth::u16);
    const auto row = static_cast<std::size_t>(in.row_samples()) * sizeof(Sample);
    for (int y = need.begin; y < need.end; ++y) {
      std::memcpy(slab.bytes() + static_cast<std::size_t>(y - need.begin) * row, in.row(y), row);
    }
    return node.run_chain_16(segment, slab);
  }
}

}  // namespace

template <typename Sample>
OpOutput run_slabs(const Comm& comm, Backend& node, const OpChain& segment,
                   const BasicImageView<const Sample>& input, bool result_on_every_rank,
                   StageTimes* times) {
  const Geometry in = broadcast_geometry(comm, input);
  ImageShape shape{in.width, in.height, in.channels};
  for (const OpStep& step : segment) shape = result_shape(step.op, shape);
  const Geometry out{shape.width, shape.height, shape.channels, in.depth};
  const std::vector<RowRange> blocks = blocks_of(out.height, comm.size);
  std::vector<RowRange> needs;
  for (const RowRange b : blocks)
    needs.push_back(band_input_rows(segment, in.height, in.channels, b));
  const auto rank = static_cast<std::size_t>(comm.rank);
  const RowRange block = blocks[rank];
  const RowRange need = needs[rank];

  ResultRows result = allocate_result(comm, out, block);
  LocalRows in_rows;
  on_every_rank(comm, [&] {
    if (!comm.is_root()) in_rows = LocalRows(in, need);
  });

  const double scatter_start = MPI_Wtime();
  const BasicImageView<const Sample> local_in = scatter_rows(comm, in, input, needs, in_rows);
  const double scatter_ms = since_ms(scatter_start);

  const double compute_start = MPI_Wtime();
  on_every_rank(comm, [&] {
    if (block.empty()) return;
    const OpOutput slab_out = run_on_slab(node, segment, local_in, need);
    const int first = segment.front().op == Op::pool ? need.begin / kPoolStride : need.begin;
    keep_block(slab_out.image, first, out, block, result.rows);
  });
  const double compute_ms = since_ms(compute_start);

  const double gather_start = MPI_Wtime();
  OpOutput output;
  gather_result(comm, out, blocks, result_on_every_rank, result, output);
  agree_on_times(comm, scatter_ms, compute_ms, since_ms(gather_start), times);
  return output;
}

template OpOutput run_slabs(const Comm&, Backend&, const OpChain&, const ConstImageView&, bool,
                            StageTimes*);
template OpOutput run_slabs(const Comm&, Backend&, const OpChain&, const ConstImageView16&, bool,
                            StageTimes*);

}  // namespace parfilter::mpi_detail
