// The Python frontend (module solder._solder): build a Fusion, run it on any DLPack tensors.
// Tensors on the GPU run through the Executor's device path on the caller's stream; tensors in
// host memory (numpy, CPU torch) run on the CPU reference executor. torch tensors take the
// exchange-table path of fast_call.cpp (outputs from torch's allocator); other frameworks go
// through DLPack capsules here, GPU outputs then owned by Solder's allocator (as torch tensors)
// and host outputs as numpy arrays (torch CPU tensors when the inputs were torch).
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/variant.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <variant>

#include "exec/view_meta.h"
#include "fast_call.h"
#include "ir/parser.h"
#include "runtime/capture_retention.h"
#include "ir/printer.h"
#include "solder/error.h"
#include "solder/executor.h"
#include "solder/fusion.h"
#include "solder/reference.h"

namespace nb = nanobind;
using namespace nb::literals;
using solder::DType;
using solder::Tensor;
using solder_py::PyExecutor;

namespace {

using DimArg = std::variant<int64_t, std::string>;
using Array = nb::ndarray<nb::ro>;  // any framework, any device, any dtype
// A Python int and a Python float are different operands, as in torch: `i32_tensor * 2` stays
// i32, `i32_tensor * 2.0` is f32 (torch's default float dtype).
using Operand = std::variant<Tensor, nb::int_, nb::float_>;

DType dtype_arg(const std::string& s) {
  auto t = solder::parse_dtype(s);
  if (!t) throw nb::value_error(("unknown dtype '" + s + "' (f64, f32, f16, bf16, f8e4m3, f8e5m2, i64, i32, bool)").c_str());
  return *t;
}

solder::Shape shape_arg(const std::vector<DimArg>& dims) {
  solder::Shape s;
  for (const auto& d : dims)
    s.push_back(std::holds_alternative<int64_t>(d) ? solder::Dim(std::get<int64_t>(d)) : solder::parse_dim(std::get<std::string>(d)));
  return s;
}

nb::dlpack::dtype to_dlpack(DType t) {
  nb::dlpack::dtype d{0, 0, 1};
  solder_py::dlpack_of_dtype(t, d.code, d.bits);
  return d;
}

DType from_dlpack(nb::dlpack::dtype d, size_t index) { return solder_py::dtype_of_dlpack(d.code, d.bits, d.lanes, index); }

std::vector<int64_t> dims_of(const Array& a) {
  std::vector<int64_t> v(a.ndim());
  for (size_t i = 0; i < a.ndim(); ++i) v[i] = static_cast<int64_t>(a.shape(i));
  return v;
}
std::vector<int64_t> strides_of(const Array& a) {
  std::vector<int64_t> v(a.ndim());
  for (size_t i = 0; i < a.ndim(); ++i) v[i] = a.stride(i);
  return v;
}

// bf16 and fp8: dtypes numpy lacks. Host arrays of them travel as their bits (uint16, uint8),
// which solder._narrow_view and solder._narrow_input type and untype (ml_dtypes, or tagged bits).
bool narrow(DType t) { return t == DType::BF16 || t == DType::F8E4M3 || t == DType::F8E5M2; }

template <class F>
nb::dlpack::dtype as_numpy_bits(DType t) {
  if (std::is_same_v<F, nb::numpy> && narrow(t))
    return {static_cast<uint8_t>(nb::dlpack::dtype_code::UInt), static_cast<uint8_t>(8 * solder::dtype_size(t)), 1};
  return to_dlpack(t);
}

nb::object package_attr(const char* name) { return nb::module_::import_("solder").attr(name); }

// A host result as numpy has it: typed through solder._narrow_view when narrow.
nb::object numpy_result(nb::object bits, DType t) {
  return narrow(t) ? package_attr("_narrow_view")(bits, std::string(solder::dtype_name(t))) : bits;
}

// A call's argument as a DLPack array; `dtype` is set for a numpy array of a narrow dtype
// (ml_dtypes or tagged bits), which arrives as its bits.
Array array_arg(nb::handle o, size_t index, std::optional<DType>& dtype) {
  nb::object bits = package_attr("_narrow_input")(o);
  nb::object arg = nb::borrow(o);
  if (!bits.is_none()) {
    dtype = dtype_arg(nb::cast<std::string>(bits[1]));
    arg = bits[0];
  }
  Array a;
  if (!nb::try_cast(arg, a))
    throw nb::type_error(("argument " + std::to_string(index) + ": expected a tensor (torch, numpy or another DLPack "
                          "array), got " + nb::cast<std::string>(nb::type_name(o.type())))
                             .c_str());
  return a;
}

struct Args {
  std::vector<Array> arrays;
  std::vector<std::optional<DType>> narrow;  // per argument: the dtype of narrow bits
};

Args array_args(nb::handle seq) {
  Args r;
  size_t i = 0;
  for (nb::handle o : seq) {
    r.narrow.emplace_back();
    r.arrays.push_back(array_arg(o, i++, r.narrow.back()));
  }
  return r;
}

// An output array of framework F (numpy for host memory, torch for GPU memory) that owns a
// heap copy of `t`, and so its storage.
template <class F, class T>
nb::object export_array(T t, void* data, int device_type, int device_id) {
  std::vector<size_t> shape(t.shape.begin(), t.shape.end());
  std::vector<int64_t> strides = t.strides;
  const nb::dlpack::dtype dt = as_numpy_bits<F>(t.dtype);
  auto* held = new T(std::move(t));
  nb::capsule owner(held, [](void* p) noexcept { delete static_cast<T*>(p); });
  return nb::cast(nb::ndarray<F>(data, shape.size(), shape.data(), owner, strides.data(), dt, device_type, device_id));
}

solder::HostTensor host_tensor_of(const Array& a, size_t index, std::optional<DType> narrow_dtype) {
  const DType t = narrow_dtype ? *narrow_dtype : from_dlpack(a.dtype(), index);
  return solder_py::host_tensor_from(a.data(), t, dims_of(a), strides_of(a));
}

bool on_gpu(const solder::Executor& ex, const std::vector<Array>& inputs) {
  std::vector<int32_t> types;
  for (const auto& a : inputs) types.push_back(a.device_type());
  return solder_py::check_devices(ex, types);
}

// GPU inputs as DeviceTensors viewing the caller's memory.
std::vector<solder::DeviceTensor> device_tensors_of(const std::vector<Array>& inputs) {
  std::vector<solder::DeviceTensor> dev;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Array& a = inputs[i];
    solder::DeviceTensor t;
    t.dtype = from_dlpack(a.dtype(), i);
    t.shape = dims_of(a);
    t.strides = strides_of(a);
    t.ptr = reinterpret_cast<uint64_t>(a.data());
    dev.push_back(std::move(t));
  }
  return dev;
}

