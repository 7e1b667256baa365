// The MPI backend over a node backend (--node-backend), run under mpirun with the plumbing's
// main: chains cut into slab pieces and CPU steps, each rank's slab run as an image of its own,
// bit for bit the serial backend's result, at every rank count ctest runs (3 and 6: more ranks
// than the small shapes have rows). Every rank makes the same collective calls whatever its
// checks find: no ASSERT between two of them.
#include <gtest/gtest.h>
#include <mpi.h>

#include <functional>
#include <string>
#include <vector>

#include "mpi_slabs.hpp"
#include "parfilter/backends/mpi.hpp"
#include "parfilter/error.hpp"
#include "support/test_images.hpp"

namespace parfilter {
namespace {

constexpr std::uint32_t kSeed = 777;

OpStep step(Op op, const std::function<void(OpParams&)>& set = {}) {
  OpStep s{op, {}};
  if (set) set(s.params);
  return s;
}

std::vector<Op> ops_of(const OpChain& chain) {
  std::vector<Op> ops;
  for (const OpStep& s : chain) ops.push_back(s.op);
  return ops;
}

TEST(Slabs, ChainsAreCutAtCpuStepsAndBeforeEveryPool) {
  const OpChain chain = {step(Op::gaussian), step(Op::pool), step(Op::erode), step(Op::equalize),
                         step(Op::gray),     step(Op::pool), step(Op::pool),  step(Op::histogram)};
  const auto segments = band_segments(chain);
  std::vector<std::vector<Op>> cut;
  for (const OpChain& segment : segments) cut.push_back(ops_of(segment));
  const std::vector<std::vector<Op>> expected = {
      {Op::gaussian}, {Op::pool, Op::erode}, {Op::equalize}, {Op::gray}, {Op::pool},
      {Op::pool},     {Op::histogram}};
  EXPECT_EQ(cut, expected);
}

TEST(Slabs, RowsAreTheBlockWidenedByEveryStepAndDoubledThroughAPool) {
  // sharpen reads 1 row each side, a 3x5 rect 2 rows each side per erosion (open: 2 steps).
  const OpChain chain = {step(Op::pool), step(Op::sharpen), step(Op::open, [](OpParams& p) {
                           p.se = {SeShape::rect, 3, 5};
                         })};
  EXPECT_EQ(band_input_rows(chain, 100, 3, {10, 20}), (RowRange{10, 50}));
  EXPECT_EQ(band_input_rows(chain, 100, 3, {0, 5}), (RowRange{0, 20}));
  EXPECT_EQ(band_input_rows(chain, 99, 3, {45, 50}), (RowRange{80, 99}));
  EXPECT_TRUE(band_input_rows(chain, 100, 3, {50, 50}).empty());
}

struct NamedChain {
  std::string name;
  OpChain chain;
};

std::vector<NamedChain> chains() {
  const auto ellipse = [](OpParams& p) {
    p.se = {SeShape::ellipse, 7, 5};
    p.iterations = 2;
  };
  const auto even_rect = [](OpParams& p) { p.se = {SeShape::rect, 4, 2}; };
  const auto reflect = [](OpParams& p) { p.border = {BorderKind::reflect101, 0}; };
  const auto adaptive = [](OpParams& p) {
    p.adaptive = true;
    p.window = 7;
  };
  return {
      {"gray,gaussian,sobel", {step(Op::gray), step(Op::gaussian, reflect), step(Op::sobel)}},
      {"gaussian,pool,open", {step(Op::gaussian), step(Op::pool), step(Op::open, ellipse)}},
      {"sharpen,pool,pool,dilate",
       {step(Op::sharpen, reflect), step(Op::pool), step(Op::pool), step(Op::dilate, even_rect)}},
      {"close,equalize,erode", {step(Op::close, even_rect), step(Op::equalize), step(Op::erode)}},
      {"gaussian,segment", {step(Op::gaussian), step(Op::segment, adaptive)}},
      {"sobel,otsu", {step(Op::sobel), step(Op::otsu)}},
      {"pool,histogram", {step(Op::pool), step(Op::histogram)}},
  };
}

/// Every chain on odd shapes (one row, fewer rows than ranks, odd heights under a pool)
/// through the MPI backend over `node`, against the serial backend's run_chain.
void expect_chains_match_serial(const std::string& node) {
  MpiOptions mpi{MPI_COMM_WORLD, 0, true};
  mpi.node_backend = node;
  mpi.backends = &registered_backends;
  const auto backend = make_mpi_backend(BackendOptions{}, mpi);
  if (!backend->availability().present) GTEST_SKIP() << backend->availability().reason;
  const auto serial = find_backend("serial")->create(BackendOptions{});
  struct Shape {
    int width;
    int height;
  };
  for (const Shape shape :
       {Shape{1, 1}, Shape{7, 1}, Shape{3, 5}, Shape{17, 9}, Shape{33, 31}, Shape{64, 48}}) {
    for (const int channels : {1, 3, 4}) {
      const Image input = test::synthetic_image(shape.width, shape.height, channels, kSeed);
      for (const NamedChain& named : chains()) {
        const OpOutput expected = serial->run_chain(named.chain, input.view());
        const OpOutput actual = backend->run_chain(named.chain, input.view());
        const std::string what = named.name + " on " + std::to_string(shape.width) + "x" +
                                 std::to_string(shape.height) + "x" + std::to_string(channels);
        EXPECT_TRUE(test::same_image(expected.image, actual.image)) << what;
        EXPECT_EQ(expected.threshold, actual.threshold) << what;
        EXPECT_EQ(expected.histogram, actual.histogram) << what;
      }
    }
  }
}

TEST(NodeBackend, SerialChainsMatchTheSerialBackend) { expect_chains_match_serial("serial"); }

TEST(NodeBackend, ThreadedChainsMatchTheSerialBackend) { expect_chains_match_serial("pthread"); }

TEST(NodeBackend, TakesDeviceOptionsOnlyWhereTheNodeDoes) {
  MpiOptions mpi{MPI_COMM_WORLD, 0, true};
  mpi.backends = &registered_backends;
  EXPECT_FALSE(make_mpi_backend(BackendOptions{}, mpi)->takes_device());
  mpi.node_backend = "serial";
  const auto backend = make_mpi_backend(BackendOptions{}, mpi);
  EXPECT_FALSE(backend->takes_device());
  EXPECT_TRUE(backend->takes_distribution_options());
  mpi.node_backend = "mpi";
  EXPECT_THROW((void)make_mpi_backend(BackendOptions{}, mpi), UsageError);
  mpi.node_backend = "no-such-backend";
  EXPECT_THROW((void)make_mpi_backend(BackendOptions{}, mpi), UsageError);
}

}  // namespace
}  // namespace parfilter
