// The command line's chain: "gray,gaussian,sobel" into steps, each step's parameters from the
// shared options (for every step that reads them) and then its own ("--2.sigma 3",
// "--gaussian.sigma 3"); and the per-op help, both from the op table (op_set.hpp).
#include <algorithm>
#include <array>
#include <charconv>
#include <iomanip>
#include <sstream>

#include "cli_internal.hpp"
#include "parfilter/error.hpp"

namespace parfilter::cli_detail {
namespace {

std::string all_op_names() {
  std::string names;
  for (const OpInfo& info : op_table())
    names += (names.empty() ? "" : ", ") + std::string(info.name);
  return names;
}

std::vector<Op> parse_ops(const std::string& text) {
  std::vector<Op> ops;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = text.find(',', start);
    const std::string name = text.substr(start, comma == std::string::npos ? comma : comma - start);
    const auto op = parse_op(name);
    if (!op) throw UsageError("unknown op '" + name + "' (ops: " + all_op_names() + ")");
    ops.push_back(*op);
    if (comma == std::string::npos) return ops;
    start = comma + 1;
  }
}

std::optional<Param> param_of_option(std::string_view option) {
  for (const ParamInfo& info : param_table()) {
    if (info.option == option) return info.param;
  }
  return std::nullopt;
}

/// The steps `selector` names: a 1-based position, or every step of an op name.
std::vector<std::size_t> selected_steps(const OpChain& chain, const std::string& selector) {
  std::size_t position = 0;
  const auto* end = selector.data() + selector.size();
  if (std::from_chars(selector.data(), end, position).ptr == end) {
    if (position < 1 || position > chain.size()) {
      throw UsageError("--" + selector + ".*: the chain has steps 1 to " +
                       std::to_string(chain.size()));
    }
    return {position - 1};
  }
  std::vector<std::size_t> steps;
  for (std::size_t i = 0; i < chain.size(); ++i) {
    if (op_name(chain[i].op) == selector) steps.push_back(i);
  }
  if (steps.empty()) {
    throw UsageError("--" + selector + ".*: no step of the chain " + chain_name(chain) + " is " +
                     selector);
  }
  return steps;
}

}  // namespace

OpChain make_chain(const CliArgs& args) {
  OpChain chain;
  for (const Op op : parse_ops(args.op_name)) chain.push_back({op, {}});
  std::vector<std::array<bool, kParamCount>> given(chain.size(), std::array<bool, kParamCount>{});
  // Shared options: every step that reads one takes it; one that no step reads is a mistake.
  for (const ParamInfo& info : param_table()) {
    const auto& text = args.params[static_cast<std::size_t>(info.param)];
    if (!text) continue;
    bool read = false;
    for (std::size_t i = 0; i < chain.size(); ++i) {
      if (!reads(chain[i].op, info.param)) continue;
      set_param(info.param, *text, chain[i].params);
      given[i][static_cast<std::size_t>(info.param)] = true;
      read = true;
    }
    if (!read) {
      throw UsageError(std::string(info.option) + " does not apply to " + chain_name(chain) +
                       " (it is read by " + ops_reading(info.param) + ")");
    }
  }
  for (OpStep& step : chain) step.params.variant = args.variant;
  // Each step's own options override the shared ones.
  for (const StepOption& option : args.step_options) {
    const std::string spelled = "--" + option.step + "." + option.option;
    const auto param = param_of_option("--" + option.option);
    if (!param && option.option != "variant") {
      throw UsageError(spelled + ": no such op option");
    }
    for (const std::size_t i : selected_steps(chain, option.step)) {
      OpStep& step = chain[i];
      if (!param) {
        step.params.variant = option.value;
        continue;
      }
      if (!reads(step.op, *param)) {
        throw UsageError(spelled + ": " + std::string(op_name(step.op)) + " does not read --" +
                         option.option);
      }
      set_param(*param, option.value, step.params);
      given[i][static_cast<std::size_t>(*param)] = true;
    }
  }
  // An option that needs a flag (--window needs --adaptive) is a mistake without it.
  for (std::size_t i = 0; i < chain.size(); ++i) {
    for (const Param param : op_info(chain[i].op).params) {
      const ParamInfo& info = param_info(param);
      if (given[i][static_cast<std::size_t>(param)] && info.needs &&
          param_text(*info.needs, chain[i].params) != "true") {
        throw UsageError(std::string(info.option) + " needs " +
                         std::string(param_info(*info.needs).option));
      }
    }
  }
  validate_chain(chain);
  if (args.print_threshold && !op_info(chain.back().op).traits.gives_threshold()) {
    throw UsageError("--print-threshold applies to otsu and segment (as the chain's last op)");
  }
  return chain;
}

std::string op_help(const std::string& program, Op op, const std::vector<std::string>& variants) {
  const OpInfo& info = op_info(op);
  std::ostringstream out;
  out << program << " " << info.name << ": " << info.summary << "\n\n"
      << "usage: " << program << " " << info.name << " [options] <input> <output>\n"
      << "       " << program << " " << info.name << " [options] --out-dir DIR <input>...\n\n";
  if (info.params.empty()) {
    out << info.name << " takes no options of its own.\n";
  } else {
    out << "options of " << info.name << ":\n";
    constexpr int kOptionColumn = 24;
    const OpParams defaults;
    for (const Param param : info.params) {
      const ParamInfo& p = param_info(param);
      std::string left = "  " + std::string(p.option);
      if (!p.value_name.empty()) left += " " + std::string(p.value_name);
      std::string right(p.help);
      if (p.kind == ParamKind::integer) {
        right += ", from " + std::to_string(static_cast<long long>(p.min)) + " to " +
                 std::to_string(static_cast<long long>(p.max));
      } else if (p.kind == ParamKind::real) {
        std::ostringstream range;
        range << ", in (" << p.min << ", " << p.max << "]";
        right += range.str();
      } else if (p.kind == ParamKind::word) {
        right += ": " + std::string(p.choices);
      }
      if (p.kind != ParamKind::flag) right += " (default " + param_text(param, defaults) + ")";
      if (p.needs) right += "; needs " + std::string(param_info(*p.needs).option);
      out << std::left << std::setw(kOptionColumn) << left << right << "\n";
    }
  }
  if (info.traits.gives_threshold()) {
    out << "  --print-threshold       print the global threshold on stdout\n";
  }
  out << "\nvariants on this backend (default first):";
  for (const std::string& v : variants) out << " " << v;
  out << "\nIn a chain (\"" << program << " gray,gaussian IN OUT\"), an option applies to every "
      << "step that reads it;\n\"--N.OPTION V\" or \"--OP.OPTION V\" gives step N, or every "
      << info.name << " step, its own.\nThe common options: " << program << " --help.\n";
  return out.str();
}

}  // namespace parfilter::cli_detail