// A captured run (Executor.capture) for Python: outputs are torch tensors on the captured run's
// output memory, each keeping the captured run alive.
struct PyCapturedRun {
  std::shared_ptr<solder::CapturedRun> run;
  int device = 0;
  // An output and the captured run whose memory it is.
  struct Output : solder::DeviceTensor {
    std::shared_ptr<solder::CapturedRun> run;
  };
  std::vector<nb::object> outputs() const {
    std::vector<nb::object> out;
    for (const solder::DeviceTensor& t : run->outputs())
      out.push_back(export_array<nb::pytorch>(Output{t, run}, reinterpret_cast<void*>(t.ptr), nb::device::cuda::value, device));
    return out;
  }
};

PyCapturedRun capture(solder::Executor& ex, const std::vector<Array>& inputs, uintptr_t stream) {
  if (!on_gpu(ex, inputs))
    throw nb::value_error(inputs.empty() ? "capture needs the fusion's inputs as GPU tensors"
                                         : "capture records CUDA graphs: its inputs must be GPU tensors, not host arrays");
  return {std::shared_ptr<solder::CapturedRun>(ex.capture(device_tensors_of(inputs), reinterpret_cast<CUstream>(stream))),
          inputs[0].device_id()};
}

std::vector<nb::object> run(solder::Executor& ex, const Args& args, uintptr_t stream) {
  const std::vector<Array>& inputs = args.arrays;
  std::vector<nb::object> out;
  if (on_gpu(ex, inputs)) {
    const int device = inputs[0].device_id();
    // With the GIL held: an Executor is not for two threads at once, and a launch takes µs.
    std::vector<solder::DeviceTensor> res = ex.run(device_tensors_of(inputs), reinterpret_cast<CUstream>(stream));
    for (auto& t : res) {
      void* p = reinterpret_cast<void*>(t.ptr);
      out.push_back(export_array<nb::pytorch>(std::move(t), p, nb::device::cuda::value, device));
    }
    return out;
  }
  std::vector<solder::HostTensor> host;
  for (size_t i = 0; i < inputs.size(); ++i) host.push_back(host_tensor_of(inputs[i], i, args.narrow[i]));
  std::vector<solder::HostTensor> res;
  {
    nb::gil_scoped_release release;
    res = solder::run_reference(ex.fusion(), host);
  }
  for (auto& t : res) {
    void* p = t.data();
    const DType dt = t.dtype;
    out.push_back(numpy_result(export_array<nb::numpy>(std::move(t), p, nb::device::cpu::value, 0), dt));
  }
  return out;
}

