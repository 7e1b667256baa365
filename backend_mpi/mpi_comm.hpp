// The MPI plumbing of the backend: a rank's view of its communicator, a row datatype,
// agreement on failure, and the rows a rank holds with their scatter, gather and halo
// exchange. Not installed.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <exception>
#include <memory>
#include <span>
#include <vector>

#include "parfilter/image.hpp"
#include "parfilter/op_set.hpp"

namespace parfilter::mpi_detail {

/// A communicator with this process's rank in it, and its root.
struct Comm {
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0;
  int size = 1;
  int root = 0;
  [[nodiscard]] bool is_root() const { return rank == root; }
};

/// Width, height, channels and depth of an image, as the root broadcasts them.
struct Geometry {
  int width = 0;
  int height = 0;
  int channels = 0;
  Depth depth = Depth::u8;
  [[nodiscard]] std::ptrdiff_t row_samples() const {
    return static_cast<std::ptrdiff_t>(width) * channels;
  }
  [[nodiscard]] std::ptrdiff_t row_bytes() const {
    return row_samples() * static_cast<std::ptrdiff_t>(bytes_per_sample(depth));
  }
};

/// One image row as an MPI datatype, so that every count and displacement is a number of
/// rows (an int for any image), never of bytes. Throws RuntimeError for a row wider than
/// an int of bytes (MPI counts are ints).
class RowType {
 public:
  explicit RowType(const Geometry& geometry);
  RowType(const RowType&) = delete;
  RowType& operator=(const RowType&) = delete;
  ~RowType();
  [[nodiscard]] MPI_Datatype get() const { return type_; }

 private:
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
};

/// Every rank passes its failure, if any (null when it succeeded). When any rank failed,
/// every rank throws the failure of the lowest failing rank: that rank rethrows its own,
/// the others throw the same kind (UsageError, InputError or RuntimeError) with its message
/// prefixed by "rank R: ". Collective; without failures it costs one MPI_Allreduce of an int.
void agree_on_failure(const Comm& comm, const std::exception_ptr& failure);

/// Runs `step` on this rank, then agrees with every rank on whether all steps succeeded
/// (agree_on_failure): the point to call before any communication that follows local work.
template <typename Step>
void on_every_rank(const Comm& comm, Step&& step) {
  std::exception_ptr failure;
  try {
    step();
  } catch (...) {
    failure = std::current_exception();
  }
  agree_on_failure(comm, failure);
}

/// Rows `rows` of an image of `geometry` (either depth) that this rank holds: in its own
/// buffer or, for the root, borrowed from a full image.
class LocalRows {
 public:
  LocalRows() = default;
  /// A zeroed buffer for `rows`.
  LocalRows(const Geometry& geometry, RowRange rows);
  /// Rows `rows` of `full`, in place.
  static LocalRows borrowing(Image& full, RowRange rows);

  /// The rows as 8-bit samples (an 8-bit geometry).
  [[nodiscard]] ImageView view() const { return view_as<std::uint8_t>(); }
  /// The rows as `Sample`, which must match the geometry's depth.
  template <typename Sample>
  [[nodiscard]] BasicImageView<Sample> view_as() const {
    return {reinterpret_cast<Sample*>(first_row_),
            geometry_.width,
            geometry_.height,
            geometry_.channels,
            geometry_.row_samples(),
            rows_};
  }
  [[nodiscard]] RowRange rows() const { return rows_; }
  /// The bytes of row y, or of the first row when `range` or the rows are empty (count 0).
  [[nodiscard]] std::uint8_t* bytes_at(RowRange range) const;

 private:
  std::unique_ptr<std::uint8_t[]> storage_;
  std::uint8_t* first_row_ = nullptr;
  Geometry geometry_;
  RowRange rows_;
};

/// The rows rank r computes: contiguous near-equal blocks of `rows` (block_range); ranks
/// past the rows get empty blocks.
[[nodiscard]] std::vector<RowRange> blocks_of(int rows, int ranks);

/// The rows each rank reads: its block widened by `above`/`below`, clipped to [0, height);
/// empty for an empty block.
[[nodiscard]] std::vector<RowRange> halo_rows(const std::vector<RowRange>& blocks, int above,
                                              int below, int height);

/// MPI_Scatterv of `needs[r]` rows of the root's image, whose row 0 starts at `root_rows`
/// (ignored elsewhere), to every rank r's `storage` (ranges may overlap: halos); the root
/// keeps its rows in place.
void scatter_row_bytes(const Comm& comm, const Geometry& geometry, const std::uint8_t* root_rows,
                       const std::vector<RowRange>& needs, LocalRows& storage);

/// scatter_row_bytes of the root's `input`. Returns the rows this rank reads: the root reads
/// `input` in place, the others their copy in `storage`.
template <typename Sample>
[[nodiscard]] BasicImageView<const Sample> scatter_rows(const Comm& comm, const Geometry& geometry,
                                                        const BasicImageView<const Sample>& input,
                                                        const std::vector<RowRange>& needs,
                                                        LocalRows& storage) {
  scatter_row_bytes(comm, geometry, reinterpret_cast<const std::uint8_t*>(input.first_row()), needs,
                    storage);
  if (comm.is_root()) return input.slice(needs[static_cast<std::size_t>(comm.rank)]);
  return storage.view_as<const Sample>();
}

/// MPI_Gatherv of rows `blocks[r]` of every rank's `local` into the root's `out`. The root's
/// own `local` must borrow from `out` (it is gathered in place).
void gather_rows(const Comm& comm, const Geometry& geometry, const LocalRows& local,
                 const std::vector<RowRange>& blocks, Image& out);

/// Fills the halo rows of every rank's `local` (rows needs[r] outside blocks[r]) from the
/// ranks whose blocks hold them, with MPI_Sendrecv shifts: distance 1 (the neighbours), then
/// 2, ... as far as the tallest halo reaches over the shortest blocks.
void exchange_halos(const Comm& comm, const Geometry& geometry, const LocalRows& local,
                    const std::vector<RowRange>& blocks, const std::vector<RowRange>& needs);

/// Sums every rank's histograms into every rank's (MPI_Allreduce).
void allreduce_histograms(const Comm& comm, std::vector<HistogramBins>& hists);
/// The same for histograms of any number of bins.
void allreduce_counts(const Comm& comm, std::span<std::uint64_t> counts);

}  // namespace parfilter::mpi_detail
