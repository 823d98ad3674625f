#include "passes/cat_pieces.h"

#include <functional>
#include <map>
#include <optional>

#include "passes/rebuild.h"

namespace solder {

namespace {

constexpr size_t kMaxPieces = 8;
constexpr int kMaxConeNodes = 32;  // element nodes cloned for all pieces together

// An input, a constant, a matmul's result (the library writes it to memory), or views of one:
// what a kernel reads as it is.
bool memory_rooted(const Fusion& f, int v) {
  for (;;) {
    const int p = f.value(v).producer;
    if (p < 0) return true;
    const Node& n = f.nodes()[p];
    if (n.op == Op::Constant || op_info(n.op).kind == OpKind::Matmul) return true;
    if (op_info(n.op).kind != OpKind::View || n.op == Op::Pad) return false;
    v = n.in[0];
  }
}

// The cat's replacement in rb.dst, or nothing where the cat stays.
std::optional<int> rewrite(Rebuilder& rb, const Fusion& f, const Node& cat) {
  const Value& out = f.value(cat.out[0]);
  const int rank = out.rank(), axis = static_cast<int>(cat.attrs.axis);
  if (cat.in.size() < 2 || cat.in.size() > kMaxPieces) return std::nullopt;
  const auto total = out.shape[axis].const_value();
  if (!total) return std::nullopt;
  // Each piece's cone of element math and its leaves, all read from memory.
  int cone_nodes = 0;
  std::vector<int64_t> lengths;
  for (int p : cat.in) {
    const auto len = f.value(p).shape[axis].const_value();
    if (!len) return std::nullopt;
    lengths.push_back(*len);
    std::function<bool(int)> walk = [&](int v) {
      const int pr = f.value(v).producer;
      if (pr >= 0 && is_element_op(f.nodes()[pr].op)) {
        if (++cone_nodes > kMaxConeNodes) return false;
        for (int x : f.nodes()[pr].in)
          if (!walk(x)) return false;
        return true;
      }
      return memory_rooted(f, v);
    };
    if (!walk(p)) return std::nullopt;
  }
  // The pieces over the cat's shape: leaves padded into place, the cones cloned on them.
  std::vector<int> pieces;
  int64_t offset = 0;
  for (size_t k = 0; k < cat.in.size(); ++k) {
    std::map<int, int> made;  // source id -> new id, this piece
    std::function<int(int)> clone = [&](int v) -> int {
      if (auto it = made.find(v); it != made.end()) return it->second;
      const int pr = f.value(v).producer;
      int id;
      if (pr >= 0 && is_element_op(f.nodes()[pr].op)) {
        const Node& n = f.nodes()[pr];
        std::vector<int> in;
        for (int x : n.in) in.push_back(clone(x));
        id = rb.dst.add(n.op, in, n.attrs)[0];
      } else {
        id = rb.mapped(v);
        const Value& leaf = f.value(v);
        const int at = axis - (rank - leaf.rank());
        if (at >= 0 && !leaf.shape[at].is_one()) {  // broadcast along the axis: the same everywhere
          Attrs a;
          a.axis = at;
          a.start = offset;
          a.end = *total - offset - lengths[k];
          id = rb.dst.add(Op::Pad, std::vector<int>{id}, a)[0];
        }
      }
      return made[v] = id;
    };
    pieces.push_back(clone(cat.in[k]));
    offset += lengths[k];
  }
  int result = pieces.back();
  offset = *total - lengths.back();
  for (size_t k = pieces.size() - 1; k-- > 0;) {
    offset -= lengths[k];
    Attrs a;
    a.shape = out.shape;
    a.axis = axis;
    a.start = offset;
    a.end = offset + lengths[k];
    const int window = rb.dst.add(Op::Window, std::vector<int>{}, a)[0];
    result = rb.dst.add(Op::Where, std::vector<int>{window, pieces[k], result}, Attrs{})[0];
  }
  return result;
}

}  // namespace

Fusion cat_pieces_in_kernels(const Fusion& f) {
  Rebuilder rb(f);
  for (const Node& n : f.nodes()) {
    if (n.op == Op::Cat)
      if (const auto v = rewrite(rb, f, n)) {
        rb.remap[n.out[0]] = *v;
        continue;
      }
    const auto outs = rb.emit(n);
    for (size_t k = 0; k < outs.size(); ++k) rb.remap[n.out[k]] = outs[k];
  }
  return rb.finish();
}

}  // namespace solder
