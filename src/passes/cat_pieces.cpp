#include "passes/cat_pieces.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>

#include "passes/rebuild.h"
#include "passes/view_roots.h"

namespace solder {

namespace {

constexpr size_t kMaxPieces = 8;
constexpr int kMaxConeNodes = 32;  // element nodes cloned for all pieces together

// A permute on v's chain of views whose innermost dim is not its source's (a transposed read),
// or -1. The flat template, the one that masks pads, would read such a leaf element by element.
int transposed_view(const Fusion& f, int v) {
  for (;;) {
    const int p = f.value(v).producer;
    if (p < 0) return -1;
    const Node& n = f.nodes()[p];
    if (op_info(n.op).kind != OpKind::View) return -1;
    if (n.op == Op::Permute && !n.attrs.axes.empty() &&
        n.attrs.axes.back() != static_cast<int64_t>(n.attrs.axes.size()) - 1)
      return v;
    v = n.in[0];
  }
}

// The value a chain of pads pads (v where no pad makes it).
int unpadded(const Fusion& f, int v) {
  while (f.value(v).producer >= 0 && f.nodes()[f.value(v).producer].op == Op::Pad) v = f.nodes()[f.value(v).producer].in[0];
  return v;
}

// Value id (of rb.dst) padded along `axis` by `before` and `after`: a pad of a pad along the
// same axis is one pad (a kernel masks each pad's dim once: pad_chain), of another axis two.
int pad_along(Rebuilder& rb, int id, int64_t axis, const Dim& before, const Dim& after) {
  Attrs a;
  a.axis = axis;
  a.bound_start = before;
  a.bound_end = after;
  const int p = rb.dst.value(id).producer;
  if (p >= 0 && rb.dst.nodes()[p].op == Op::Pad && rb.dst.nodes()[p].attrs.axis == axis) {
    const Node& inner = rb.dst.nodes()[p];
    a.bound_start = before + inner.attrs.bound_start;
    a.bound_end = inner.attrs.bound_end + after;
    id = inner.in[0];
  }
  return rb.dst.add(Op::Pad, std::vector<int>{id}, a)[0];
}

// Each piece's cone of element math, all read from memory (or pads of it, windows: a cat read
// as pieces inside this one, F.pad of two dims); "" or why the cat stays a cat.
std::string cone_problem(const Fusion& f, const Node& cat) {
  if (cat.in.size() < 2) return "one piece";
  if (cat.in.size() > kMaxPieces)
    return std::to_string(cat.in.size()) + " pieces (at most " + std::to_string(kMaxPieces) + " are read in one kernel)";
  int cone_nodes = 0;
  std::string why;
  for (size_t k = 0; k < cat.in.size() && why.empty(); ++k) {
    std::function<bool(int)> walk = [&](int v) {
      const int pr = f.value(v).producer;
      if (pr >= 0 && is_element_op(f.nodes()[pr].op)) {
        if (++cone_nodes > kMaxConeNodes) {
          why = "the pieces' element math has more than " + std::to_string(kMaxConeNodes) +
                " nodes (each element computes every piece)";
          return false;
        }
        for (int x : f.nodes()[pr].in)
          if (!walk(x)) return false;
        return true;
      }
      if (pr >= 0 && f.nodes()[pr].op == Op::Window) return true;  // an inner cat's, as pieces: computed
      if (memory_rooted(f, unpadded(f, v))) {  // or pads of it (likewise)
        v = unpadded(f, v);
        if (const int t = transposed_view(f, v); t >= 0) {
          why = "piece " + std::to_string(k) + " reads " + f.value(v).name +
                (t == v ? std::string() : " through " + f.value(t).name) +
                ", a permute that moves the innermost dim (the flat template would read it element by element; "
                "the transpose template writes the pieces in place)";
          return false;
        }
        return true;
      }
      why = "piece " + std::to_string(k) + " reads " + f.value(v).name + ", made by " + op_name(f.nodes()[pr].op) +
            " (a kernel's result: it is written, then copied in place)";
      return false;
    };
    walk(cat.in[k]);
  }
  return why;
}

// Where each piece lies along the axis, as size expressions: offsets (the pieces before it),
// lengths, the pieces after it, and the total, or why the pads of a leaf would not span the
// cat's own dim as an expression (a pad's size is before + its leaf's + after; element math
// needs operands of equal dims, or the builder reshapes one).
struct PieceBounds {
  std::vector<Dim> offset, length, after;
  Dim total;
};
std::string piece_bounds(const Fusion& f, const Node& cat, PieceBounds& pb) {
  const int axis = static_cast<int>(cat.attrs.axis);
  pb.total = f.value(cat.out[0]).shape[axis];
  Dim at(0);
  for (int p : cat.in) {
    const Dim len = f.value(p).shape[axis];
    pb.offset.push_back(at);
    pb.length.push_back(len);
    at = at + len;
  }
  if (!(at == pb.total)) return "its pieces' sizes sum to " + at.str() + ", not " + pb.total.str() + " as an expression";
  pb.after.assign(cat.in.size(), Dim(0));
  for (size_t k = cat.in.size() - 1; k-- > 0;) pb.after[k] = pb.length[k + 1] + pb.after[k + 1];
  const int rank = f.value(cat.out[0]).rank();
  for (size_t k = 0; k < cat.in.size(); ++k) {
    const Dim& after = pb.after[k];
    std::set<int> seen;
    std::string why;
    std::function<void(int)> leaves = [&](int v) {
      if (!seen.insert(v).second || !why.empty()) return;
      const int pr = f.value(v).producer;
      if (pr >= 0 && is_element_op(f.nodes()[pr].op)) {
        for (int x : f.nodes()[pr].in) leaves(x);
        return;
      }
      const Value& leaf = f.value(v);
      const int at = axis - (rank - leaf.rank());
      if (at < 0 || leaf.shape[at].is_one() || constant_root(f, v) >= 0) return;
      const Dim padded = pb.offset[k] + leaf.shape[at] + after;
      if (!(padded == pb.total))
        why = "piece " + std::to_string(k) + "'s pad of " + leaf.name + " (" + leaf.shape[at].str() + " + " +
              pb.offset[k].str() + " before + " + after.str() + " after) is not " + pb.total.str() + " as an expression";
    };
    leaves(cat.in[k]);
    if (!why.empty()) return why;
  }
  return "";
}

// The cat's replacement in rb.dst, or nothing where the cat stays.
std::optional<int> rewrite(Rebuilder& rb, const Fusion& f, const Node& cat) {
  if (!cat_stays_why(f, cat).empty()) return std::nullopt;
  const Value& out = f.value(cat.out[0]);
  const int rank = out.rank(), axis = static_cast<int>(cat.attrs.axis);
  PieceBounds pb;
  piece_bounds(f, cat, pb);
  // The pieces over the cat's shape: leaves padded into place, the cones cloned on them.
  std::vector<int> pieces;
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
      } else if (const int c = constant_root(f, v); c >= 0) {
        // A fill (F.pad's, as the torch frontend lowers a pad): the same at every index, so the
        // constant itself, a scalar that broadcasts against the window's shape (a view of a
        // constant would be a kernel of its own that writes it first).
        id = rb.mapped(c);
      } else {
        id = rb.mapped(v);
        const Value& leaf = f.value(v);
        const int at = axis - (rank - leaf.rank());
        const bool spans = at >= 0 && !leaf.shape[at].is_one();  // else broadcast along the axis: the same everywhere
        if (spans && pr >= 0 && f.nodes()[pr].op == Op::Window) {
          // An inner cat's window: over the cat's span; along its own axis where the piece lies.
          Attrs a = f.nodes()[pr].attrs;
          a.shape[at] = out.shape[axis];
          if (a.axis == at) {
            a.start = a.end = 0;  // the bounds below say them
            a.bound_start = pb.offset[k] + a.bound_start;
            a.bound_end = pb.offset[k] + a.bound_end;
          }
          id = rb.dst.add(Op::Window, std::vector<int>{}, a)[0];
        } else if (spans) {
          id = pad_along(rb, id, at, pb.offset[k], pb.after[k]);
        }
      }
      return made[v] = id;
    };
    pieces.push_back(clone(cat.in[k]));
  }
  int result = pieces.back();
  for (size_t k = pieces.size() - 1; k-- > 0;) {
    Attrs a;
    a.shape = out.shape;
    a.axis = axis;
    a.bound_start = pb.offset[k];
    a.bound_end = pb.offset[k] + pb.length[k];
    const int window = rb.dst.add(Op::Window, std::vector<int>{}, a)[0];
    result = rb.dst.add(Op::Where, std::vector<int>{window, pieces[k], result}, Attrs{})[0];
  }
  return result;
}

