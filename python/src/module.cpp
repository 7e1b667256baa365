// parfilter's Python module (_parfilter): the op and parameter tables, the backends, one entry
// point that runs an op chain on an array, and the project's codecs. parfilter/__init__.py
// builds one Python function per op from these tables.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "arrays.hpp"
#include "backend_pool.hpp"
#include "filter_math.hpp"
#include "parfilter/backend.hpp"
#include "parfilter/error.hpp"
#include "parfilter/image_io.hpp"
#include "parfilter/op_set.hpp"
#include "prepared.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace parfilter::python {
namespace {

/// One step as Python passes it: the op's name and its parameters by Python name, each value
/// spelled as the command line takes it ("variant" names the variant).
using Step = std::pair<std::string, std::map<std::string, std::string>>;

constexpr std::string_view kVariantKey = "variant";

/// A file that could not be written (a full disk, no permission): OSError, as a read's failure.
class WriteError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A parameter's Python name: its option without the dashes, '-' as '_' ("min_contrast").
[[nodiscard]] std::string python_name(const ParamInfo& info) {
  std::string name(info.option.substr(info.option.find_first_not_of('-')));
  for (char& c : name) {
    if (c == '-') c = '_';
  }
  return name;
}

/// Every parameter by its Python name, built once.
[[nodiscard]] const std::map<std::string, Param, std::less<>>& params_by_name() {
  static const std::map<std::string, Param, std::less<>> by_name = [] {
    std::map<std::string, Param, std::less<>> map;
    for (const ParamInfo& info : param_table()) map.emplace(python_name(info), info.param);
    return map;
  }();
  return by_name;
}

[[nodiscard]] std::string_view kind_name(ParamKind kind) {
  switch (kind) {
    case ParamKind::flag:
      return "flag";
    case ParamKind::integer:
      return "integer";
    case ParamKind::real:
      return "real";
    case ParamKind::word:
      return "word";
  }
  return "word";
}

[[nodiscard]] Op op_named(const std::string& name) {
  const auto op = parse_op(name);
  if (!op) throw UsageError("unknown op '" + name + "'");
  return *op;
}

[[nodiscard]] OpChain chain_of(const std::vector<Step>& steps) {
  OpChain chain;
  for (const auto& [name, values] : steps) {
    OpStep step{op_named(name), {}};
    for (const auto& [key, text] : values) {
      if (key == kVariantKey) {
        step.params.variant = text;
        continue;
      }
      const auto found = params_by_name().find(key);
      if (found == params_by_name().end() || !reads(step.op, found->second)) {
        throw UsageError(name + " takes no parameter '" + key + "'");
      }
      set_param(found->second, text, step.params);
    }
    chain.push_back(std::move(step));
  }
  return chain;
}

nb::object run(const std::vector<Step>& steps, const HostArray& array, const std::string& backend,
               int threads) {
  return PreparedChain(chain_of(steps), backend, threads).run(array);
}

PreparedChain prepare(const std::vector<Step>& steps, const std::string& backend, int threads) {
  return {chain_of(steps), backend, threads};
}

/// The same on an array in CUDA memory: the result stays there, an array of `framework`.
nb::object run_on_device(const std::vector<Step>& steps, const CudaArray& array,
                         const std::string& backend, int threads, std::uintptr_t stream,
                         const std::string& framework) {
  OpChain chain = chain_of(steps);
  DeviceOutput output;
  {
    const nb::gil_scoped_release release;
    BackendPool::Lease lease = BackendPool::shared().lease(backend, threads);
    if (!lease->runs_device_images()) {
      throw UsageError("a GPU array: the " + backend +
                       " backend filters host arrays; use backend='cuda' (or a NumPy array)");
    }
    const DeviceImageRef input = device_image_of(array, *lease);
    chain = resolve_chain(*lease, chain);
    for (const OpStep& step : chain) validate_params(step.op, step.params, input.depth);
    output = lease->run_chain_on_device(chain, input, stream);
  }
  const OpTraits& traits = op_info(chain.back().op).traits;
  if (traits.histogram_result) {
    OpOutput counts;
    counts.histogram = std::move(output.histogram);
    counts.wide_histogram = std::move(output.wide_histogram);
    return histogram_array(counts);
  }
  const std::optional<int> threshold = output.threshold;
  nb::object image = to_device_array(std::move(output), has_channel_axis(array), framework);
  if (traits.gives_threshold() && threshold) return nb::make_tuple(image, *threshold);
  return image;
}

/// The mask of a named structuring element ("cross:5x5"): uint8 (H, W), 1 where set.
nb::object se_mask(const std::string& text) {
  const std::optional<SeSpec> spec = parse_se(text);
  if (!spec) throw UsageError("se '" + text + "': SHAPE:WxH, SHAPE rect, cross or ellipse");
  const StructuringElement se = make_structuring_element(*spec);
  Image mask = Image::uninitialized(se.width, se.height, 1);
  std::copy(se.mask.begin(), se.mask.end(), mask.data());
  return to_array(std::move(mask), false);
}

nb::list op_table_list() {
  nb::list ops;
  for (const OpInfo& info : op_table()) {
    nb::list params;
    for (const Param param : info.params) params.append(python_name(param_info(param)));
    nb::dict op;
    op["name"] = std::string(info.name);
    op["summary"] = std::string(info.summary);
    op["params"] = params;
    op["gray_result"] = info.traits.gray_result;
    op["halves_size"] = info.traits.halves_size;
    op["histogram_result"] = info.traits.histogram_result;
    op["threshold_result"] = info.traits.gives_threshold();
    op["morphology"] = info.traits.morphology != MorphologyOrder::none;
    ops.append(op);
  }
  return ops;
}

nb::list param_table_list() {
  nb::list params;
  const OpParams defaults;
  for (const ParamInfo& info : param_table()) {
    nb::dict param;
    param["name"] = python_name(info);
    param["option"] = std::string(info.option);
    param["kind"] = std::string(kind_name(info.kind));
    param["help"] = std::string(info.help);
    param["min"] = info.min;
    param["max"] = info.max;
    param["choices"] = std::string(info.choices);
    param["default"] = param_text(info.param, defaults);
    // A default that depends on the image's depth (--min-contrast) is left to the op.
    param["default_16"] = param_text(info.param, at_depth(defaults, Depth::u16));
    nb::list samples;
    for (const std::string_view sample : info.samples) samples.append(std::string(sample));
    param["samples"] = samples;  // values the tests try besides the default
    param["needs"] = info.needs ? nb::cast(python_name(param_info(*info.needs))) : nb::none();
    params.append(param);
  }
  return params;
}

nb::list backend_list() {
  nb::list backends;
  for (const BackendInfo& info : registered_backends()) {
    nb::dict entry;
    entry["name"] = std::string(info.name);
    entry["threaded"] = info.threaded;
    if (info.distributed) {
      entry["available"] = false;
      entry["reason"] = "runs under mpirun as parfilter-" + std::string(info.name);
      entry["devices"] = "";
      entry["runs_16_bit"] = false;
      backends.append(entry);
      continue;
    }
    Availability availability;
    std::string devices;
    bool runs_16_bit = false;
    try {
      const nb::gil_scoped_release release;
      const BackendPool::Lease lease = BackendPool::shared().lease(std::string(info.name), 0);
      availability = lease->availability();
      if (availability.present) devices = lease->describe_devices();
      runs_16_bit = lease->runs_16_bit();
    } catch (const std::exception& e) {
      availability = {false, e.what()};
    }
    entry["available"] = availability.present;
    entry["reason"] = availability.reason;
    entry["devices"] = devices;
    entry["runs_16_bit"] = runs_16_bit;
    backends.append(entry);
  }
  return backends;
}

std::vector<std::string> variants_of(const std::string& op, const std::string& backend) {
  const Op parsed = op_named(op);
  const nb::gil_scoped_release release;
  const BackendPool::Lease lease = BackendPool::shared().lease(backend, 0);
  return lease->variants(parsed);
}

nb::object imread(const std::string& path, std::optional<int> depth) {
  if (depth && *depth != 8 && *depth != 16) {
    throw UsageError("depth " + std::to_string(*depth) + ": 8 or 16");
  }
  Image image;
  {
    const nb::gil_scoped_release release;
    image = load_image(path);
    if (depth) image = convert_depth(image, *depth == 8 ? Depth::u8 : Depth::u16);
  }
  return to_array(std::move(image), false);
}

/// `value` when within [min, max]; UsageError naming it otherwise.
int within(const char* name, int value, int min, int max) {
  if (value < min || value > max) {
    throw UsageError(std::string(name) + " " + std::to_string(value) + ": " + std::to_string(min) +
                     " to " + std::to_string(max));
  }
  return value;
}

void imwrite(const std::string& path, const HostArray& array,
             const std::optional<std::string>& compression, std::optional<int> png_level,
             std::optional<int> jpeg_quality) {
  const ArrayInput input(array);
  SaveOptions options;
  if (compression) {
    const auto tiff = parse_tiff_compression(*compression);
    if (!tiff) {
      throw UsageError("compression '" + *compression + "': none, lzw, deflate or packbits");
    }
    options.tiff_compression = *tiff;
  }
  if (png_level) options.png_level = within("png_level", *png_level, kMinPngLevel, kMaxPngLevel);
  if (jpeg_quality) {
    options.jpeg_quality = within("jpeg_quality", *jpeg_quality, kMinJpegQuality, kMaxJpegQuality);
  }
  const nb::gil_scoped_release release;
  check_output_path(path);  // before any work, as the command line: InputError, OSError
  try {
    save_image(input.image(), path, options);
  } catch (const RuntimeError& e) {
    throw WriteError(e.what());
  }
}

void translate(const std::exception_ptr& failure, void* /*payload*/) {
  try {
    std::rethrow_exception(failure);
  } catch (const UsageError& e) {
    PyErr_SetString(PyExc_ValueError, e.what());
  } catch (const InputError& e) {
    PyErr_SetString(PyExc_OSError, e.what());
  } catch (const WriteError& e) {
    PyErr_SetString(PyExc_OSError, e.what());
  } catch (const RuntimeError& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
}

}  // namespace
}  // namespace parfilter::python

