// A backend's ops defined one file per op, each file named after its op (ArrayFire's same stem
// per op), collected by CMake into a generated table: index_by_op puts them in Op order and
// checks, once, that every op has exactly one definition; defines_every_op checks the files'
// stems at compile time (cmake/ParfilterOpTable.cmake asserts it in every generated table).
#pragma once

#include <array>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>

#include "parfilter/op_set.hpp"

namespace parfilter {

/// Whether `defined` (the ops a backend's folder has files for) holds every op of kAllOps
/// exactly once.
template <std::size_t N>
[[nodiscard]] consteval bool defines_every_op(const std::array<Op, N>& defined) {
  if (N != kAllOps.size()) return false;
  for (const Op op : kAllOps) {
    std::size_t count = 0;
    for (const Op file : defined) count += file == op ? 1 : 0;
    if (count != 1) return false;
  }
  return true;
}

/// `defined` (each with a `name`, the op's) by Op; std::logic_error naming `folder` when a
/// name is no op, or an op has no definition or two.
template <class Definition>
[[nodiscard]] std::array<const Definition*, kAllOps.size()> index_by_op(
    std::initializer_list<const Definition*> defined, std::string_view folder) {
  std::array<const Definition*, kAllOps.size()> by_op{};
  for (const Definition* definition : defined) {
    const auto op = parse_op(definition->name);
    const std::string file = std::string(folder) + "/" + std::string(definition->name) + ".*";
    if (!op) throw std::logic_error(file + ": no such op");
    const auto index = static_cast<std::size_t>(*op);
    if (by_op[index] != nullptr) throw std::logic_error(file + ": the op is defined twice");
    by_op[index] = definition;
  }
  for (const Op op : kAllOps) {
    if (by_op[static_cast<std::size_t>(op)] == nullptr) {
      throw std::logic_error(std::string(folder) + " has no " + std::string(op_name(op)) + ".*");
    }
  }
  return by_op;
}

}  // namespace parfilter