// A cat of symbolic sizes is read as pieces only where that saves memory traffic: something
// reads the cat (RoPE's products: the cat's round trip), or a piece would be copied (a value in
// memory as it is, or one read elsewhere or returned). A cat whose pieces are element math that
// only it reads is written in place by the pieces' kernel at no cost, and that kernel may be a
// transpose: the flat template, which masks pads, would read an input transposed in memory
// (the sweep's `T` layout, a run-time fact the graph does not show) element by element (seed 6
// #022, #039, #103, #119). Cats of constant sizes are read as pieces wherever they can be, as
// before. "" or why the cat stays.
std::string symbolic_cat_gain(const Fusion& f, const Node& cat) {
  const int axis = static_cast<int>(cat.attrs.axis);
  bool symbolic = !f.value(cat.out[0]).shape[axis].is_const();
  for (int p : cat.in) symbolic |= !f.value(p).shape[axis].is_const();
  if (!symbolic) return "";
  // Read by a node other than the cat; `outputs`: or returned.
  auto read_elsewhere = [&](int v, bool outputs) {
    if (outputs && std::find(f.outputs().begin(), f.outputs().end(), v) != f.outputs().end()) return true;
    for (const Node& n : f.nodes())
      if (&n != &cat && std::find(n.in.begin(), n.in.end(), v) != n.in.end()) return true;
    return false;
  };
  if (read_elsewhere(cat.out[0], false)) return "";  // the cat as an output is written in place
  for (int p : cat.in) {  // a piece returned or read elsewhere too is copied
    const int pr = f.value(p).producer;
    if (pr < 0 || !is_element_op(f.nodes()[pr].op) || read_elsewhere(p, true)) return "";
  }
  return "pieces of symbolic sizes that only the cat reads, each made by element math: their kernel writes them "
         "in place (no copy), and may be a transpose kernel, which a cat read as pieces would not take";
}

}  // namespace