// torch's current stream on a device when torch is loaded (its raw call: no Stream object),
// else the default stream.
uintptr_t current_stream(int device) {
  nb::dict modules = nb::borrow<nb::dict>(PyImport_GetModuleDict());
  if (!modules.contains("torch")) return 0;
  return nb::cast<uintptr_t>(modules["torch"].attr("_C").attr("_cuda_getCurrentRawStream")(device));
}

bool from_torch(nb::handle o) {
  nb::object mod = nb::getattr(o.type(), "__module__", nb::none());
  return nb::isinstance<nb::str>(mod) && nb::cast<std::string>(mod).rfind("torch", 0) == 0;
}

// The call through DLPack capsules: numpy, and frameworks without the exchange table.
nb::list call_dlpack(PyExecutor& pe, nb::args args, nb::handle out, nb::handle stream) {
  const Args a = array_args(args);
  const std::vector<Array>& in = a.arrays;
  nb::list result;
  const bool gpu = on_gpu(pe.ex, in);
  if (!gpu && !out.is_none()) throw nb::value_error("out= takes GPU tensors or torch tensors");
  if (!gpu) {
    std::vector<nb::object> res = run(pe.ex, a, 0);
    bool torch = args.size() && from_torch(args[0]);
    nb::object to_torch = torch ? package_attr("_host_to_torch") : nb::object();
    for (auto& r : res) result.append(torch ? to_torch(r) : r);
    return result;
  }
  uintptr_t s = stream.is_none() ? current_stream(in[0].device_id()) : nb::cast<uintptr_t>(stream);
  if (!out.is_none()) {
    std::vector<Array> o;
    for (nb::handle t : out) o.push_back(nb::cast<Array>(t));
    std::vector<solder::DeviceTensor> dev = device_tensors_of(o);
    pe.ex.run(device_tensors_of(in), reinterpret_cast<CUstream>(s), &dev);
    return nb::list(out);
  }
  for (auto& r : run(pe.ex, a, s)) result.append(r);
  return result;
}

nb::list call(PyExecutor& pe, nb::args args, nb::kwargs kwargs) {
  nb::handle out = nb::none(), stream = nb::none();
  for (auto [k, v] : kwargs) {
    std::string key = nb::cast<std::string>(k);
    if (key == "out") out = v;
    else if (key == "stream") stream = v;
    else throw nb::type_error(("unexpected keyword argument '" + key + "' (takes out=, stream=)").c_str());
  }
  if (auto r = solder_py::call_exchange(pe, args, out, stream)) return *r;
  return call_dlpack(pe, args, out, stream);
}

// CUDA graph capture by the caller (torch.cuda.graph): while one is entered on a thread, the
// buffers Solder's runs address (intermediates, kernels' scratch) are kept in it, so the graph
// can replay on them; keep it as long as the graph.
struct PyRetention {
  std::vector<std::shared_ptr<void>> keep;
  std::unique_ptr<solder::CaptureRetention> scope;
};

// A Python int as the double a constant holds: exact, or an error (constants are doubles; an
// integer past 2^53 would be rounded silently).
double exact_int(nb::handle v) {
  int overflow = 0;
  const long long i = PyLong_AsLongLongAndOverflow(v.ptr(), &overflow);
  if (overflow || (i == -1 && PyErr_Occurred()) || static_cast<long long>(static_cast<double>(i)) != i ||
      static_cast<double>(i) == 0x1p63) {
    PyErr_Clear();
    throw nb::value_error(("the integer constant " + nb::cast<std::string>(nb::str(v)) +
                           " is not exactly representable (constants hold doubles: integers up to 2^53, or "
                           "multiples of a power of two below 2^63); pass it as an input tensor")
                              .c_str());
  }
  return static_cast<double>(i);
}

