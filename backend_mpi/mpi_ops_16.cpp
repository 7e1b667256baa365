// Each op on 16-bit rows as the ranks run it: the CPU backends' 16-bit kernels (the tuned
// ones of row_kernels_deep.hpp, the spec's own loops of reference_rows.hpp for the rest) over
// the scheduler's blocks of this rank's rows, with the collectives of the 8-bit path between
// them (histograms summed over the ranks, halos exchanged between morphology steps). The
// split over the ranks is the 8-bit path's plan: the halos are the spec's at both depths.
#include <cstdint>
#include <functional>
#include <span>
#include <utility>
#include <vector>

#include "filter_math.hpp"
#include "mpi_ops.hpp"
#include "reference_rows.hpp"
#include "row_kernels_deep.hpp"

namespace parfilter::mpi_detail {
namespace {

using Sample = std::uint16_t;
using Local = LocalRowsOf<Sample>;
using Histogram = std::vector<std::uint64_t>;
constexpr int kLevels = reference::kLevels<Sample>;

/// Runs fn(rows) over the scheduler's blocks of `range` (rows of the image).
void for_rows(const Local& local, RowRange range, const std::function<void(RowRange)>& fn) {
  local.scheduler.for_each_block(range.size(), [&](RowRange block, int /*index*/) {
    fn(RowRange{range.begin + block.begin, range.begin + block.end});
  });
}

/// Counts from count(rows, hist) over this rank's block, one histogram per scheduler block,
/// summed, then summed over every rank. The allreduce is outside on_every_rank: every rank
/// reaches it after agreeing that the counting succeeded.
template <typename Count>
Histogram counted_over_ranks(const Local& local, Count&& count) {
  Histogram total(kLevels, 0);
  on_every_rank(local.comm, [&] {
    std::vector<Histogram> per_block(static_cast<std::size_t>(local.scheduler.max_blocks()),
                                     Histogram(kLevels, 0));
    local.scheduler.for_each_block(local.block.size(), [&](RowRange block, int index) {
      const RowRange rows{local.block.begin + block.begin, local.block.begin + block.end};
      count(rows, std::span<std::uint64_t>(per_block[static_cast<std::size_t>(index)]));
    });
    for (const Histogram& hist : per_block) {
      for (std::size_t v = 0; v < total.size(); ++v) total[v] += hist[v];
    }
  });
  allreduce_counts(local.comm, total);
  return total;
}

/// The gray plane of this rank's input rows: the rows themselves when gray, else converted.
struct LocalGray {
  LocalRows storage;
  reference::In<Sample> view;
};

LocalGray local_gray(const Local& local) {
  if (local.in_geometry.channels == 1) return {{}, local.in};
  const Geometry& g = local.in_geometry;
  LocalGray gray{LocalRows({g.width, g.height, 1, Depth::u16}, local.in.rows()), {}};
  gray.view = gray.storage.view_as<Sample>();
  for_rows(local, local.in.rows(), [&](RowRange rows) {
    reference::gray_rows<Sample>(local.in, gray.storage.view_as<Sample>(), rows);
  });
  return gray;
}

/// A one-pass op: fill(rows) over this rank's block.
Compute<Sample> block_pass(std::function<void(const Local&, RowRange)> fill) {
  return [fill = std::move(fill)](const Local& local) {
    on_every_rank(local.comm,
                  [&] { for_rows(local, local.block, [&](RowRange rows) { fill(local, rows); }); });
    return OpOutput{};
  };
}

OpOutput run_sobel(const Local& local, const OpParams& params) {
  on_every_rank(local.comm, [&] {
    const LocalGray gray = local_gray(local);
    for_rows(local, local.block, [&](RowRange rows) {
      kernels::sobel_deep_rows<Sample>(gray.view, local.out, rows, params.border,
                                       params.sobel_output);
    });
  });
  return {};
}

OpOutput run_histogram(const Local& local, const OpParams& params) {
  OpOutput output;
  if (!params.per_channel || local.in_geometry.channels == 1) {
    LocalGray gray;
    on_every_rank(local.comm, [&] { gray = local_gray(local); });
    output.wide_histogram.push_back(counted_over_ranks(local, [&](RowRange rows, auto hist) {
      reference::histogram_rows<Sample>(gray.view, 0, rows, hist);
    }));
    return output;
  }
  for (int c = 0; c < local.in_geometry.channels; ++c) {
    output.wide_histogram.push_back(counted_over_ranks(local, [&](RowRange rows, auto hist) {
      reference::histogram_rows<Sample>(local.in, c, rows, hist);
    }));
  }
  return output;
}

OpOutput run_equalize(const Local& local) {
  const bool gray = local.in_geometry.channels == 1;
  const Histogram hist = counted_over_ranks(local, [&](RowRange rows, auto counts) {
    if (gray) {
      reference::histogram_rows<Sample>(local.in, 0, rows, counts);
    } else {
      reference::luma_histogram_rows<Sample>(local.in, rows, counts);
    }
  });
  on_every_rank(local.comm, [&] {
    const std::vector<std::uint16_t> lut = equalize_levels(hist);
    for_rows(local, local.block, [&](RowRange rows) {
      if (gray) {
        reference::lut_rows<Sample>(local.in, local.out, rows, lut);
      } else {
        reference::equalize_color_rows<Sample>(local.in, local.out, rows, lut);
      }
    });
  });
  return {};
}

/// otsu and segment: the gray histogram over every rank, the global threshold (the same
/// function on every rank), then the threshold or adaptive loop on each block.
OpOutput run_thresholding(const Local& local, Op op, const OpParams& params) {
  LocalGray gray;
  on_every_rank(local.comm, [&] { gray = local_gray(local); });
  const Histogram hist = counted_over_ranks(local, [&](RowRange rows, auto counts) {
    reference::histogram_rows<Sample>(gray.view, 0, rows, counts);
  });
  OpOutput output;
  const int t = op == Op::otsu ? otsu_threshold(hist) : isodata_threshold(hist);
  output.threshold = t;
  const bool adaptive = op == Op::segment && params.adaptive;
  on_every_rank(local.comm, [&] {
    for_rows(local, local.block, [&](RowRange rows) {
      if (adaptive) {
        reference::adaptive_segment_rows<Sample>(gray.view, local.out, rows, params.window,
                                                 params.min_contrast, t);
      } else {
        reference::threshold_rows<Sample>(gray.view, local.out, rows, t);
      }
    });
  });
  return output;
}

/// The op's erosions and dilations, each the tuned kernel over the block.
OpOutput run_morphology(const Local& local, const Plan& plan, Op op, const OpParams& params) {
  const StructuringElement se = make_structuring_element(params.se);
  run_morphology_steps(local, plan, morphology_steps(op, params.iterations),
                       [&](MorphOp step, reference::In<Sample> src, reference::Out<Sample> dst) {
                         for_rows(local, local.block, [&](RowRange rows) {
                           kernels::morphology_deep_rows<Sample>(src, dst, rows, se, step);
                         });
                       });
  return {};
}

}  // namespace

Compute<Sample> spec_compute_16(Op op, const OpParams& params, const Plan& plan) {
  switch (op) {
    case Op::gray:
      return block_pass([](const Local& local, RowRange rows) {
        reference::gray_rows<Sample>(local.in, local.out, rows);
      });
    case Op::gaussian:
      return block_pass([weights = gaussian_weights(params.sigma), border = params.border](
                            const Local& local, RowRange rows) {
        kernels::gaussian_separable_deep_rows<Sample>(local.in, local.out, rows, weights, border);
      });
    case Op::sharpen:
      return block_pass([border = params.border](const Local& local, RowRange rows) {
        kernels::sharpen_deep_rows<Sample>(local.in, local.out, rows, border);
      });
    case Op::pool:
      return block_pass([](const Local& local, RowRange rows) {
        reference::pool_rows<Sample>(local.in, local.out, rows);
      });
    case Op::sobel:
      return [params](const Local& local) { return run_sobel(local, params); };
    case Op::histogram:
      return [params](const Local& local) { return run_histogram(local, params); };
    case Op::equalize:
      return run_equalize;
    case Op::otsu:
    case Op::segment:
      return [op, params](const Local& local) { return run_thresholding(local, op, params); };
    case Op::erode:
    case Op::dilate:
    case Op::open:
    case Op::close:
      return [plan, op, params](const Local& local) {
        return run_morphology(local, plan, op, params);
      };
  }
  return {};
}

}  // namespace parfilter::mpi_detail