NB_MODULE(_parfilter, m) {
  namespace py = parfilter::python;
  m.doc() = "parfilter's native core; use the parfilter package, which wraps it.";
  m.attr("__version__") = PARFILTER_VERSION;
  nb::register_exception_translator(&py::translate);
  m.def("op_table", &py::op_table_list, "Every op: name, summary, parameters and traits.");
  m.def("param_table", &py::param_table_list,
        "Every parameter: name, kind, range, default and help, as the CLI declares them.");
  m.def("backends", &py::backend_list, "Every backend built, and whether it runs here.");
  m.def("backend_names", &py::embeddable_backend_names,
        "The backends built that run inside Python, without starting any.");
  m.def("variants", &py::variants_of, "op"_a, "backend"_a,
        "The variants a backend offers for an op, its default first.");
  m.def("run", &py::run, "steps"_a, "image"_a, "backend"_a, "threads"_a,
        "Runs the steps [(op, {param: text})] on the image array.");
  nb::class_<py::PreparedChain>(m, "PreparedChain",
                                "A chain resolved once for a backend and thread count.")
      .def("run", &py::PreparedChain::run, "image"_a,
           "Runs the chain on a host array, as run does.");
  m.def("prepare", &py::prepare, "steps"_a, "backend"_a, "threads"_a,
        "The steps [(op, {param: text})] checked and resolved once, to run on many arrays.");
  m.def(
      "reads_in_place", [](const py::HostArray& array) { return py::ArrayInput(array).in_place(); },
      "image"_a, "Whether the backends read the array's own memory, with no copy on the way in.");
  m.def("se_mask", &py::se_mask, "se"_a,
        "The mask of a named structuring element, as the morphology ops apply it.");
  m.def("run_on_device", &py::run_on_device, "steps"_a, "image"_a, "backend"_a, "threads"_a,
        "stream"_a, "framework"_a,
        "The same on a CUDA array, ordered on the caller's stream; the result stays there.");
  m.def("imread", &py::imread, "path"_a, "depth"_a = nb::none(),
        "Loads an image file (BMP, PNG, JPEG, TGA, PNM, TIFF) as an array.");
  m.def("imwrite", &py::imwrite, "path"_a, "image"_a, "compression"_a = nb::none(),
        "png_level"_a = nb::none(), "jpeg_quality"_a = nb::none(),
        "Saves an array to a file, its format from the extension, atomically.");
}
