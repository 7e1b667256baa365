// The MPI plumbing: row datatype, agreement on failure, scatter, gather and halo exchange.
#include "mpi_comm.hpp"

#include <algorithm>
#include <climits>
#include <new>
#include <string>

#include "cpu_backend.hpp"
#include "parfilter/error.hpp"

namespace parfilter::mpi_detail {
namespace {

constexpr int kHaloDownTag = 101;  ///< rows moving to higher ranks (their halo above)
constexpr int kHaloUpTag = 102;    ///< rows moving to lower ranks (their halo below)

/// The kinds of failure agree_on_failure carries between ranks.
enum class FailureKind : int { usage, input, runtime, out_of_memory };

struct Failure {
  FailureKind kind = FailureKind::runtime;
  std::string message;
};

Failure describe(const std::exception_ptr& failure) {
  try {
    std::rethrow_exception(failure);
  } catch (const UsageError& e) {
    return {FailureKind::usage, e.what()};
  } catch (const InputError& e) {
    return {FailureKind::input, e.what()};
  } catch (const std::bad_alloc&) {
    return {FailureKind::out_of_memory, "out of memory"};
  } catch (const std::exception& e) {
    return {FailureKind::runtime, e.what()};
  } catch (...) {
    return {FailureKind::runtime, "unknown failure"};
  }
}

[[noreturn]] void throw_failure(const Failure& failure, int from_rank) {
  const std::string message = "rank " + std::to_string(from_rank) + ": " + failure.message;
  switch (failure.kind) {
    case FailureKind::usage:
      throw UsageError(message);
    case FailureKind::input:
      throw InputError(message);
    case FailureKind::runtime:
    case FailureKind::out_of_memory:
      break;
  }
  throw RuntimeError(message);
}

RowRange intersect(RowRange a, RowRange b) {
  const int begin = std::max(a.begin, b.begin);
  return {begin, std::max(begin, std::min(a.end, b.end))};
}

/// The halo above (rows needed before the block) and below (after it) of one rank.
RowRange halo_above(RowRange block, RowRange need) {
  return need.empty() ? RowRange{} : RowRange{need.begin, block.begin};
}
RowRange halo_below(RowRange block, RowRange need) {
  return need.empty() ? RowRange{} : RowRange{block.end, need.end};
}

/// The rank whose block holds row y (blocks are contiguous, in rank order, empty ones last).
int owner_of(int y, const std::vector<RowRange>& blocks) {
  const auto it = std::partition_point(blocks.begin(), blocks.end(),
                                       [y](RowRange block) { return block.end <= y; });
  return static_cast<int>(it - blocks.begin());
}

/// How many ranks away the farthest halo row any rank needs lies.
int farthest_halo_distance(const std::vector<RowRange>& blocks,
                           const std::vector<RowRange>& needs) {
  int farthest = 0;
  for (int r = 0; r < static_cast<int>(blocks.size()); ++r) {
    const RowRange need = needs[static_cast<std::size_t>(r)];
    if (need.empty()) continue;
    farthest =
        std::max({farthest, r - owner_of(need.begin, blocks), owner_of(need.end - 1, blocks) - r});
  }
  return farthest;
}

int rank_or_null(int rank, int size) { return rank >= 0 && rank < size ? rank : MPI_PROC_NULL; }

RowRange at(const std::vector<RowRange>& ranges, int rank) {
  return rank >= 0 && rank < static_cast<int>(ranges.size())
             ? ranges[static_cast<std::size_t>(rank)]
             : RowRange{};
}

/// The counts and displacements, in rows, of MPI_Scatterv's or MPI_Gatherv's blocks on the
/// root: each rank's range of `ranges`.
struct RowCounts {
  std::vector<int> counts;
  std::vector<int> displacements;
};
RowCounts row_counts(const std::vector<RowRange>& ranges) {
  RowCounts rows;
  for (const RowRange range : ranges) {
    rows.counts.push_back(range.size());
    rows.displacements.push_back(range.begin);
  }
  return rows;
}

}  // namespace

RowType::RowType(const Geometry& geometry) {
  if (geometry.row_bytes() > INT_MAX) {
    throw RuntimeError("an image row of " + std::to_string(geometry.row_bytes()) +
                       " bytes is too wide for MPI counts");
  }
  MPI_Type_contiguous(static_cast<int>(geometry.row_bytes()), MPI_BYTE, &type_);
  MPI_Type_commit(&type_);
}

RowType::~RowType() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized == 0) MPI_Type_free(&type_);
}

void agree_on_failure(const Comm& comm, const std::exception_ptr& failure) {
  const int mine = failure ? comm.rank : comm.size;
  int first = comm.size;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm.comm);
  if (first == comm.size) return;
  Failure described;
  if (comm.rank == first) described = describe(failure);
  int header[2] = {static_cast<int>(described.kind), static_cast<int>(described.message.size())};
  MPI_Bcast(header, 2, MPI_INT, first, comm.comm);
  described.kind = static_cast<FailureKind>(header[0]);
  described.message.resize(static_cast<std::size_t>(header[1]));
  MPI_Bcast(described.message.data(), header[1], MPI_CHAR, first, comm.comm);
  if (comm.rank == first) std::rethrow_exception(failure);
  throw_failure(described, first);
}

