#include "pipeline_trace.hpp"

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <utility>

#include "parfilter/backend.hpp"

namespace parfilter::pipeline {
namespace {

constexpr const char* kTraceEnvironment = "PARFILTER_TRACE";

/// A small number per thread, in the order threads first record (the CSV's thread column).
int thread_number() {
  static std::atomic<int> next{0};
  thread_local const int number = next++;
  return number;
}

}  // namespace

std::unique_ptr<Trace> Trace::from_environment() {
  const char* path = std::getenv(kTraceEnvironment);
  if (path == nullptr || *path == '\0') return nullptr;
  // Each MPI rank runs its own pipeline: FILE.<rank>, so that they do not write over each other.
  for (const char* rank_variable : {"OMPI_COMM_WORLD_RANK", "PMI_RANK"}) {
    const char* rank = std::getenv(rank_variable);
    if (rank != nullptr && *rank != '\0')
      return std::make_unique<Trace>(std::string(path) + "." + rank);
  }
  return std::make_unique<Trace>(path);
}

Trace::Trace(std::string path) : path_(std::move(path)) {}

Trace::~Trace() {
  std::ofstream out(path_);
  out << "job,stage,thread,start_ms,end_ms\n";
  for (const Event& e : events_) {
    out << e.job << ',' << e.stage << ',' << e.thread << ',' << e.start_ms << ',' << e.end_ms
        << '\n';
  }
  out.close();
  if (!out) {
    std::cerr << "parfilter: " << kTraceEnvironment << ": cannot write '" << path_ << "'\n";
  }
}

void Trace::record(std::size_t job, const char* stage, Clock::time_point start,
                   Clock::time_point end) {
  const Event event{job, stage, thread_number(), elapsed_ms(origin_, start),
                    elapsed_ms(origin_, end)};
  const std::scoped_lock lock(mutex_);
  events_.push_back(event);
}

}  // namespace parfilter::pipeline