using BinaryFn = Tensor (*)(const Tensor&, const Tensor&);
using TensorScalarFn = Tensor (*)(const Tensor&, double);
using ScalarTensorFn = Tensor (*)(double, const Tensor&);

Tensor binary(BinaryFn fn, TensorScalarFn fs, ScalarTensorFn sf, const Operand& a, const Operand& b) {
  const bool ta = std::holds_alternative<Tensor>(a), tb = std::holds_alternative<Tensor>(b);
  if (ta && tb) return fn(std::get<Tensor>(a), std::get<Tensor>(b));
  if (!ta && !tb) throw nb::type_error("at least one operand must be a solder Tensor");
  const Tensor& t = ta ? std::get<Tensor>(a) : std::get<Tensor>(b);
  const Operand& s = ta ? b : a;
  if (std::holds_alternative<nb::int_>(s)) {
    const double v = exact_int(std::get<nb::int_>(s));
    return ta ? fs(t, v) : sf(v, t);
  }
  const double v = nb::cast<double>(std::get<nb::float_>(s));
  if (solder::is_floating(t.dtype())) return ta ? fs(t, v) : sf(v, t);
  Tensor c = solder::constant(t.fusion(), v, DType::F32);
  return ta ? fn(t, c) : fn(c, t);
}

// `s / t` as torch's Tensor.__rtruediv__ computes it: reciprocal(t) * s, two roundings (a
// correctly rounded division differs in the last bit for about 4 in 10 divisors: issue 29's
// fp8 scale = 448 / amax).
Tensor rtruediv(const Tensor& t, const Operand& s) {
  if (!solder::is_floating(t.dtype())) return binary(solder::div, solder::div, solder::div, s, t);
  return binary(solder::mul, solder::mul, solder::mul, solder::reciprocal(t), s);
}

}  // namespace

NB_MODULE(_solder, m) {
  m.doc() = "Solder: a fusion code generator for NVIDIA GPUs (see README.md)";
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const solder::Error& e) {
      // Decoded leniently: a message quoting a user's file may hold bytes that are not UTF-8.
      const std::string m = e.what();
      PyObject* text = PyUnicode_DecodeUTF8(m.data(), static_cast<Py_ssize_t>(m.size()), "backslashreplace");
      PyErr_SetObject(PyExc_ValueError, text);
      Py_XDECREF(text);
    }
  });

  nb::class_<Tensor>(m, "Tensor")
      .def_prop_ro("name", &Tensor::name)
      .def_prop_ro("dtype", [](const Tensor& t) { return std::string(solder::dtype_name(t.dtype())); })
      .def_prop_ro("shape", [](const Tensor& t) {
        std::vector<std::string> s;
        for (const auto& d : t.shape()) s.push_back(d.str());
        return s;
      })
      .def("__repr__", &Tensor::describe)
#define SOLDER_PY_BINARY(py, rpy, fn)                                                                              \
  .def(py, [](const Tensor& a, const Operand& b) { return binary(solder::fn, solder::fn, solder::fn, a, b); },     \
       nb::keep_alive<0, 1>())                                                                                     \
      .def(rpy, [](const Tensor& a, const Operand& b) { return binary(solder::fn, solder::fn, solder::fn, b, a); }, \
           nb::keep_alive<0, 1>())
      SOLDER_PY_BINARY("__add__", "__radd__", add) SOLDER_PY_BINARY("__sub__", "__rsub__", sub)
      SOLDER_PY_BINARY("__mul__", "__rmul__", mul) SOLDER_PY_BINARY("__pow__", "__rpow__", pow)
