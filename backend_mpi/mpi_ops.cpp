// Each op as the ranks run it: which input rows every rank needs (its block of output rows
// widened by the op's halo), the shared passes on the block, and the collectives between
// them. Every local step runs inside on_every_rank, so that a failure on one rank reaches
// every rank before the next communication instead of leaving them waiting in it.
#include "mpi_ops.hpp"

#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "cpu_op.hpp"
#include "filter_math.hpp"
#include "op_kernels.hpp"

namespace parfilter::mpi_detail {
namespace {

using kernels::MorphOp;

constexpr int kRgbaChannels = 4;
constexpr double kMsPerSecond = 1000.0;

using Local = LocalRowsOf<std::uint8_t>;

/// The plan of an op whose output rows are its input rows, read with a halo.
Plan halo_plan(const Geometry& in, int out_channels, RowHalo halo, int ranks) {
  Plan plan;
  plan.out = Geometry{in.width, in.height, out_channels, in.depth};
  plan.blocks = blocks_of(in.height, ranks);
  plan.needs = halo_rows(plan.blocks, halo.above, halo.below, in.height);
  return plan;
}

/// The gray plane of a rank's input rows: the rows themselves when gray, else converted.
struct LocalGray {
  LocalRows storage;
  ConstImageView view;
};

LocalGray local_gray(const Local& local) {
  if (local.in_geometry.channels == 1) return {{}, local.in};
  LocalGray gray{
      LocalRows({local.in_geometry.width, local.in_geometry.height, 1, Depth::u8}, local.in.rows()),
      {}};
  gray.view = gray.storage.view();
  gray_pass().run(local.scheduler, local.in, gray.storage.view(), local.in.rows());
  return gray;
}

HistogramBins gray_counts(const Local& local, const ConstImageView& gray) {
  return count_rows(local.scheduler, local.block, [&](RowRange rows, HistogramBins& hist) {
    kernels::histogram_rows(gray.slice(rows), rows, 0, hist);
  });
}

/// A one-pass op: its pass over the block.
Compute<std::uint8_t> single_pass(RowPass pass) {
  return [pass = std::move(pass)](const Local& local) {
    on_every_rank(local.comm, [&] { pass.run(local.scheduler, local.in, local.out, local.block); });
    return OpOutput{};
  };
}

OpOutput run_sobel(const Local& local, const OpParams& params) {
  on_every_rank(local.comm, [&] {
    const LocalGray gray = local_gray(local);
    sobel_pass(params).run(local.scheduler, gray.view, local.out, local.block);
  });
  return {};
}

OpOutput run_histogram(const Local& local, const OpParams& params) {
  OpOutput output;
  on_every_rank(local.comm, [&] {
    if (!params.per_channel || local.in_geometry.channels == 1) {
      output.histogram = {gray_counts(local, local_gray(local).view)};
      return;
    }
    for (int c = 0; c < local.in_geometry.channels; ++c) {
      output.histogram.push_back(
          count_rows(local.scheduler, local.block, [&](RowRange rows, HistogramBins& hist) {
            kernels::histogram_rows(local.in.slice(rows), rows, c, hist);
          }));
    }
  });
  allreduce_histograms(local.comm, output.histogram);
  return output;
}

OpOutput run_equalize(const Local& local) {
  std::vector<HistogramBins> hist(1);
  on_every_rank(local.comm, [&] {
    hist[0] = count_rows(local.scheduler, local.block, equalize_count(local.in));
  });
  allreduce_histograms(local.comm, hist);
  on_every_rank(local.comm, [&] {
    equalize_pass(local.in_geometry.channels, equalize_lut(hist[0]))
        .run(local.scheduler, local.in, local.out, local.block);
  });
  return {};
}

/// otsu and segment: the gray histogram over every rank, the global threshold (the same
/// shared function on every rank), then the threshold or adaptive pass on each block.
OpOutput run_thresholding(const Local& local, Op op, const OpParams& params) {
  std::vector<HistogramBins> hist(1);
  LocalGray gray;
  on_every_rank(local.comm, [&] {
    gray = local_gray(local);
    hist[0] = gray_counts(local, gray.view);
  });
  allreduce_histograms(local.comm, hist);
  OpOutput output;
  output.threshold = global_threshold(op, hist[0]);
  const bool adaptive = op == Op::segment && params.adaptive;
  on_every_rank(local.comm, [&] {
    const RowPass pass = adaptive ? adaptive_segment_pass(params, *output.threshold)
                                  : threshold_pass(*output.threshold);
    pass.run(local.scheduler, gray.view, local.out, local.block);
  });
  return output;
}

/// The op's erosions and dilations, each a morphology pass over the block.
OpOutput run_morphology(const Local& local, const Plan& plan, Op op, const OpParams& params) {
  const StructuringElement se = make_structuring_element(params.se);
  const RowPass erode = morphology_pass(se, MorphOp::erode, params.variant);
  const RowPass dilate = morphology_pass(se, MorphOp::dilate, params.variant);
  run_morphology_steps(
      local, plan, morphology_steps(op, params.iterations),
      [&](MorphOp step, const ConstImageView& src, const ImageView& dst) {
        (step == MorphOp::erode ? erode : dilate).run(local.scheduler, src, dst, local.block);
      });
  return {};
}

OpOutput run_pool(const Local& local) {
  on_every_rank(local.comm, [&] {
    local.scheduler.for_each_block(local.block.size(), [&](RowRange block, int) {
      const RowRange rows{local.block.begin + block.begin, local.block.begin + block.end};
      kernels::pool2x2_rows(local.in.slice(pool_input_rows(rows, local.in_geometry.height)),
                            local.out.slice(rows), rows);
    });
  });
  return {};
}

using PlanAndCompute = std::pair<Plan, Compute<std::uint8_t>>;

PlanAndCompute plan_sobel(Op /*op*/, const OpParams& params, const Geometry& in, int ranks) {
  return {halo_plan(in, 1, sobel_pass(params).halo, ranks),
          [params](const Local& local) { return run_sobel(local, params); }};
}

PlanAndCompute plan_histogram(Op /*op*/, const OpParams& params, const Geometry& in, int ranks) {
  Plan plan = halo_plan(in, 1, {}, ranks);
  plan.out.reset();
  return {std::move(plan), [params](const Local& local) { return run_histogram(local, params); }};
}

PlanAndCompute plan_equalize(Op /*op*/, const OpParams& /*params*/, const Geometry& in, int ranks) {
  return {halo_plan(in, in.channels, {}, ranks), run_equalize};
}

PlanAndCompute plan_thresholding(Op op, const OpParams& params, const Geometry& in, int ranks) {
  const bool adaptive = op == Op::segment && params.adaptive;
  const RowHalo halo = adaptive ? adaptive_segment_pass(params, 0).halo : RowHalo{};
  return {halo_plan(in, 1, halo, ranks),
          [op, params](const Local& local) { return run_thresholding(local, op, params); }};
}

PlanAndCompute plan_morphology(Op op, const OpParams& params, const Geometry& in, int ranks) {
  const StructuringElement se = make_structuring_element(params.se);
  const RowHalo halo{kernels::morphology_halo_above(se), kernels::morphology_halo_below(se)};
  auto plan = std::make_shared<const Plan>(halo_plan(in, in.channels, halo, ranks));
  return {*plan, [plan, op, params](const Local& local) {
            return run_morphology(local, *plan, op, params);
          }};
}

PlanAndCompute plan_pool(Op /*op*/, const OpParams& /*params*/, const Geometry& in, int ranks) {
  Plan plan;
  plan.out = Geometry{pool_extent(in.width), pool_extent(in.height), in.channels, in.depth};
  plan.blocks = blocks_of(plan.out->height, ranks);
  for (const RowRange block : plan.blocks) {
    plan.needs.push_back(block.empty() ? RowRange{} : pool_input_rows(block, in.height));
  }
  return {std::move(plan), run_pool};
}

/// The ops that are more than one row pass (cpu_op(op).single_pass is null), each with how
/// the ranks split it.
struct OpPlanner {
  Op op;
  PlanAndCompute (*plan)(Op op, const OpParams& params, const Geometry& in, int ranks);
};
constexpr OpPlanner kPlanners[] = {
    {Op::sobel, plan_sobel},       {Op::histogram, plan_histogram},  {Op::equalize, plan_equalize},
    {Op::otsu, plan_thresholding}, {Op::segment, plan_thresholding}, {Op::erode, plan_morphology},
    {Op::dilate, plan_morphology}, {Op::open, plan_morphology},      {Op::close, plan_morphology},
    {Op::pool, plan_pool},
};

/// The plan and the per-rank work of `op`: an op that is one row pass runs it on every
/// rank's rows with its halo; the others have their planner above.
PlanAndCompute plan_op(Op op, const OpParams& params, const Geometry& in, int ranks) {
  if (const auto single = cpu_op(op).single_pass) {
    RowPass pass = single(params);
    const RowHalo halo = pass.halo;
    return {halo_plan(in, single_pass_channels(op, in.channels), halo, ranks),
            single_pass(std::move(pass))};
  }
  for (const OpPlanner& planner : kPlanners) {
    if (planner.op == op) return planner.plan(op, params, in, ranks);
  }
  throw std::logic_error("MPI: no plan for " + std::string(op_name(op)) +
                         " (mpi_ops.cpp's kPlanners)");
}

double since_ms(double start) { return (MPI_Wtime() - start) * kMsPerSecond; }

}  // namespace

template <typename Sample>
Geometry broadcast_geometry(const Comm& comm, const BasicImageView<const Sample>& input) {
  int dims[3] = {0, 0, 0};
  on_every_rank(comm, [&] {
    if (!comm.is_root()) return;
    const int c = input.channels();
    if (input.width() < 1 || input.height() < 1 || (c != 1 && c != 3 && c != kRgbaChannels)) {
      throw std::invalid_argument("run: the root's input is not an image");
    }
    if (input.rows() != RowRange{0, input.height()}) {
      throw std::invalid_argument("run: the input view must address every row");
    }
    dims[0] = input.width();
    dims[1] = input.height();
    dims[2] = c;
  });
  MPI_Bcast(dims, 3, MPI_INT, comm.root, comm.comm);
  return {dims[0], dims[1], dims[2], kDepthOf<Sample>};
}

template Geometry broadcast_geometry(const Comm&, const ConstImageView&);
template Geometry broadcast_geometry(const Comm&, const ConstImageView16&);

Depth agree_on_depth(const Comm& comm, Depth root_depth) {
  int bits = bits_of(root_depth);
  MPI_Bcast(&bits, 1, MPI_INT, comm.root, comm.comm);
  return bits == bits_of(Depth::u16) ? Depth::u16 : Depth::u8;
}

Plan plan_rows(Op op, const OpParams& params, const Geometry& in, int ranks) {
  return plan_op(op, params, in, ranks).first;
}

ResultRows allocate_result(const Comm& comm, const std::optional<Geometry>& out, RowRange block) {
  ResultRows result;
  on_every_rank(comm, [&] {
    if (out && comm.is_root()) {
      result.image = Image::uninitialized(out->width, out->height, out->channels, out->depth);
      result.rows = LocalRows::borrowing(result.image, block);
    } else if (out) {
      result.rows = LocalRows(*out, block);
    }
  });
  return result;
}

void gather_result(const Comm& comm, const Geometry& out, const std::vector<RowRange>& blocks,
                   bool result_on_every_rank, ResultRows& result, OpOutput& output) {
  gather_rows(comm, out, result.rows, blocks, result.image);
  if (result_on_every_rank) {
    on_every_rank(comm, [&] {
      // Every row is broadcast into it.
      if (!comm.is_root()) {
        result.image = Image::uninitialized(out.width, out.height, out.channels, out.depth);
      }
    });
    const RowType row(out);
    MPI_Bcast(result.image.bytes(), out.height, row.get(), comm.root, comm.comm);
  }
  if (comm.is_root() || result_on_every_rank) output.image = std::move(result.image);
}

void agree_on_times(const Comm& comm, double scatter_ms, double compute_ms, double gather_ms,
                    StageTimes* times) {
  // The root's scatter and gather times, and the slowest rank's compute, on every rank.
  double stage_ms[3] = {comm.is_root() ? scatter_ms : 0.0, comm.is_root() ? gather_ms : 0.0,
                        compute_ms};
  MPI_Allreduce(MPI_IN_PLACE, stage_ms, 3, MPI_DOUBLE, MPI_MAX, comm.comm);
  if (times != nullptr) {
    times->upload_ms = stage_ms[0];
    times->download_ms = stage_ms[1];
    times->compute_ms = stage_ms[2];
  }
}

template <typename Sample>
OpOutput run_distributed(const Comm& comm, RowScheduler& scheduler, Op op,
                         const BasicImageView<const Sample>& input, const OpParams& params,
                         bool result_on_every_rank, StageTimes* times) {
  const Geometry in = broadcast_geometry(comm, input);
  Plan plan;
  Compute<Sample> compute;
  if constexpr (kDepthOf<Sample> == Depth::u8) {
    std::tie(plan, compute) = plan_op(op, params, in, comm.size);
  } else {
    plan = plan_rows(op, params, in, comm.size);
    compute = spec_compute_16(op, params, plan);
  }
  const auto rank = static_cast<std::size_t>(comm.rank);
  const RowRange block = plan.blocks[rank];

  // Every buffer is allocated before the first transfer: the root's output image (its own
  // block is computed in place there), the others' input and output rows. The root's image
  // is left uninitialized: the blocks cover every row, each computed or gathered in full.
  ResultRows result = allocate_result(comm, plan.out, block);
  LocalRows in_rows;
  on_every_rank(comm, [&] {
    if (!comm.is_root()) in_rows = LocalRows(in, plan.needs[rank]);
  });

  const double scatter_start = MPI_Wtime();
  const BasicImageView<const Sample> local_in = scatter_rows(comm, in, input, plan.needs, in_rows);
  const double scatter_ms = since_ms(scatter_start);

  const double compute_start = MPI_Wtime();
  OpOutput output = compute(LocalRowsOf<Sample>{comm, scheduler, in, local_in,
                                                result.rows.template view_as<Sample>(), block});
  const double compute_ms = since_ms(compute_start);

  const double gather_start = MPI_Wtime();
  if (plan.out) gather_result(comm, *plan.out, plan.blocks, result_on_every_rank, result, output);
  agree_on_times(comm, scatter_ms, compute_ms, since_ms(gather_start), times);
  return output;
}

template OpOutput run_distributed(const Comm&, RowScheduler&, Op, const ConstImageView&,
                                  const OpParams&, bool, StageTimes*);
template OpOutput run_distributed(const Comm&, RowScheduler&, Op, const ConstImageView16&,
                                  const OpParams&, bool, StageTimes*);

}  // namespace parfilter::mpi_detail
