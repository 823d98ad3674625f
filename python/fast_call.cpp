// The Executor's Python call through the DLPack exchange table (see fast_call.h): no capsule,
// no Python call per tensor; a call on the sizes of the last costs what the Executor's C++
// run costs plus reading the arguments and making the outputs.
#include "fast_call.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <string>

#include "dlpack_exchange.h"
#include "exec/view_meta.h"
#include "solder/error.h"
#include "solder/fusion.h"
#include "solder/reference.h"

namespace solder_py {

using solder::DType;

namespace {

// The exchange table of a Python type, or null; looked up once per type. The type is kept
// alive, so that its address stays its own.
const SolderDLPackExchangeAPI* exchange_api(PyTypeObject* type) {
  struct Entry {
    PyTypeObject* type;
    const SolderDLPackExchangeAPI* api;
  };
  static std::vector<Entry> seen;
  for (const Entry& e : seen)
    if (e.type == type) return e.api;
  const SolderDLPackExchangeAPI* api = nullptr;
  PyObject* cap = PyObject_GetAttrString(reinterpret_cast<PyObject*>(type), "__dlpack_c_exchange_api__");
  if (cap && PyCapsule_IsValid(cap, "dlpack_exchange_api")) {
    auto* a = static_cast<const SolderDLPackExchangeAPI*>(PyCapsule_GetPointer(cap, "dlpack_exchange_api"));
    // 1.2 added the table; the fields used here are all in it.
    if (a && a->header.version.major == 1 && a->header.version.minor >= 2 && a->dltensor_from_py_object_no_sync &&
        a->managed_tensor_allocator && a->managed_tensor_to_py_object_no_sync && a->current_work_stream)
      api = a;
  }
  Py_XDECREF(cap);
  PyErr_Clear();
  Py_INCREF(type);
  seen.push_back({type, api});
  return api;
}

struct Device {
  int32_t type = 0, id = 0;
};

// A DLTensor as a DeviceTensor viewing its memory (strides null: compact row-major).
void view_of(const SolderDLTensor& dl, size_t index, solder::DeviceTensor& t) {
  t.dtype = dtype_of_dlpack(dl.dtype.code, dl.dtype.bits, dl.dtype.lanes, index);
  t.shape.assign(dl.shape, dl.shape + dl.ndim);
  if (dl.strides) {
    t.strides.assign(dl.strides, dl.strides + dl.ndim);
  } else {
    t.strides.assign(dl.ndim, 1);
    for (int d = dl.ndim - 2; d >= 0; --d) t.strides[d] = t.strides[d + 1] * dl.shape[d + 1];
  }
  t.ptr = reinterpret_cast<uint64_t>(dl.data) + dl.byte_offset;
}

Device read_arg(const SolderDLPackExchangeAPI* api, PyObject* o, size_t index, solder::DeviceTensor& t) {
  SolderDLTensor dl;
  if (api->dltensor_from_py_object_no_sync(o, &dl) != 0) throw nb::python_error();
  view_of(dl, index, t);
  return {dl.device.device_type, dl.device.device_id};
}

void set_error(void* ctx, const char* kind, const char* message) {
  *static_cast<std::string*>(ctx) = std::string(kind) + ": " + message;
}

// New contiguous tensors from the framework's allocator; each one freed unless released.
struct Made {
  const SolderDLPackExchangeAPI* api;
  std::vector<SolderDLManagedTensorVersioned*> tensors;
  ~Made() {
    for (auto* m : tensors)
      if (m && m->deleter) m->deleter(m);
  }
  // A tensor of `shape` at `strides` (a permutation of a dense layout) over a new dense buffer
  // of `dense` (its dims by falling stride): the framework's tensor wrapped with our own shape
  // and strides, its deleter freeing both.
  SolderDLManagedTensorVersioned* make_strided(DType dtype, const std::vector<int64_t>& shape,
                                               const std::vector<int64_t>& strides, const std::vector<int64_t>& dense,
                                               int32_t device_type, int32_t device_id) {
    SolderDLManagedTensorVersioned* inner = make(dtype, dense, device_type, device_id);
    auto* w = new Strided{{}, inner, shape, strides};
    w->self = *inner;
    w->self.manager_ctx = w;
    w->self.deleter = [](SolderDLManagedTensorVersioned* m) {
      auto* s = static_cast<Strided*>(m->manager_ctx);
      if (s->inner->deleter) s->inner->deleter(s->inner);
      delete s;
    };
    w->self.dl_tensor.shape = w->shape.data();
    w->self.dl_tensor.strides = w->strides.data();
    tensors.back() = &w->self;
    return &w->self;
  }
  struct Strided {
    SolderDLManagedTensorVersioned self;
    SolderDLManagedTensorVersioned* inner;
    std::vector<int64_t> shape, strides;
  };
  SolderDLManagedTensorVersioned* make(DType dtype, const std::vector<int64_t>& shape, int32_t device_type,
                                       int32_t device_id) {
    SolderDLTensor proto{};
    proto.device = {device_type, device_id};
    proto.ndim = static_cast<int32_t>(shape.size());
    dlpack_of_dtype(dtype, proto.dtype.code, proto.dtype.bits);
    proto.dtype.lanes = 1;
    proto.shape = const_cast<int64_t*>(shape.data());
    SolderDLManagedTensorVersioned* m = nullptr;
    std::string err;
    if (api->managed_tensor_allocator(&proto, &m, &err, set_error) != 0 || !m)
      throw nb::value_error(("allocating an output: " + err).c_str());
    tensors.push_back(m);
    return m;
  }
  nb::list release() {
    nb::list l;
    for (auto*& m : tensors) {
      void* py = nullptr;
      SolderDLManagedTensorVersioned* owned = m;
      m = nullptr;  // the framework owns it now, whatever happens
      if (api->managed_tensor_to_py_object_no_sync(owned, &py) != 0) throw nb::python_error();
      l.append(nb::steal(static_cast<PyObject*>(py)));
    }
    return l;
  }
};

solder::DeviceTensor device_tensor_of(const SolderDLManagedTensorVersioned* m) {
  solder::DeviceTensor t;
  view_of(m->dl_tensor, 0, t);
  return t;
}

// Writes a host result into a caller's strided host tensor.
void copy_into(const solder::HostTensor& src, const solder::DeviceTensor& dst) {
  const int64_t n = src.numel(), esize = solder::dtype_size(src.dtype);
  const solder::HostTensor dense = src.is_contiguous() ? src : src.contiguous();
  const std::byte* from = dense.data();
  auto* base = reinterpret_cast<std::byte*>(dst.ptr);
  std::vector<int64_t> idx(dst.shape.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t off = 0;
    for (size_t d = 0; d < idx.size(); ++d) off += idx[d] * dst.strides[d];
    std::memcpy(base + off * esize, from + i * esize, esize);
    for (int d = static_cast<int>(idx.size()) - 1; d >= 0 && ++idx[d] == dst.shape[d]; --d) idx[d] = 0;
  }
}

// Host tensors (CPU torch): the reference executor, results in the framework's CPU tensors.
nb::list call_host(PyExecutor& pe, const SolderDLPackExchangeAPI* api, const std::vector<solder::DeviceTensor>& in,
                   const std::vector<solder::DeviceTensor>* out, nb::handle out_obj) {
  std::vector<solder::HostTensor> host;
  for (const auto& t : in) host.push_back(host_tensor_from(reinterpret_cast<const void*>(t.ptr), t.dtype, t.shape, t.strides));
  std::vector<solder::HostTensor> res;
  {
    nb::gil_scoped_release release;
    res = solder::run_reference(pe.ex.fusion(), host);
  }
  if (out) {
    for (size_t i = 0; i < res.size(); ++i) {
      if ((*out)[i].shape != res[i].shape || (*out)[i].dtype != res[i].dtype)
        throw nb::value_error(("out[" + std::to_string(i) + "] has the wrong shape or dtype").c_str());
      copy_into(res[i], (*out)[i]);
    }
    return nb::list(out_obj);
  }
  // The outputs laid out as on the GPU (PyExecutor::output_shapes: eager's layout).
  std::vector<std::vector<int64_t>> sizes, strides;
  for (const auto& t : in) {
    sizes.push_back(t.shape);
    strides.push_back(t.strides);
  }
  pe.output_shapes(sizes, strides);
  Made made{api, {}};
  for (size_t i = 0; i < res.size(); ++i) {
    const solder::HostTensor& r = res[i];
    SolderDLManagedTensorVersioned* m =
        pe.last_out_strides[i].empty()
            ? made.make(r.dtype, r.shape, kSolderDLCPU, 0)
            : made.make_strided(r.dtype, r.shape, pe.last_out_strides[i], pe.last_out_dense[i], kSolderDLCPU, 0);
    copy_into(r, device_tensor_of(m));
  }
  return made.release();
}

}  // namespace

const std::vector<std::vector<int64_t>>& PyExecutor::output_shapes(const std::vector<std::vector<int64_t>>& sizes,
                                                                    const std::vector<std::vector<int64_t>>& strides) {
  thread_local std::vector<int64_t> key;
  key.clear();
  for (size_t i = 0; i < sizes.size(); ++i) {
    key.push_back(static_cast<int64_t>(sizes[i].size()));
    key.insert(key.end(), sizes[i].begin(), sizes[i].end());
    if (i < strides.size()) key.insert(key.end(), strides[i].begin(), strides[i].end());
  }
  if (key == last_inputs && !last_out_shapes.empty()) return last_out_shapes;
  const solder::Fusion& f = ex.fusion();
  solder::Bindings b = solder::bind_shapes(f, sizes);
  last_out_shapes.clear();
  last_out_strides.clear();
  last_out_dense.clear();
  for (const solder::TensorMeta& m : solder::natural_output_metas(f, b, strides)) {
    last_out_shapes.push_back(m.shape);
    const bool dense = contiguous_outputs || m.strides == solder::TensorMeta::contiguous(m.dtype, m.shape).strides;
    last_out_strides.push_back(dense ? std::vector<int64_t>{} : m.strides);
    std::vector<int64_t> dense_shape;
    if (!dense) {
      std::vector<int> order(m.shape.size());
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return m.strides[x] > m.strides[y]; });
      for (int d : order) dense_shape.push_back(m.shape[d]);
    }
    last_out_dense.push_back(std::move(dense_shape));
  }
  last_inputs = key;
  return last_out_shapes;
}

