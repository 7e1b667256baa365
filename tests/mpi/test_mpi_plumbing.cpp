// The MPI backend's plumbing, run under mpirun (every rank runs every test): agreement on a
// failure that happens on one rank only, halo exchange over several ranks, scatter and gather
// with more ranks than rows, another root, threads inside ranks, and the backend's run
// failing on every rank when one rank's part fails. Every rank makes the same collective calls
// whatever its checks find: no ASSERT between two of them.
#include <gtest/gtest.h>
#include <mpi.h>

#include <new>
#include <string>

#include "mpi_comm.hpp"
#include "parfilter/backends/mpi.hpp"
#include "parfilter/error.hpp"
#include "reference.hpp"
#include "support/test_images.hpp"

namespace parfilter {
namespace {

using mpi_detail::Comm;
using mpi_detail::Geometry;
using mpi_detail::LocalRows;

constexpr std::uint8_t kPoison = 0xEE;
constexpr std::uint32_t kSeed = 4242;

Comm world() {
  Comm comm{MPI_COMM_WORLD};
  MPI_Comm_rank(comm.comm, &comm.rank);
  MPI_Comm_size(comm.comm, &comm.size);
  return comm;
}

/// The sample at (x, y, c) of the test pattern: a different value for each row.
std::uint8_t pattern(int x, int y, int c) {
  constexpr int kRowFactor = 7;
  constexpr int kChannelFactor = 3;
  return static_cast<std::uint8_t>((y * kRowFactor + x + c * kChannelFactor) % kPoison);
}

TEST(AgreeOnFailure, NoFailureThrowsNothing) {
  EXPECT_NO_THROW(mpi_detail::on_every_rank(world(), [] {}));
}

TEST(AgreeOnFailure, OneRankFailsEveryRankThrowsItsKind) {
  const Comm comm = world();
  const int failing = comm.size - 1;
  try {
    mpi_detail::on_every_rank(comm, [&] {
      if (comm.rank == failing) throw InputError("bad pixels");
    });
    ADD_FAILURE() << "no rank threw";
  } catch (const InputError& e) {
    const std::string expected =
        comm.rank == failing ? "bad pixels" : "rank " + std::to_string(failing) + ": bad pixels";
    EXPECT_EQ(e.what(), expected);
  }
}

TEST(AgreeOnFailure, LowestFailingRankWinsAndOutOfMemoryIsARuntimeError) {
  const Comm comm = world();
  const int lowest = comm.size > 1 ? 1 : 0;
  try {
    mpi_detail::on_every_rank(comm, [&] {
      if (comm.rank == lowest) throw std::bad_alloc();
      if (comm.rank > lowest) throw UsageError("later rank");
    });
    ADD_FAILURE() << "no rank threw";
  } catch (const std::bad_alloc&) {
    EXPECT_EQ(comm.rank, lowest);
  } catch (const RuntimeError& e) {
    EXPECT_NE(comm.rank, lowest);
    EXPECT_EQ(e.what(), "rank " + std::to_string(lowest) + ": out of memory");
  }
}

/// Each rank holds its block of a pattern image plus poison in its halo; after the exchange
/// every halo row holds the pattern, whichever rank (however far) owns it.
TEST(HaloExchange, FillsHalosTallerThanBlocks) {
  const Comm comm = world();
  struct Halo {
    int above;
    int below;
  };
  for (const int height : {1, 2, 5, 13, 40}) {
    for (const Halo halo : {Halo{0, 3}, Halo{5, 1}, Halo{7, 7}, Halo{2, 0}}) {
      const Geometry geometry{3, height, 3};
      const auto blocks = mpi_detail::blocks_of(height, comm.size);
      const auto needs = mpi_detail::halo_rows(blocks, halo.above, halo.below, height);
      const RowRange need = needs[static_cast<std::size_t>(comm.rank)];
      const RowRange block = blocks[static_cast<std::size_t>(comm.rank)];
      LocalRows local(geometry, need);
      for (int y = need.begin; y < need.end; ++y) {
        for (int x = 0; x < geometry.width; ++x) {
          for (int c = 0; c < geometry.channels; ++c) {
            const bool owned = y >= block.begin && y < block.end;
            local.view().row(y)[x * geometry.channels + c] = owned ? pattern(x, y, c) : kPoison;
          }
        }
      }
      mpi_detail::exchange_halos(comm, geometry, local, blocks, needs);
      // Counted, not asserted: a rank leaving the loop early would skip the next exchange
      // and leave the others waiting in it.
      int wrong_rows = 0;
      for (int y = need.begin; y < need.end; ++y) {
        bool right = true;
        for (int x = 0; x < geometry.width; ++x) {
          for (int c = 0; c < geometry.channels; ++c) {
            right = right && local.view().row(y)[x * geometry.channels + c] == pattern(x, y, c);
          }
        }
        wrong_rows += right ? 0 : 1;
      }
      EXPECT_EQ(wrong_rows, 0) << "height " << height << ", halo " << halo.above << "/"
                               << halo.below << " on rank " << comm.rank;
    }
  }
}

/// The backend on a small image with every rank's result checked.
class MpiBackendTest : public ::testing::Test {
 protected:
  static OpOutput run(Backend& backend, Op op, const Image& input, const OpParams& params) {
    return backend.run(op, input.view(), params);
  }
  const Comm comm_ = world();
};

TEST_F(MpiBackendTest, ParametersBadOnOneRankFailEveryRankAndTheNextRunWorks) {
  const auto backend = make_mpi_backend({}, MpiOptions{MPI_COMM_WORLD, 0, true});
  const Image input = test::synthetic_image(9, 11, 3, kSeed);
  OpParams bad;
  if (comm_.rank == comm_.size - 1) bad.iterations = 0;
  EXPECT_THROW((void)run(*backend, Op::erode, input, bad), UsageError);
  const OpOutput output = run(*backend, Op::erode, input, OpParams{});
  EXPECT_TRUE(test::same_image(reference::run(Op::erode, input, OpParams{}).image, output.image));
}

TEST_F(MpiBackendTest, RootInputThatIsNotAnImageFailsEveryRank) {
  const auto backend = make_mpi_backend({}, MpiOptions{MPI_COMM_WORLD, 0, true});
  EXPECT_ANY_THROW((void)backend->run(Op::gaussian, ConstImageView{}, OpParams{}));
}

TEST_F(MpiBackendTest, AnotherRootReadsAndReceivesAlone) {
  const int root = comm_.size - 1;
  const auto backend = make_mpi_backend({}, MpiOptions{MPI_COMM_WORLD, root, false});
  const Image input = test::synthetic_image(13, 5, 4, kSeed);
  OpParams params;
  params.se = {SeShape::ellipse, 5, 9};
  params.iterations = 2;
  const OpOutput output =
      backend->run(Op::close, comm_.rank == root ? input.view() : ConstImageView{}, params);
  if (comm_.rank == root) {
    EXPECT_TRUE(test::same_image(reference::run(Op::close, input, params).image, output.image));
  } else {
    EXPECT_TRUE(output.image.empty());
  }
}

TEST_F(MpiBackendTest, ThresholdAndHistogramReachEveryRankAndTimesAreFilled) {
  const auto backend = make_mpi_backend({}, MpiOptions{MPI_COMM_WORLD, 0, false});
  const Image input = test::synthetic_image(31, 17, 3, kSeed);
  OpParams params;
  params.adaptive = true;
  params.window = 9;
  StageTimes times;
  const OpOutput output = backend->run(Op::segment, input.view(), params, &times);
  EXPECT_EQ(output.threshold, reference::run(Op::segment, input, params).threshold);
  EXPECT_TRUE(times.upload_ms.has_value());
  EXPECT_TRUE(times.download_ms.has_value());
  EXPECT_GE(times.compute_ms, 0.0);
  params.per_channel = true;
  const OpOutput hist = backend->run(Op::histogram, input.view(), params);
  EXPECT_EQ(hist.histogram, reference::run(Op::histogram, input, params).histogram);
}

TEST_F(MpiBackendTest, ThreadsInsideRanks) {
  constexpr int kThreads = 3;
  std::unique_ptr<Backend> backend;
  try {
    backend = make_mpi_backend({kThreads, {}, {}}, MpiOptions{MPI_COMM_WORLD, 0, true});
  } catch (const UsageError& e) {
    GTEST_SKIP() << e.what();  // a build without OpenMP
  }
  EXPECT_EQ(backend->threads(), kThreads);
  const Image input = test::synthetic_image(23, 29, 4, kSeed);
  OpParams params;
  params.se = {SeShape::rect, 3, 7};
  params.iterations = 3;
  for (const Op op : {Op::gaussian, Op::sobel, Op::equalize, Op::open, Op::pool}) {
    EXPECT_TRUE(test::same_image(reference::run(op, input, params).image,
                                 run(*backend, op, input, params).image))
        << op_name(op);
  }
}

}  // namespace
}  // namespace parfilter
