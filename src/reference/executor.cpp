// run_reference: checks the inputs against the fusion's declarations, then evaluates the nodes
// in order on dense double buffers, skipping nodes no output depends on and freeing each
// buffer after its last use.
#include <algorithm>
#include <cstring>
#include <string>

#include "ir/limits.h"
#include "reference/eval.h"
#include "reference/parallel.h"
#include "solder/error.h"
#include "solder/reference.h"

namespace solder {

namespace {
using ref::Buf;
using ref::Doubles;

std::string tensor_shape(const std::vector<int64_t>& s) { return ref::sizes_str(s); }

// Count and dtypes here; shapes (ranks, symbols shared between inputs) through bind_shapes.
Bindings check_inputs(const Fusion& f, const std::vector<HostTensor>& inputs) {
  const auto& ids = f.inputs();
  if (inputs.size() != ids.size()) {
    std::string names;
    for (size_t i = 0; i < ids.size(); ++i) names += (i ? ", " : "") + f.value(ids[i]).name;
    throw Error("fusion " + f.name() + " takes " + std::to_string(ids.size()) + " input(s) (" + names + "), got " +
                std::to_string(inputs.size()));
  }
  std::vector<std::vector<int64_t>> sizes;
  for (size_t i = 0; i < ids.size(); ++i) {
    const Value& v = f.value(ids[i]);
    const HostTensor& t = inputs[i];
    if (t.dtype != v.dtype)
      throw Error("input " + v.name + " is declared " + std::string(dtype_name(v.dtype)) + shape_str(v.shape) +
                  " but got dtype " + std::string(dtype_name(t.dtype)));
    if (t.strides.size() != t.shape.size() || (t.numel() > 0 && !t.storage))
      throw Error("input " + v.name + ": malformed tensor (" + std::to_string(t.strides.size()) + " strides for shape " +
                  tensor_shape(t.shape) + (t.storage ? ")" : ", no storage)"));
    sizes.push_back(t.shape);
  }
  return bind_shapes(f, sizes);
}

// Integers load as exact int64 bits (buffer.h); everything else as doubles.
double load_value(DType t, const std::byte* p) {
  if (t == DType::I64) {
    int64_t v;
    std::memcpy(&v, p, sizeof v);
    return ref::int_bits(v);
  }
  if (t == DType::I32) {
    int32_t v;
    std::memcpy(&v, p, sizeof v);
    return ref::int_bits(v);
  }
  return load_element(t, p);
}

Buf load(const HostTensor& t) {
  Buf b{t.shape, Doubles(static_cast<size_t>(t.numel())), t.dtype};
  const int sz = dtype_size(t.dtype);
  if (t.is_contiguous()) {  // fast path: no per-element index arithmetic
    ref::parallel_for(t.numel(), [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) b.data[i] = load_value(t.dtype, t.data() + i * sz);
    });
  } else {
    HostTensor dense = t.contiguous();
    for (int64_t i = 0; i < t.numel(); ++i) b.data[i] = load_value(t.dtype, dense.data() + i * sz);
  }
  return b;
}

void store_value(DType t, double v, std::byte* p) {
  if (t == DType::I64) {
    int64_t x = ref::bits_int(v);
    std::memcpy(p, &x, sizeof x);
  } else if (t == DType::I32) {
    auto x = static_cast<int32_t>(ref::bits_int(v));  // already wrapped to 32 bits
    std::memcpy(p, &x, sizeof x);
  } else {
    store_element(t, v, p);
  }
}

// The most the run will hold at once (doubles of live values, plus a broadcast copy per operand
// of the node being evaluated), refused up front rather than met as bad_alloc or swapping.
void check_memory(const Fusion& f, const Bindings& b, const std::vector<char>& needed, const std::vector<char>& run,
                  const std::vector<int>& last_use, const std::vector<char>& is_output) {
  auto doubles = [&](int v) {
    double n = 1;
    for (const auto& d : f.value(v).shape) n *= static_cast<double>(d.eval(b));
    return 8 * n;
  };
  double live = 0, peak = 0;
  for (int v : f.inputs())
    if (needed[v]) live += doubles(v);
  const auto& nodes = f.nodes();
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (!run[i]) continue;
    double out = 0;
    for (int o : nodes[i].out) out += doubles(o);
    peak = std::max(peak, live + out * (1 + static_cast<double>(nodes[i].in.size())));
    live += out;
    for (size_t k = 0; k < nodes[i].in.size(); ++k) {
      int v = nodes[i].in[k];
      bool first = std::find(nodes[i].in.begin(), nodes[i].in.begin() + k, v) == nodes[i].in.begin() + k;
      if (first && last_use[v] == static_cast<int>(i) && !is_output[v]) live -= doubles(v);  // add(x, x) frees x once
    }
  }
  const double limit = static_cast<double>(max_reference_bytes());
  if (peak > limit)
    throw Error("the reference run of " + f.name() + " needs about " + gigabytes(peak) + ", over the limit of " +
                gigabytes(limit) + "; set SOLDER_MAX_REFERENCE_GB to raise it");
}

