// Each op on 16-bit rows as the ranks run it: the CPU backends' 16-bit kernels (the tuned
// ones of row_kernels_deep.hpp, the spec's own loops of reference_rows.hpp for the rest) over
// the scheduler's blocks of this rank's rows, with the collectives of the 8-bit path between
// them (histograms summed over the ranks, halos exchanged between morphology steps). The
// split over the ranks is the 8-bit path's plan: the halos are the spec's at both depths.
// An op without an entry in kComputes that is one neighbourhood pass runs the spec's op on
// its rows plus halo (neighbourhood_pass), so that a new local op needs no edit here.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
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
  const int t = global_threshold(op, hist);
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

/// The rows either side of an output row that an op's output reads, when it is one
/// neighbourhood pass that a block plus that halo computes alone; nullopt otherwise (a
/// threshold is a whole-image statistic, so whole_image covers the thresholding ops).
std::optional<int> local_reach(const OpTraits& traits) {
  if (traits.whole_image || traits.histogram_result || traits.morphology != MorphologyOrder::none ||
      traits.halves_size) {
    return std::nullopt;
  }
  switch (traits.reach) {
    case RowReach::none:
      return 0;
    case RowReach::radius:
      return traits.radius;
    case RowReach::element:
    case RowReach::window:
    case RowReach::stride:
      return std::nullopt;
  }
  return std::nullopt;
}

/// An op without a tuned plan below: the spec's 16-bit op (the CPU backends' tuned rows where
/// it has them) on an image of this rank's rows with their halo alone, of which the block's
/// rows are kept. They are the reference's: the halo covers the op's reach, and where the
/// copy's edges are not the image's, only halo rows see them.
Compute<Sample> neighbourhood_pass(Op op, const OpParams& params) {
  return [op, params](const Local& local) {
    on_every_rank(local.comm, [&] {
      if (local.block.empty()) return;
      const RowRange need = local.in.rows();
      Image rows =
          Image::uninitialized(local.in.width(), need.size(), local.in.channels(), Depth::u16);
      for (int y = need.begin; y < need.end; ++y) {
        std::copy_n(local.in.row(y), local.in.row_samples(),
                    rows.samples<Sample>() + (y - need.begin) * rows.stride());
      }
      const reference::RowBlocks blocks{
          local.scheduler.max_blocks(),
          [&local](int count, const std::function<void(RowRange, int)>& fn) {
            local.scheduler.for_each_block(count, fn);
          }};
      const OpOutput output =
          reference::run_scheduled(op, rows, params, blocks, kernels::tuned_rows_16());
      const Image& result = output.image;
      if (result.width() != local.out.width() || result.channels() != local.out.channels()) {
        throw std::logic_error("MPI 16 bits: " + std::string(op_name(op)) +
                               " changes the image's shape; it needs its own plan");
      }
      for (int y = local.block.begin; y < local.block.end; ++y) {
        std::copy_n(result.samples<Sample>() + (y - need.begin) * result.stride(),
                    local.out.row_samples(), local.out.row(y));
      }
    });
    return OpOutput{};
  };
}

Compute<Sample> compute_gray(Op /*op*/, const OpParams& /*params*/, const Plan& /*plan*/) {
  return block_pass([](const Local& local, RowRange rows) {
    reference::gray_rows<Sample>(local.in, local.out, rows);
  });
}

Compute<Sample> compute_gaussian(Op /*op*/, const OpParams& params, const Plan& /*plan*/) {
  return block_pass([weights = gaussian_weights(params.sigma), border = params.border](
                        const Local& local, RowRange rows) {
    kernels::gaussian_separable_deep_rows<Sample>(local.in, local.out, rows, weights, border);
  });
}

Compute<Sample> compute_sharpen(Op /*op*/, const OpParams& params, const Plan& /*plan*/) {
  return block_pass([border = params.border](const Local& local, RowRange rows) {
    kernels::sharpen_deep_rows<Sample>(local.in, local.out, rows, border);
  });
}

Compute<Sample> compute_pool(Op /*op*/, const OpParams& /*params*/, const Plan& /*plan*/) {
  return block_pass([](const Local& local, RowRange rows) {
    reference::pool_rows<Sample>(local.in, local.out, rows);
  });
}

Compute<Sample> compute_sobel(Op /*op*/, const OpParams& params, const Plan& /*plan*/) {
  return [params](const Local& local) { return run_sobel(local, params); };
}

Compute<Sample> compute_histogram(Op /*op*/, const OpParams& params, const Plan& /*plan*/) {
  return [params](const Local& local) { return run_histogram(local, params); };
}

Compute<Sample> compute_equalize(Op /*op*/, const OpParams& /*params*/, const Plan& /*plan*/) {
  return run_equalize;
}

Compute<Sample> compute_thresholding(Op op, const OpParams& params, const Plan& /*plan*/) {
  return [op, params](const Local& local) { return run_thresholding(local, op, params); };
}

Compute<Sample> compute_morphology(Op op, const OpParams& params, const Plan& plan) {
  return [plan, op, params](const Local& local) { return run_morphology(local, plan, op, params); };
}

/// The ops with a tuned 16-bit plan: their kernels and collectives. Any other op runs as a
/// neighbourhood_pass when it is one.
struct OpCompute {
  Op op;
  Compute<Sample> (*make)(Op op, const OpParams& params, const Plan& plan);
};
constexpr OpCompute kComputes[] = {
    {Op::gray, compute_gray},
    {Op::gaussian, compute_gaussian},
    {Op::sharpen, compute_sharpen},
    {Op::pool, compute_pool},
    {Op::sobel, compute_sobel},
    {Op::histogram, compute_histogram},
    {Op::equalize, compute_equalize},
    {Op::otsu, compute_thresholding},
    {Op::segment, compute_thresholding},
    {Op::erode, compute_morphology},
    {Op::dilate, compute_morphology},
    {Op::open, compute_morphology},
    {Op::close, compute_morphology},
};

}  // namespace

Compute<Sample> spec_compute_16(Op op, const OpParams& params, const Plan& plan) {
  for (const OpCompute& entry : kComputes) {
    if (entry.op == op) return entry.make(op, params, plan);
  }
  const std::optional<int> reach = local_reach(op_info(op).traits);
  if (!reach) {
    throw std::logic_error("MPI 16 bits: no plan for " + std::string(op_name(op)) +
                           ", which is no neighbourhood pass (mpi_ops_16.cpp's kComputes)");
  }
  // The 8-bit plan's halo (its row pass's) must cover the spec's reach.
  const int height = plan.out ? plan.out->height : 0;  // the input's: the same shape
  for (std::size_t r = 0; r < plan.blocks.size(); ++r) {
    const RowRange block = plan.blocks[r];
    const RowRange need = plan.needs[r];
    if (!block.empty() && (need.begin > std::max(0, block.begin - *reach) ||
                           need.end < std::min(height, block.end + *reach))) {
      throw std::logic_error("MPI 16 bits: " + std::string(op_name(op)) +
                             "'s plan reads fewer rows than its reach");
    }
  }
  return neighbourhood_pass(op, params);
}

}  // namespace parfilter::mpi_detail