#undef SOLDER_PY_BINARY
      .def("__truediv__", [](const Tensor& a, const Operand& b) { return binary(solder::div, solder::div, solder::div, a, b); },
           nb::keep_alive<0, 1>())
      .def("__rtruediv__", &rtruediv, nb::keep_alive<0, 1>())
      .def("__neg__", [](const Tensor& a) { return solder::neg(a); }, nb::keep_alive<0, 1>());

  nb::class_<solder::Fusion>(m, "Fusion")
      .def(nb::init<std::string>(), "name"_a = "fusion")
      .def_static("parse", [](const std::string& text) { return solder::parse_fusion(text); }, "text"_a,
                  "A fusion from the text format (examples/*.fusion)")
      .def_static("load", &solder::load_fusion_file, "path"_a)
      .def("input", [](solder::Fusion& f, const std::string& name, const std::string& dtype,
                       const std::vector<DimArg>& shape) { return f.input(name, dtype_arg(dtype), shape_arg(shape)); },
           "name"_a, "dtype"_a, "shape"_a, nb::keep_alive<0, 1>())
      .def("output", [](solder::Fusion& f, const Tensor& t) { f.output(t); }, "tensor"_a)
      .def("constant", [](solder::Fusion& f, double v, const std::string& dtype) { return solder::constant(f, v, dtype_arg(dtype)); },
           "value"_a, "dtype"_a = "f32", nb::keep_alive<0, 1>())
      .def_prop_ro("name", &solder::Fusion::name)
      .def("__str__", &solder::print_fusion);

  // Builders: module functions over Tensors. A Tensor names a value of a Fusion it does not
  // own: every result keeps its operands alive, and an input keeps its Fusion alive.
  const auto ka = nb::keep_alive<0, 1>();
#define SOLDER_PY_UNARY(fn) m.def(#fn, [](const Tensor& x) { return solder::fn(x); }, "x"_a, ka);
  SOLDER_PY_UNARY(neg) SOLDER_PY_UNARY(abs) SOLDER_PY_UNARY(exp) SOLDER_PY_UNARY(log) SOLDER_PY_UNARY(sqrt)
  SOLDER_PY_UNARY(rsqrt) SOLDER_PY_UNARY(reciprocal) SOLDER_PY_UNARY(tanh) SOLDER_PY_UNARY(sigmoid) SOLDER_PY_UNARY(erf)
  SOLDER_PY_UNARY(sin) SOLDER_PY_UNARY(cos) SOLDER_PY_UNARY(relu) SOLDER_PY_UNARY(gelu) SOLDER_PY_UNARY(gelu_tanh)
  SOLDER_PY_UNARY(silu) SOLDER_PY_UNARY(logical_not) SOLDER_PY_UNARY(log1p) SOLDER_PY_UNARY(expm1)
  SOLDER_PY_UNARY(floor) SOLDER_PY_UNARY(ceil) SOLDER_PY_UNARY(trunc) SOLDER_PY_UNARY(round)
#undef SOLDER_PY_UNARY
#define SOLDER_PY_BINARY(fn)                                                                                          \
  m.def(#fn, [](const Operand& a, const Operand& b) { return binary(solder::fn, solder::fn, solder::fn, a, b); }, "a"_a, \
        "b"_a, ka, nb::keep_alive<0, 2>());
  SOLDER_PY_BINARY(add) SOLDER_PY_BINARY(sub) SOLDER_PY_BINARY(mul) SOLDER_PY_BINARY(div) SOLDER_PY_BINARY(pow)
  SOLDER_PY_BINARY(maximum) SOLDER_PY_BINARY(minimum) SOLDER_PY_BINARY(eq) SOLDER_PY_BINARY(ne) SOLDER_PY_BINARY(lt)
  SOLDER_PY_BINARY(le) SOLDER_PY_BINARY(gt) SOLDER_PY_BINARY(ge) SOLDER_PY_BINARY(logical_and)
  SOLDER_PY_BINARY(logical_or)
#undef SOLDER_PY_BINARY
  m.def("where", &solder::where, "cond"_a, "a"_a, "b"_a, ka);
  m.def("clamp", &solder::clamp, "x"_a, "lo"_a, "hi"_a, ka);
  m.def("cast", [](const Tensor& x, const std::string& dtype) { return solder::cast(x, dtype_arg(dtype)); }, "x"_a, "dtype"_a, ka);
#define SOLDER_PY_REDUCTION(fn) m.def(#fn, &solder::fn, "x"_a, "axes"_a = std::vector<int64_t>{}, "keepdim"_a = false, ka);
  SOLDER_PY_REDUCTION(sum) SOLDER_PY_REDUCTION(max) SOLDER_PY_REDUCTION(min) SOLDER_PY_REDUCTION(mean)