std::vector<Buf> eval_node(const Fusion& f, const Node& n, const std::vector<const Buf*>& in, const Bindings& b) {
  std::vector<ref::OutSpec> out;
  for (int id : n.out) {
    auto shape = eval_shape(f.value(id).shape, b);
    for (auto s : shape)
      if (s < 0)
        throw Error(std::string(op_name(n.op)) + ": result " + f.value(id).name + " has negative size " +
                    tensor_shape(shape) + " for these inputs");
    out.push_back({shape, f.value(id).dtype});
  }
  switch (op_info(n.op).kind) {
    case OpKind::Reduction: return ref::eval_reduce(n, *in.at(0), out);
    case OpKind::View:
    case OpKind::Cat: return {ref::eval_view(n, in, out[0])};
    case OpKind::Matmul: return {ref::eval_matmul(n, in, out[0])};
    default: return {ref::eval_elementwise(n, in, out[0])};
  }
}
}  // namespace

std::vector<HostTensor> run_reference(const Fusion& f, const std::vector<HostTensor>& inputs) {
  Bindings bindings = check_inputs(f, inputs);
  const auto& nodes = f.nodes();
  const size_t nv = f.values().size();

  // Liveness: which nodes feed an output, and the last node reading each value.
  std::vector<char> needed(nv, 0);
  for (int o : f.outputs()) needed.at(o) = 1;
  std::vector<char> run(nodes.size(), 0);
  std::vector<int> last_use(nv, -1);
  for (size_t i = nodes.size(); i-- > 0;) {
    for (int o : nodes[i].out) run[i] = run[i] || needed[o];
    if (!run[i]) continue;
    for (int v : nodes[i].in) {
      needed[v] = 1;
      if (last_use[v] < 0) last_use[v] = static_cast<int>(i);
    }
  }
  std::vector<char> is_output(nv, 0);
  for (int o : f.outputs()) is_output[o] = 1;
  check_memory(f, bindings, needed, run, last_use, is_output);

  std::vector<Buf> vals(nv);
  for (size_t i = 0; i < f.inputs().size(); ++i)
    if (needed[f.inputs()[i]]) vals[f.inputs()[i]] = load(inputs[i]);

  for (size_t i = 0; i < nodes.size(); ++i) {
    if (!run[i]) continue;
    const Node& n = nodes[i];
    std::vector<const Buf*> in;
    for (int v : n.in) in.push_back(&vals[v]);
    auto outs = eval_node(f, bounds_at(n, bindings), in, bindings);  // symbolic pad/window bounds evaluated
    for (size_t k = 0; k < outs.size(); ++k) {
      vals[n.out[k]] = std::move(outs[k]);
      vals[n.out[k]].dtype = f.value(n.out[k]).dtype;
    }
    for (int v : n.in)
      if (last_use[v] == static_cast<int>(i) && !is_output[v]) vals[v] = Buf{};
  }

  std::vector<HostTensor> result;
  for (int o : f.outputs()) {
    HostTensor t = HostTensor::empty(f.value(o).dtype, vals[o].shape);
    const int sz = dtype_size(t.dtype);
    ref::parallel_for(t.numel(), [&](int64_t begin, int64_t end) {
      for (int64_t k = begin; k < end; ++k) store_value(t.dtype, vals[o].data[k], t.data() + k * sz);
    });
    result.push_back(std::move(t));
  }
  return result;
}

}  // namespace solder
