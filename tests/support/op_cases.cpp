#include "support/op_cases.hpp"

#include <cctype>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>

#include "reference.hpp"
#include "support/test_images.hpp"

namespace parfilter::test {
namespace {

std::mutex cache_mutex;

/// A fixed seed per synthetic shape and channel count.
std::uint32_t seed_of(const Shape& shape, int channels) {
  constexpr std::uint32_t kWidthFactor = 7919;
  constexpr std::uint32_t kHeightFactor = 104729;
  return static_cast<std::uint32_t>(shape.width) * kWidthFactor +
         static_cast<std::uint32_t>(shape.height) * kHeightFactor +
         static_cast<std::uint32_t>(channels);
}

/// "se_ellipse_70x50": the option without dashes and the value, as a test-name part.
std::string set_name(const ParamInfo& info, std::string_view value) {
  std::string option(info.option.substr(2));
  return sanitize(info.kind == ParamKind::flag ? option : joined({option, value}, "_"));
}

}  // namespace

const std::vector<Shape>& synthetic_shapes() {
  // 67x5: the CPU kernels' vector loops with odd tails, transposes with a partial tile.
  static const std::vector<Shape> shapes = {
      {"1x1", 1, 1, ""},     {"1x7", 1, 7, ""},  {"7x1", 7, 1, ""},   {"2x2", 2, 2, ""},
      {"3x5", 3, 5, ""},     {"4x4", 4, 4, ""},  {"17x9", 17, 9, ""}, {"33x31", 33, 31, ""},
      {"64x48", 64, 48, ""}, {"67x5", 67, 5, ""}};
  return shapes;
}

const std::vector<DataImage>& data_images() {
  static const std::vector<DataImage> images = {{{"astronaut", 0, 0, "astronaut.png"}, 3},
                                                {{"camera", 0, 0, "camera.png"}, 1},
                                                {{"horse", 0, 0, "horse.png"}, 4}};
  return images;
}

const std::vector<BorderMode>& border_modes() {
  static const std::vector<BorderMode> modes = [] {
    std::vector<BorderMode> all = {OpParams{}.border};
    for (const std::string_view sample : param_info(Param::border).samples) {
      all.push_back(*parse_border(sample));
    }
    return all;
  }();
  return modes;
}

bool uses_border(Op op) { return reads(op, Param::border); }

std::vector<ParamSet> param_sets(Op op) {
  std::vector<ParamSet> sets = {{"default", {}}};
  for (const Param param : op_info(op).params) {
    if (param == Param::border) continue;  // crossed with every set by the suites
    const ParamInfo& info = param_info(param);
    std::vector<std::string_view> values(info.samples.begin(), info.samples.end());
    if (info.kind == ParamKind::flag) values = {"true"};
    for (const std::string_view value : values) {
      ParamSet set{set_name(info, value), {}};
      if (info.needs) set_param(*info.needs, "true", set.params);
      set_param(param, value, set.params);
      sets.push_back(std::move(set));
    }
  }
  return sets;
}

std::vector<ParamSet> data_param_sets(Op op) {
  std::vector<ParamSet> sets = {{"default", {}}};
  for (const Param param : op_info(op).params) {
    const ParamInfo& info = param_info(param);
    if (info.kind != ParamKind::flag) continue;
    ParamSet set{set_name(info, "true"), {}};
    set_param(param, "true", set.params);
    sets.push_back(std::move(set));
  }
  if (op_info(op).traits.morphology != MorphologyOrder::none) {
    ParamSet ellipse{"se_ellipse_7x5", {}};
    set_param(Param::se, "ellipse:7x5", ellipse.params);
    sets.push_back(std::move(ellipse));
  }
  return sets;
}

std::string sanitize(std::string text) {
  for (char& ch : text) {
    if (std::isalnum(static_cast<unsigned char>(ch)) == 0) ch = '_';
  }
  return text;
}

std::string joined(std::initializer_list<std::string_view> parts, std::string_view separator) {
  std::string text;
  for (const std::string_view part : parts) {
    if (!text.empty()) text.append(separator);
    text.append(part);
  }
  return text;
}

std::string border_label(BorderMode border) {
  if (border.kind != BorderKind::constant) return to_string(border);
  return joined({"constant", std::to_string(border.value)}, "");
}

std::string backend_label(const std::string& backend, int threads) {
  if (threads == 0) return backend;
  return joined({backend, joined({"t", std::to_string(threads)}, "")}, "_");
}

std::string case_name(const Case& c) {
  const std::string channels = joined({"c", std::to_string(c.channels)}, "");
  std::string name = joined(
      {backend_label(c.backend, c.threads), op_name(c.op), c.variant, c.shape.name, channels}, "_");
  if (c.uses_border) name = joined({name, border_label(c.param.params.border)}, "_");
  return sanitize(joined({name, c.param.name}, "_"));
}

const Image& input_image(const Shape& shape, int channels) {
  static std::map<std::string, Image> cache;
  const std::string key = joined({shape.name, std::to_string(channels)}, "/");
  const std::scoped_lock lock(cache_mutex);
  auto it = cache.find(key);
  if (it == cache.end()) {
    Image img = shape.file.empty()
                    ? synthetic_image(shape.width, shape.height, channels, seed_of(shape, channels))
                    : load_data_image(shape.file);
    it = cache.emplace(key, std::move(img)).first;
  }
  return it->second;
}

const OpOutput& reference_output(const Case& c, const Image& input) {
  static std::map<std::string, OpOutput> cache;
  const std::string border = c.uses_border ? to_string(c.param.params.border) : "none";
  const std::string key =
      joined({op_name(c.op), c.shape.name, std::to_string(c.channels), c.param.name, border}, "/");
  {
    const std::scoped_lock lock(cache_mutex);
    if (auto it = cache.find(key); it != cache.end()) return it->second;
  }
  OpOutput output = reference::run(c.op, input, c.param.params);
  const std::scoped_lock lock(cache_mutex);
  return cache.emplace(key, std::move(output)).first->second;
}

Backend& backend_named(const std::string& name, int threads) {
  static std::map<std::string, std::unique_ptr<Backend>> cache;
  const std::string label = backend_label(name, threads);
  const std::scoped_lock lock(cache_mutex);
  auto it = cache.find(label);
  if (it == cache.end()) {
    const BackendInfo* info = find_backend(name);
    if (info == nullptr) throw std::runtime_error("backend " + name + " is not registered");
    BackendOptions options;
    options.threads = threads;
    it = cache.emplace(label, info->create(options)).first;
  }
  return *it->second;
}

}  // namespace parfilter::test