bool check_devices(const solder::Executor& ex, const std::vector<int32_t>& device_types) {
  const auto& f = ex.fusion();
  if (device_types.size() != f.inputs().size())
    throw nb::value_error(("fusion '" + f.name() + "' takes " + std::to_string(f.inputs().size()) + " inputs, got " +
                           std::to_string(device_types.size()))
                              .c_str());
  bool any_cuda = false, any_host = false;
  for (int32_t t : device_types) (t == kSolderDLCUDA ? any_cuda : any_host) = true;
  if (any_cuda && any_host) throw nb::value_error("inputs are on different devices: all on one GPU, or all in host memory");
  return any_cuda;
}

std::optional<nb::list> call_exchange(PyExecutor& pe, nb::args args, nb::handle out, nb::handle stream) {
  const size_t n = args.size();
  if (n == 0) return std::nullopt;
  const SolderDLPackExchangeAPI* api = exchange_api(Py_TYPE(args[0].ptr()));
  if (!api) return std::nullopt;
  // Reused across calls: the vectors keep their capacity.
  thread_local std::vector<solder::DeviceTensor> in, outs;
  thread_local std::vector<int32_t> device_types;
  in.resize(n);
  device_types.resize(n);
  Device dev;
  for (size_t i = 0; i < n; ++i) {
    PyObject* o = args[i].ptr();
    if (exchange_api(Py_TYPE(o)) != api) return std::nullopt;
    Device d = read_arg(api, o, i, in[i]);
    if (i == 0) dev = d;
    else if (d.type == dev.type && d.id != dev.id) throw nb::value_error("inputs are on different GPUs");
    device_types[i] = d.type;
  }
  const bool gpu = check_devices(pe.ex, device_types);
  const solder::Fusion& f = pe.ex.fusion();

  outs.clear();
  if (!out.is_none()) {
    const size_t nout = nb::len(out);
    if (nout != f.outputs().size())
      throw nb::value_error(("fusion '" + f.name() + "' has " + std::to_string(f.outputs().size()) + " outputs, got " +
                             std::to_string(nout) + " in out=")
                                .c_str());
    outs.resize(nout);
    for (size_t i = 0; i < nout; ++i) {
      nb::object o = out[i];
      if (exchange_api(Py_TYPE(o.ptr())) != api) throw nb::type_error("out= takes tensors of the inputs' framework");
      Device d = read_arg(api, o.ptr(), i, outs[i]);
      if (d.type != dev.type || d.id != dev.id) throw nb::value_error("out= tensors must be on the inputs' device");
    }
  }
  if (!gpu) return call_host(pe, api, in, out.is_none() ? nullptr : &outs, out);

  CUstream s;
  if (stream.is_none()) {
    void* sp = nullptr;
    if (api->current_work_stream(kSolderDLCUDA, dev.id, &sp) != 0) throw nb::python_error();
    s = static_cast<CUstream>(sp);
  } else {
    s = reinterpret_cast<CUstream>(nb::cast<uintptr_t>(stream));
  }
  if (!out.is_none()) {
    pe.ex.run(in, s, &outs);
    return nb::list(out);
  }
  thread_local std::vector<std::vector<int64_t>> sizes, strides;
  sizes.resize(n);
  strides.resize(n);
  for (size_t i = 0; i < n; ++i) {
    sizes[i] = in[i].shape;
    strides[i] = in[i].strides;
  }
  const auto& shapes = pe.output_shapes(sizes, strides);
  Made made{api, {}};
  for (size_t i = 0; i < shapes.size(); ++i) {
    const DType t = f.value(f.outputs()[i]).dtype;
    outs.push_back(device_tensor_of(pe.last_out_strides[i].empty()
                                        ? made.make(t, shapes[i], kSolderDLCUDA, dev.id)
                                        : made.make_strided(t, shapes[i], pe.last_out_strides[i], pe.last_out_dense[i],
                                                            kSolderDLCUDA, dev.id)));
  }
  pe.ex.run(in, s, &outs);
  return made.release();
}

