// run_reference: checks the inputs against the fusion's declarations, then evaluates the nodes
// in order on dense double buffers, skipping nodes no output depends on and freeing each
// buffer after its last use.
#include <string>

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

Buf load(const HostTensor& t) {
  Buf b{t.shape, Doubles(static_cast<size_t>(t.numel()))};
  if (t.is_contiguous()) {  // fast path: no per-element index arithmetic
    const int sz = dtype_size(t.dtype);
    ref::parallel_for(t.numel(), [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) b.data[i] = load_element(t.dtype, t.data() + i * sz);
    });
  } else {
    for (int64_t i = 0; i < t.numel(); ++i) b.data[i] = t.get(i);
  }
  return b;
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

  std::vector<Buf> vals(nv);
  for (size_t i = 0; i < f.inputs().size(); ++i)
    if (needed[f.inputs()[i]]) vals[f.inputs()[i]] = load(inputs[i]);

  for (size_t i = 0; i < nodes.size(); ++i) {
    if (!run[i]) continue;
    const Node& n = nodes[i];
    std::vector<const Buf*> in;
    for (int v : n.in) in.push_back(&vals[v]);
    auto outs = eval_node(f, n, in, bindings);
    for (size_t k = 0; k < outs.size(); ++k) vals[n.out[k]] = std::move(outs[k]);
    for (int v : n.in)
      if (last_use[v] == static_cast<int>(i) && !is_output[v]) vals[v] = Buf{};
  }

  std::vector<HostTensor> result;
  for (int o : f.outputs()) {
    HostTensor t = HostTensor::empty(f.value(o).dtype, vals[o].shape);
    const int sz = dtype_size(t.dtype);
    ref::parallel_for(t.numel(), [&](int64_t begin, int64_t end) {
      for (int64_t k = begin; k < end; ++k) store_element(t.dtype, vals[o].data[k], t.data() + k * sz);
    });
    result.push_back(std::move(t));
  }
  return result;
}

}  // namespace solder
