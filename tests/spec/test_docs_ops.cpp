// docs/FILTERS.md specifies every op of the op table: each has a row in "Ops at a glance" and a
// section of its own ("## name", or a heading naming it among others), so that an op added to
// the table without its definition fails the suite (scripts/check-add-op.sh relies on it).
#include <gtest/gtest.h>

#include <cctype>
#include <fstream>
#include <string>
#include <vector>

#include "parfilter/op_set.hpp"

namespace parfilter {
namespace {

std::vector<std::string> filters_md_lines() {
  std::ifstream in(PARFILTER_FILTERS_MD);
  EXPECT_TRUE(in) << "cannot read " << PARFILTER_FILTERS_MD;
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

/// Whether `text` holds `name` as a whole word (ops are lower-case words).
bool names(const std::string& text, const std::string& name) {
  for (std::size_t at = text.find(name); at != std::string::npos; at = text.find(name, at + 1)) {
    const auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
    const bool starts = at == 0 || !word(text[at - 1]);
    const bool ends = at + name.size() == text.size() || !word(text[at + name.size()]);
    if (starts && ends) return true;
  }
  return false;
}

TEST(DocsOps, FiltersMdHasEveryOpsRowAndSection) {
  const std::vector<std::string> lines = filters_md_lines();
  ASSERT_FALSE(lines.empty());
  for (const OpInfo& info : op_table()) {
    const std::string name(info.name);
    bool row = false;
    bool section = false;
    for (const std::string& line : lines) {
      // A row of the table starts with the op's names in backticks: | `erode`, `dilate` |
      if (line.starts_with("| `")) {
        row = row || names(line.substr(0, line.find(" |", 2)), "`" + name + "`");
      }
      if (line.starts_with("## ")) section = section || names(line.substr(3), name);
    }
    EXPECT_TRUE(row) << "docs/FILTERS.md: no row for " << name << " in \"Ops at a glance\"";
    EXPECT_TRUE(section) << "docs/FILTERS.md: no section \"## " << name << "\"";
  }
}

}  // namespace
}  // namespace parfilter