DType dtype_of_dlpack(uint8_t code, uint8_t bits, uint16_t lanes, size_t index) {
  for (DType t : {DType::F64, DType::F32, DType::F16, DType::BF16, DType::F8E4M3, DType::F8E5M2, DType::I64, DType::I32,
                  DType::Bool}) {
    uint8_t c, b;
    dlpack_of_dtype(t, c, b);
    if (c == code && b == bits && lanes == 1) return t;
  }
  throw nb::type_error(("input " + std::to_string(index) + ": unsupported DLPack dtype (code " + std::to_string(code) +
                        ", " + std::to_string(bits) + " bits)")
                           .c_str());
}

// DLPack codes: int 0, uint 1, float 2, bfloat 4, bool 6, float8_e4m3fn 10, float8_e5m2 12.
void dlpack_of_dtype(DType t, uint8_t& code, uint8_t& bits) {
  switch (t) {
    case DType::F64: code = 2, bits = 64; return;
    case DType::F32: code = 2, bits = 32; return;
    case DType::F16: code = 2, bits = 16; return;
    case DType::BF16: code = 4, bits = 16; return;
    case DType::F8E4M3: code = 10, bits = 8; return;
    case DType::F8E5M2: code = 12, bits = 8; return;
    case DType::I64: code = 0, bits = 64; return;
    case DType::I32: code = 0, bits = 32; return;
    case DType::Bool: code = 6, bits = 8; return;
  }
  throw solder::Error("python: no DLPack dtype for " + std::string(solder::dtype_name(t)));
}

solder::HostTensor host_tensor_from(const void* data, DType dtype, std::vector<int64_t> shape,
                                    std::vector<int64_t> strides) {
  solder::HostTensor h;
  h.dtype = dtype;
  h.shape = std::move(shape);
  h.strides = std::move(strides);
  int64_t lo = 0, hi = 0;  // element offsets of the lowest and highest addressed elements
  for (size_t d = 0; d < h.shape.size(); ++d) {
    if (h.shape[d] == 0) return solder::HostTensor::empty(h.dtype, h.shape);
    (h.strides[d] < 0 ? lo : hi) += (h.shape[d] - 1) * h.strides[d];
  }
  const int64_t esize = solder::dtype_size(h.dtype);
  const auto* first = static_cast<const std::byte*>(data) + lo * esize;
  h.storage = std::make_shared<std::vector<std::byte>>(first, first + (hi - lo + 1) * esize);
  h.offset = -lo;
  return h.contiguous();
}

}  // namespace solder_py