#undef SOLDER_PY_REDUCTION
  // (var, mean): unpacks like a tuple; the pair keeps x alive and each item the pair.
  nb::class_<solder::VarMean>(m, "VarMean")
      .def_ro("var", &solder::VarMean::var)
      .def_ro("mean", &solder::VarMean::mean)
      .def("__len__", [](const solder::VarMean&) { return 2; })
      .def("__getitem__", [](const solder::VarMean& vm, int i) {
        if (i < 0 || i > 1) throw nb::index_error();
        return i == 0 ? vm.var : vm.mean;
      }, ka);
  m.def("var_mean", &solder::var_mean, "x"_a, "axes"_a, "correction"_a = 1, "keepdim"_a = false, ka);
  m.def("reshape", [](const Tensor& x, const std::vector<DimArg>& s) { return solder::reshape(x, shape_arg(s)); }, "x"_a, "shape"_a, ka);
  m.def("expand", [](const Tensor& x, const std::vector<DimArg>& s) { return solder::expand(x, shape_arg(s)); }, "x"_a, "shape"_a, ka);
  m.def("permute", &solder::permute, "x"_a, "dims"_a, ka);
  m.def("transpose", &solder::transpose, "x"_a, "a"_a, "b"_a, ka);
  m.def("squeeze", &solder::squeeze, "x"_a, "axes"_a, ka);
  m.def("unsqueeze", &solder::unsqueeze, "x"_a, "axis"_a, ka);
  m.def("slice", &solder::slice, "x"_a, "axis"_a, "start"_a, "end"_a = solder::kSliceToEnd, "step"_a = 1, ka);
  m.def("cat", &solder::cat, "xs"_a, "axis"_a, ka);
  m.def("matmul", &solder::matmul, "a"_a, "b"_a, ka);
  m.def("linear", &solder::linear, "x"_a, "w"_a, "bias"_a = nb::none(), ka);
  m.def("layer_norm", &solder::layer_norm, "x"_a, "norm_axes"_a, "weight"_a = nb::none(), "bias"_a = nb::none(), "eps"_a = 1e-5, ka);
  m.def("rms_norm", &solder::rms_norm, "x"_a, "norm_axes"_a, "weight"_a = nb::none(), "eps"_a = 1e-6, ka);
  m.def("softmax", &solder::softmax, "x"_a, "axis"_a, ka);
  m.def("log_softmax", &solder::log_softmax, "x"_a, "axis"_a, ka);

  nb::class_<PyCapturedRun>(m, "CapturedRun",
                            "A run recorded as a CUDA graph on the inputs given to capture (write new values into "
                            "them between replays); outputs are fixed tensors that each replay rewrites.")
      .def("replay", [](const PyCapturedRun& c, uintptr_t stream) { c.run->replay(reinterpret_cast<CUstream>(stream)); },
           "stream"_a = 0)
      .def_prop_ro("outputs", &PyCapturedRun::outputs);

  nb::class_<PyExecutor>(m, "Executor")
      .def(nb::init<const solder::Fusion&, const std::string&, bool>(), "fusion"_a, "plan"_a = "",
           "contiguous_outputs"_a = false,
           "plan: pins kernel plans (ExecutorOptions::plan), e.g. 'threads_per_row=512,prefetch=0' or '1:unroll=1'. "
           "contiguous_outputs: new outputs contiguous, views included (by default each new output is laid out as "
           "eager lays it out: sigmoid of a transposed input is transposed, a permute of a result a permuted view)")
      .def("__call__", &call,
           "ex(*tensors, out=None, stream=None) -> list of outputs. GPU tensors run on the GPU (on `stream`, "
           "default: torch's current stream), host tensors on the CPU reference executor. torch tensors are read "
           "without DLPack capsules and outputs come from torch's allocator, or are written into out=.")
      .def("run", [](PyExecutor& pe, nb::sequence in, uintptr_t stream) { return run(pe.ex, array_args(in), stream); },
           "inputs"_a, "stream"_a = 0,
           "Runs on DLPack tensors: GPU tensors on the GPU (on `stream`, a CUDA stream handle), giving "
           "torch tensors; host tensors on the CPU reference executor, giving numpy arrays.")
      .def("capture", [](PyExecutor& pe, const std::vector<Array>& in, uintptr_t stream) { return capture(pe.ex, in, stream); },
           "inputs"_a, "stream"_a = 0,
           "Runs once on GPU tensors and records the run as a CUDA graph (see CapturedRun): replay() "
           "then relaunches every step with one graph launch, reading whatever the inputs hold.")
      .def("explain",
           [](PyExecutor& pe, const std::vector<std::vector<int64_t>>& shapes,
              const std::vector<std::vector<int64_t>>& strides) {
             if (shapes.size() != pe.ex.fusion().inputs().size()) return pe.ex.explain(shapes, strides);  // its error
             pe.output_shapes(shapes, strides);  // the outputs laid out as a call lays them out
             return pe.ex.explain(shapes, strides, pe.last_out_strides);
           },
           "input_shapes"_a, "input_strides"_a = std::vector<std::vector<int64_t>>{},
           "The steps a call on inputs of these shapes (and strides in elements; contiguous where not given) takes, "
           "its new outputs in eager's layout: scheduler, plan, rejected candidates, registers, spills, occupancy, "
           "views and copies. Needs no GPU.")
      .def("output_shapes",
           [](PyExecutor& pe, const std::vector<std::vector<int64_t>>& shapes,
              const std::vector<std::vector<int64_t>>& strides) { return pe.output_shapes(shapes, strides); },
           "input_shapes"_a, "input_strides"_a = std::vector<std::vector<int64_t>>{},
           "Output sizes for these input sizes")
      .def("output_strides",
           [](PyExecutor& pe, const std::vector<std::vector<int64_t>>& shapes,
              const std::vector<std::vector<int64_t>>& strides) {
             const auto& shape = pe.output_shapes(shapes, strides);
             std::vector<std::vector<int64_t>> st;
             for (size_t i = 0; i < shape.size(); ++i)
               st.push_back(pe.last_out_strides[i].empty() ? solder::TensorMeta::contiguous(solder::DType::F32, shape[i]).strides
                                                          : pe.last_out_strides[i]);
             return st;
           },
           "input_shapes"_a, "input_strides"_a = std::vector<std::vector<int64_t>>{},
           "Strides (elements) of the outputs a call makes for inputs of these shapes and strides: eager's layout")
      .def("launches", [](const PyExecutor& pe) {
        std::vector<std::string> names;
        for (const auto& r : pe.ex.last_launches()) names.push_back(r.name);
        return names;
      }, "Kernel names of the last run, in launch order")
      .def("launch_params", [](const PyExecutor& pe) {
        std::vector<std::string> params;
        for (const auto& r : pe.ex.last_launches()) params.push_back(r.params);
        return params;
      }, "Plans of the last run's steps, as `solder explain` prints them (empty for views, matmuls and copies)")
      .def("launch_categories", [](const PyExecutor& pe) {
        std::vector<std::string> cats;
        for (const auto& r : pe.ex.last_launches()) cats.push_back(r.category);
        return cats;
      }, "Categories of the last run's steps (pointwise, inner-reduction, matmul, copy, view, ...)")
      .def_prop_ro("kernels_compiled", [](const PyExecutor& pe) { return pe.ex.stats().kernels_compiled; })
      .def_prop_ro("signatures", [](const PyExecutor& pe) { return pe.ex.stats().signatures; },
                   "Distinct input signatures planned (the first call of each)")
      .def_prop_ro("runs", [](const PyExecutor& pe) { return pe.ex.stats().runs; });

  nb::class_<PyRetention>(m, "CaptureRetention",
                          "with CaptureRetention() as keep: inside a caller's CUDA graph capture, keeps the buffers "
                          "Solder's runs use alive as long as this object")
      .def(nb::init<>())
      .def("__enter__", [](PyRetention& r) -> PyRetention& {
        if (r.scope) throw nb::value_error("CaptureRetention entered twice");
        r.scope = std::make_unique<solder::CaptureRetention>(r.keep);
        return r;
      }, nb::rv_policy::reference)
      .def("__exit__", [](PyRetention& r, nb::args) { r.scope.reset(); })
      .def("__len__", [](const PyRetention& r) { return r.keep.size(); });
}