std::string cat_stays_why(const Fusion& f, const Node& cat) {
  if (cat.op != Op::Cat) return "not a cat";
  if (std::string why = cone_problem(f, cat); !why.empty()) return why;
  PieceBounds pb;
  if (std::string why = piece_bounds(f, cat, pb); !why.empty()) return why;
  return symbolic_cat_gain(f, cat);
}

namespace {
// One round: the cats read as pieces whose pieces are not cats themselves; `rewrote` says
// whether any was.
Fusion pieces_round(const Fusion& f, bool& rewrote) {
  Rebuilder rb(f);
  for (const Node& n : f.nodes()) {
    if (n.op == Op::Pad) {
      rb.remap[n.out[0]] = pad_along(rb, rb.mapped(n.in[0]), n.attrs.axis, n.attrs.bound_start, n.attrs.bound_end);
      continue;
    }
    if (n.op == Op::Cat)
      if (const auto v = rewrite(rb, f, n)) {
        rb.remap[n.out[0]] = *v;
        rewrote = true;
        continue;
      }
    const auto outs = rb.emit(n);
    for (size_t k = 0; k < outs.size(); ++k) rb.remap[n.out[k]] = outs[k];
  }
  return rb.finish();
}
}  // namespace

Fusion cat_pieces_in_kernels(const Fusion& f) {
  // A cat whose piece is a cat (F.pad of two dims) is read as pieces once that one is: rounds
  // until none is, at most one a cat.
  bool rewrote = false;
  Fusion out = pieces_round(f, rewrote);
  while (rewrote) {
    rewrote = false;
    out = pieces_round(out, rewrote);
  }
  return out;
}

}  // namespace solder
