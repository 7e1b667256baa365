#include "cpu_batch.hpp"

#include <exception>
#include <optional>
#include <utility>
#include <vector>

namespace parfilter {
namespace {

/// One input of a group and what became of it.
struct GroupItem {
  BatchInput input;
  OpOutput output;
  StageTimes times;
  std::exception_ptr failure;
};

void run_item(RowScheduler& scheduler, GroupItem& item, const ChainOnScheduler& run) {
  try {
    item.output = run(scheduler, item.input.image.view(), item.times);
  } catch (...) {
    item.failure = std::current_exception();
  }
}

}  // namespace

void run_image_groups(RowScheduler& scheduler, const BatchCallbacks& callbacks,
                      const ChainOnScheduler& run) {
  const auto group_size = static_cast<std::size_t>(scheduler.max_blocks());
  std::vector<GroupItem> group;
  for (bool more = true; more;) {
    group.clear();
    while (group.size() < group_size) {
      std::optional<BatchInput> input = callbacks.next();
      if (!input) {
        more = false;
        break;
      }
      group.push_back({std::move(*input), {}, {}, {}});
    }
    if (group.size() == group_size && group_size > 1) {
      scheduler.for_each_block(static_cast<int>(group.size()), [&](RowRange images, int) {
        CallingThreadScheduler one_thread;
        for (int i = images.begin; i < images.end; ++i) {
          run_item(one_thread, group[static_cast<std::size_t>(i)], run);
        }
      });
    } else {
      for (GroupItem& item : group) run_item(scheduler, item, run);
    }
    for (GroupItem& item : group) {
      if (item.failure) {
        callbacks.failed(item.input.index, item.failure);
      } else {
        callbacks.done(item.input.index, std::move(item.output), item.times);
      }
    }
  }
}

}  // namespace parfilter
