#include "bench_matrix.hpp"

#include <algorithm>
#include <stdexcept>

namespace parfilter::bench {

ImageSize parse_size(const std::string& text) {
  const auto x = text.find('x');
  try {
    std::size_t used = 0;
    const int width = std::stoi(text.substr(0, x), &used);
    const int height = x == std::string::npos ? width : std::stoi(text.substr(x + 1));
    if (width > 0 && height > 0 && used == (x == std::string::npos ? text.size() : x)) {
      return {width, height};
    }
  } catch (const std::logic_error&) {
    // falls through to the message below
  }
  throw std::invalid_argument("bad image size '" + text + "' (want N or WxH)");
}

std::vector<std::string> default_ops() {
  std::vector<std::string> names;
  for (const Op op : kAllOps) {
    if (op != Op::open && op != Op::close) names.emplace_back(op_name(op));
  }
  return names;
}

bool has_se(Op op) { return reads(op, Param::se); }

std::vector<Case> expand_cases(const Matrix& matrix) {
  std::vector<Op> ops;
  const bool all = std::find(matrix.ops.begin(), matrix.ops.end(), "all") != matrix.ops.end();
  if (all) {
    ops.assign(kAllOps.begin(), kAllOps.end());
  } else {
    for (const auto& name : matrix.ops.empty() ? default_ops() : matrix.ops) {
      const auto op = parse_op(name);
      if (!op) throw std::invalid_argument("unknown op '" + name + "'");
      ops.push_back(*op);
    }
  }
  std::vector<Case> cases;
  for (const auto& size_text : matrix.sizes) {
    const ImageSize size = parse_size(size_text);
    for (const int channels : matrix.channels) {
      if (channels != 1 && channels != 3 && channels != 4) {
        throw std::invalid_argument("channels must be 1, 3 or 4");
      }
      for (const int bits : matrix.depths) {
        if (bits != bits_of(Depth::u8) && bits != bits_of(Depth::u16)) {
          throw std::invalid_argument("depths must be 8 or 16");
        }
        const Depth depth = bits == bits_of(Depth::u8) ? Depth::u8 : Depth::u16;
        for (const Op op : ops) {
          const std::vector<int> sides = has_se(op) ? matrix.se : std::vector<int>{0};
          for (const int side : sides) {
            Case c{op, OpParams{}, size, channels, depth, side};
            if (side > 0) c.params.se = {SeShape::rect, side, side};
            validate_params(op, c.params, depth);
            cases.push_back(std::move(c));
          }
        }
      }
    }
  }
  return cases;
}

}  // namespace parfilter::bench
