#include "cpu_copy.hpp"

#include <cstring>

#ifdef PARFILTER_BENCH_HAVE_PTHREAD
#include "pthread_scheduler.hpp"
#endif
#ifdef PARFILTER_BENCH_HAVE_OPENMP
#include "openmp_scheduler.hpp"
#endif

namespace parfilter::bench {

std::unique_ptr<RowScheduler> make_scheduler(std::string_view name, int threads) {
#ifdef PARFILTER_BENCH_HAVE_PTHREAD
  if (name == "pthread") return make_pthread_scheduler(threads);
#endif
#ifdef PARFILTER_BENCH_HAVE_OPENMP
  if (name == "openmp") return make_openmp_scheduler(threads);
#endif
  (void)name;
  (void)threads;
  return nullptr;
}

std::unique_ptr<RowScheduler> make_any_scheduler(int threads) {
  if (auto scheduler = make_scheduler("pthread", threads)) return scheduler;
  return make_scheduler("openmp", threads);
}

std::function<void()> scheduled_copy(RowScheduler& scheduler, const Image& src, Image& dst) {
  return [&scheduler, &src, &dst] {
    scheduler.for_each_block(src.height(), [&](RowRange rows, int) {
      // Bytes, so that either depth copies alike.
      const std::size_t row_bytes = src.size_bytes() / static_cast<std::size_t>(src.height());
      const std::size_t first = static_cast<std::size_t>(rows.begin) * row_bytes;
      std::memcpy(dst.bytes() + first, src.bytes() + first,
                  static_cast<std::size_t>(rows.size()) * row_bytes);
    });
  };
}

}  // namespace parfilter::bench