LocalRows::LocalRows(const Geometry& geometry, RowRange rows) : geometry_(geometry), rows_(rows) {
  // Zeroed, not left uninitialized: the pages are touched here, when buffers are allocated,
  // rather than inside the timed scatter and compute (as the root's output Image is).
  if (!rows.empty()) {
    storage_ = std::make_unique<std::uint8_t[]>(
        static_cast<std::size_t>(rows.size() * geometry.row_bytes()));
  }
  first_row_ = storage_.get();
}

LocalRows LocalRows::borrowing(Image& full, RowRange rows) {
  LocalRows local;
  local.geometry_ = {full.width(), full.height(), full.channels(), full.depth()};
  local.rows_ = rows;
  local.first_row_ = full.bytes() + rows.begin * local.geometry_.row_bytes();
  return local;
}

std::uint8_t* LocalRows::bytes_at(RowRange range) const {
  if (range.empty() || rows_.empty()) return first_row_;
  return first_row_ + (range.begin - rows_.begin) * geometry_.row_bytes();
}

std::vector<RowRange> blocks_of(int rows, int ranks) {
  std::vector<RowRange> blocks;
  for (int r = 0; r < ranks; ++r) blocks.push_back(block_range(rows, ranks, r));
  return blocks;
}

std::vector<RowRange> halo_rows(const std::vector<RowRange>& blocks, int above, int below,
                                int height) {
  std::vector<RowRange> needs;
  for (const RowRange block : blocks) {
    needs.push_back(block.empty() ? RowRange{block.begin, block.begin}
                                  : RowRange{std::max(0, block.begin - above),
                                             std::min(height, block.end + below)});
  }
  return needs;
}

void scatter_row_bytes(const Comm& comm, const Geometry& geometry, const std::uint8_t* root_rows,
                       const std::vector<RowRange>& needs, LocalRows& storage) {
  const RowType row(geometry);
  if (comm.is_root()) {
    const RowCounts rows = row_counts(needs);
    // MPI_IN_PLACE: the root reads its rows straight from the input.
    MPI_Scatterv(root_rows, rows.counts.data(), rows.displacements.data(), row.get(), MPI_IN_PLACE,
                 0, row.get(), comm.root, comm.comm);
    return;
  }
  MPI_Scatterv(nullptr, nullptr, nullptr, row.get(), storage.bytes_at(storage.rows()),
               storage.rows().size(), row.get(), comm.root, comm.comm);
}

void gather_rows(const Comm& comm, const Geometry& geometry, const LocalRows& local,
                 const std::vector<RowRange>& blocks, Image& out) {
  const RowType row(geometry);
  if (comm.is_root()) {
    const RowCounts rows = row_counts(blocks);
    MPI_Gatherv(MPI_IN_PLACE, 0, row.get(), out.bytes(), rows.counts.data(),
                rows.displacements.data(), row.get(), comm.root, comm.comm);
    return;
  }
  const RowRange block = blocks[static_cast<std::size_t>(comm.rank)];
  MPI_Gatherv(local.bytes_at(block), block.size(), row.get(), nullptr, nullptr, nullptr, row.get(),
              comm.root, comm.comm);
}

void exchange_halos(const Comm& comm, const Geometry& geometry, const LocalRows& local,
                    const std::vector<RowRange>& blocks, const std::vector<RowRange>& needs) {
  const RowType row(geometry);
  const int r = comm.rank;
  const RowRange block = at(blocks, r);
  const auto above = [&](int rank) { return halo_above(at(blocks, rank), at(needs, rank)); };
  const auto below = [&](int rank) { return halo_below(at(blocks, rank), at(needs, rank)); };
  const auto shift = [&](int to, int from, RowRange send, RowRange receive, int tag) {
    MPI_Sendrecv(local.bytes_at(send), send.size(), row.get(), rank_or_null(to, comm.size), tag,
                 local.bytes_at(receive), receive.size(), row.get(), rank_or_null(from, comm.size),
                 tag, comm.comm, MPI_STATUS_IGNORE);
  };
  const int farthest = farthest_halo_distance(blocks, needs);
  for (int d = 1; d <= farthest; ++d) {
    // Down: rank r + d's halo above from my block; mine from rank r - d's block.
    shift(r + d, r - d, intersect(above(r + d), block), intersect(above(r), at(blocks, r - d)),
          kHaloDownTag);
    // Up: rank r - d's halo below from my block; mine from rank r + d's block.
    shift(r - d, r + d, intersect(below(r - d), block), intersect(below(r), at(blocks, r + d)),
          kHaloUpTag);
  }
}

void allreduce_histograms(const Comm& comm, std::vector<HistogramBins>& hists) {
  static_assert(sizeof(HistogramBins) == kHistogramBins * sizeof(std::uint64_t));
  MPI_Allreduce(MPI_IN_PLACE, hists.data()->data(), static_cast<int>(hists.size()) * kHistogramBins,
                MPI_UINT64_T, MPI_SUM, comm.comm);
}

void allreduce_counts(const Comm& comm, std::span<std::uint64_t> counts) {
  if (counts.size() > static_cast<std::size_t>(INT_MAX)) {
    throw RuntimeError("a histogram of " + std::to_string(counts.size()) +
                       " bins is too long for MPI counts");
  }
  MPI_Allreduce(MPI_IN_PLACE, counts.data(), static_cast<int>(counts.size()), MPI_UINT64_T, MPI_SUM,
                comm.comm);
}

}  // namespace parfilter::mpi_detail
