#include "segment/segment.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "ir/infer.h"
#include "passes/passes.h"
#include "passes/rebuild.h"
#include "segment/horizontal.h"
#include "solder/error.h"

namespace solder {

namespace {

bool is_view(Op op) { return op_info(op).kind == OpKind::View; }

// Values kernels compute inline where they read them, never a segment of their own: constants
// and windows (a cat's pieces, passes/cat_pieces.cpp).
bool inlined_source(Op op) { return op == Op::Constant || op == Op::Window; }

// A node that reads a window or a pad: only the flat template masks those, so such nodes stay
// in pointwise kernels and no reduction joins them.
bool reads_window(const Fusion& f, const Node& n) {
  return std::any_of(n.in.begin(), n.in.end(), [&](int x) { return pad_or_window(f, x) != nullptr; });
}

// True when `inner` broadcasts into `outer` without changing it.
bool fits_in(const Shape& inner, const Shape& outer) {
  try {
    return broadcast_shapes(inner, outer, "fits") == outer;
  } catch (const Error&) {
    return false;
  }
}

struct Builder {
  const Fusion& f;
  std::vector<Segment> segs;
  std::vector<int> seg_of;        // value id -> producing segment (-1: fusion input or constant)
  std::vector<char> is_const;     // value produced by a constant node (inlined into kernels)
  std::vector<char> depends_full; // value depends on a full reduction within its segment
  // A constant that a view, cat or matmul reads: those read memory, not inlined values, so the
  // constant gets a one-node kernel that writes it (listed before its first such reader). That
  // kernel takes no other node (sealed), and seg_of keeps the constant at -1: kernels still
  // inline it and never join that kernel for it.
  std::vector<int> const_seg;  // value id -> its materializing segment (-1: none)
  std::set<int> sealed;
  std::set<int> windowed;  // kernel segments with a node that reads a window or a pad

  explicit Builder(const Fusion& fu)
      : f(fu),
        seg_of(fu.values().size(), -1),
        is_const(fu.values().size(), 0),
        depends_full(fu.values().size(), 0),
        const_seg(fu.values().size(), -1) {}

  void materialize_constant(int v) {
    if (const_seg[v] >= 0) return;
    const Value& val = f.value(v);
    Segment s;
    s.kind = SegmentKind::Kernel;
    s.category = KernelCategory::Pointwise;
    s.domain = val.shape;
    s.nodes = {val.producer};
    segs.push_back(std::move(s));
    const_seg[v] = static_cast<int>(segs.size()) - 1;
    sealed.insert(const_seg[v]);
  }

  int open_kernel(KernelCategory c, Shape domain) {
    Segment s;
    s.kind = SegmentKind::Kernel;
    s.category = c;
    s.domain = std::move(domain);
    segs.push_back(std::move(s));
    return static_cast<int>(segs.size()) - 1;
  }

  // Can node `n` join kernel segment `si`? May widen a pointwise domain or change category.
  bool try_join(int si, const Node& n) {
    Segment& s = segs[si];
    if (s.kind != SegmentKind::Kernel || sealed.count(si)) return false;
    bool dep_full = false;
    for (int x : n.in)
      if (seg_of[x] == si && depends_full[x]) dep_full = true;
    const OpKind kind = op_info(n.op).kind;
    if (reads_window(f, n) && s.category != KernelCategory::Pointwise) return false;
    if (kind == OpKind::Reduction) {
      const Shape& in = f.value(n.in[0]).shape;
      bool all = static_cast<int>(n.attrs.axes.size()) == static_cast<int>(in.size());
      if (dep_full || windowed.count(si)) return false;
      if (s.category == KernelCategory::Pointwise) {
        if (!fits_in(s.domain, in)) return false;
        s.domain = in;
        s.category = all ? KernelCategory::Full : KernelCategory::Inner;
        s.reduce_axes = n.attrs.axes;
        return true;
      }
      if (!(in == s.domain)) return false;
      if (s.category == KernelCategory::Full) return all;
      return n.attrs.axes == s.reduce_axes;
    }
    for (int x : n.in) {
      // A reduction result without its kept dims would broadcast along the wrong axis here.
      const Value& xv = f.value(x);
      if (seg_of[x] == si && xv.producer >= 0 && op_info(f.nodes()[xv.producer].op).kind == OpKind::Reduction &&
          xv.rank() != static_cast<int>(s.domain.size()) && !(s.category == KernelCategory::Full))
        return false;
    }
    const Shape& out = f.value(n.out[0]).shape;
    if (dep_full) {
      // After a grid-wide reduction only scalar epilogue math may follow in the same kernel.
      for (const auto& d : out)
        if (!d.is_one()) return false;
      return true;
    }
    if (fits_in(out, s.domain)) return true;
    if (s.category == KernelCategory::Pointwise && fits_in(s.domain, out)) {
      s.domain = out;
      return true;
    }
    return false;
  }

  void add_to(int si, int node_index) {
    const Node& n = f.nodes()[node_index];
    segs[si].nodes.push_back(node_index);
    if (reads_window(f, n)) windowed.insert(si);
    bool dep = op_info(n.op).kind == OpKind::Reduction && segs[si].category == KernelCategory::Full;
    for (int x : n.in)
      if (seg_of[x] == si && depends_full[x]) dep = true;
    for (int o : n.out) {
      seg_of[o] = si;
      depends_full[o] = dep;
    }
  }

  void place(int node_index) {
    const Node& n = f.nodes()[node_index];
    const OpKind kind = op_info(n.op).kind;
    if (inlined_source(n.op)) {
      is_const[n.out[0]] = 1;
      return;
    }
    if (is_view(n.op) || kind == OpKind::Cat || kind == OpKind::Matmul) {
      // Before the segment is made: this step reads its constants from memory.
      for (int x : n.in)
        if (is_const[x]) materialize_constant(x);
      Segment s;
      s.kind = is_view(n.op) ? SegmentKind::View : kind == OpKind::Cat ? SegmentKind::Cat : SegmentKind::Matmul;
      segs.push_back(std::move(s));
      add_to(static_cast<int>(segs.size()) - 1, node_index);
      return;
    }
    // Join the latest kernel segment that produces an operand (dependencies only point to
    // earlier segments, so joining the latest keeps the order acyclic); with no such operand,
    // try the latest kernel (horizontal fusion of independent work over one domain). Element
    // math whose latest producer is a view may join a kernel after that view too, so that
    // silu(x[:, :H]) * x[:, H:] with both views listed first is one kernel. Not reductions:
    // W3's sixteen norms of views of one input would all join one kernel and spill.
    int target = -1;
    for (int x : n.in) target = std::max(target, seg_of[x]);
    const int lo = target;  // the latest producer of an operand
    const bool after_view = target >= 0 && segs[target].kind == SegmentKind::View && kind != OpKind::Reduction;
    if (target < 0 || after_view)
      for (int i = static_cast<int>(segs.size()) - 1, after = target; i > after; --i)
        if (segs[i].kind == SegmentKind::Kernel && !sealed.count(i)) {
          target = i;
          break;
        }
    if (target >= 0 && segs[target].kind == SegmentKind::Kernel && try_join(target, n)) {
      add_to(target, node_index);
      return;
    }
    // Other kernels after every operand's producer, latest first: a reduction of a kernel's
    // results over another domain joins a later kernel that reduces that domain over the same
    // axes (sibling reductions of one kernel's partials: a split var_mean's mean, spread and
    // count), and element math of inputs alone an earlier kernel whose domain it fits (the
    // count's x * 0 + 1 beside the var_mean of x). Not reductions of views (W3, above).
    const bool sibling = kind == OpKind::Reduction && lo >= 0 && segs[lo].kind == SegmentKind::Kernel;
    const bool of_inputs = is_element_op(n.op) && lo < 0;
    if (sibling || of_inputs)
      for (int i = static_cast<int>(segs.size()) - 1; i > lo; --i)
        if (i != target && segs[i].kind == SegmentKind::Kernel && (of_inputs || (segs[i].category != KernelCategory::Pointwise &&
                                                                                 segs[i].reduce_axes == n.attrs.axes)) &&
            try_join(i, n)) {
          add_to(i, node_index);
          return;
        }
    int si;
    if (kind == OpKind::Reduction) {
      const Shape& in = f.value(n.in[0]).shape;
      bool all = n.attrs.axes.size() == in.size();
      si = open_kernel(all ? KernelCategory::Full : KernelCategory::Inner, in);
      segs[si].reduce_axes = n.attrs.axes;
    } else {
      si = open_kernel(KernelCategory::Pointwise, f.value(n.out[0]).shape);
    }
    add_to(si, node_index);
  }

  // A pointwise kernel whose results one later kernel alone reads joins that kernel, its nodes
  // first. The greedy placement opens a new kernel for element math whose latest operand comes
  // from a view or a matmul (a cast of a matmul's output, read by element math after the next
  // matmul; a cast of a permuted view, read by the next kernel), so the two stay apart though
  // nothing between them reads the first one's results: moving its nodes down to the consumer
  // keeps every read after its write. Processed last to first, so chains merge whole.
  void sink_into_consumers() {
    for (int a = static_cast<int>(segs.size()) - 1; a >= 0; --a) {
      const Segment& A = segs[a];
      if (A.kind != SegmentKind::Kernel || A.category != KernelCategory::Pointwise || A.nodes.empty() || sealed.count(a)) continue;
      std::set<int> readers;
      for (size_t si = 0; si < segs.size(); ++si)
        for (int ni : segs[si].nodes)
          for (int x : f.nodes()[ni].in)
            if (seg_of[x] == a && static_cast<int>(si) != a) readers.insert(static_cast<int>(si));
      if (readers.size() != 1) continue;
      const int b = *readers.begin();
      Segment& B = segs[b];
      if (b < a || B.kind != SegmentKind::Kernel || sealed.count(b) || !fits_in(A.domain, B.domain)) continue;
      if (windowed.count(a) && B.category != KernelCategory::Pointwise) continue;
      if (B.category != KernelCategory::Pointwise && std::any_of(B.nodes.begin(), B.nodes.end(), [&](int ni) {
            return op_info(f.nodes()[ni].op).kind == OpKind::Reduction && !(f.value(f.nodes()[ni].in[0]).shape == B.domain);
          }))
        continue;
      B.nodes.insert(B.nodes.begin(), A.nodes.begin(), A.nodes.end());
      for (int ni : A.nodes)
        for (int o : f.nodes()[ni].out) seg_of[o] = b;
      if (windowed.count(a)) windowed.insert(b);
      segs[a].nodes.clear();
    }
    // Drop the emptied kernels and renumber.
    if (std::none_of(segs.begin(), segs.end(), [](const Segment& s) { return s.kind == SegmentKind::Kernel && s.nodes.empty(); }))
      return;
    std::vector<int> to(segs.size(), -1);
    std::vector<Segment> kept;
    for (size_t si = 0; si < segs.size(); ++si)
      if (!(segs[si].kind == SegmentKind::Kernel && segs[si].nodes.empty())) {
        to[si] = static_cast<int>(kept.size());
        kept.push_back(std::move(segs[si]));
      }
    segs = std::move(kept);
    for (int& s : seg_of)
      if (s >= 0) s = to[s];
    for (int& s : const_seg)
      if (s >= 0) s = to[s];
    auto renumber = [&](std::set<int>& set) {
      std::set<int> out;
      for (int s : set)
        if (to[s] >= 0) out.insert(to[s]);
      set = std::move(out);
    };
    renumber(sealed);
    renumber(windowed);
  }

  void wire() {
    std::vector<char> is_output(f.values().size(), 0);
    for (int o : f.outputs()) is_output[o] = 1;
    for (size_t si = 0; si < segs.size(); ++si) {
      Segment& s = segs[si];
      std::set<int> ins;
      // Kernels inline constants; views, cats and matmuls read them (materialized) from memory.
      for (int ni : s.nodes)
        for (int x : f.nodes()[ni].in)
          if ((!is_const[x] || s.kind != SegmentKind::Kernel) && seg_of[x] != static_cast<int>(si)) ins.insert(x);
      s.inputs.assign(ins.begin(), ins.end());
    }
    // A value is materialized when it is a fusion output or read by another segment.
    std::vector<char> needed(f.values().size(), 0);
    for (int o : f.outputs()) needed[o] = 1;
    for (const auto& s : segs)
      for (int x : s.inputs) needed[x] = 1;
    for (size_t si = 0; si < segs.size(); ++si)
      for (int ni : segs[si].nodes)
        for (int o : f.nodes()[ni].out)
          if (needed[o]) segs[si].outputs.push_back(o);
  }
};

}  // namespace

namespace {

// Element math of one operand (the rest constants or windows): a cast, a negation, a scale.
// Recomputing it costs a few instructions per element; reading it from another kernel costs
// a write, a read and a dependence between the kernels.
int recomputable_operand(const Fusion& f, int v) {
  const int p = f.value(v).producer;
  if (p < 0) return -1;
  const Node& n = f.nodes()[p];
  if (!is_element_op(n.op)) return -1;
  int operand = -1;
  for (int x : n.in) {
    const int px = f.value(x).producer;
    if (px >= 0 && inlined_source(f.nodes()[px].op)) continue;
    if (operand >= 0) return -1;
    operand = x;
  }
  return operand;
}

// Values that a kernel reads from another kernel although it could recompute them from memory
// it can read itself: cheap element math (recomputable_operand) whose operand the producing
// kernel did not compute. CSE merges such values across uses (the cast of a RoPE's cos shared
// by the q and k rotations), which ties the kernels together: the producer then has two readers
// and cannot sink into either. Returns the fusion with one copy of each such node per reading
// kernel, placed before that kernel's first reader, or nothing where there are none.
std::optional<Fusion> recompute_in_readers(const Fusion& f, const std::vector<Segment>& segs, const std::vector<int>& seg_of) {
  std::vector<char> is_output(f.values().size(), 0);
  for (int o : f.outputs()) is_output[o] = 1;
  std::map<int, std::map<int, int>> first_reader;  // value -> reading segment -> its first node
  for (size_t c = 0; c < segs.size(); ++c) {
    if (segs[c].kind != SegmentKind::Kernel) continue;
    for (int ni : segs[c].nodes)
      for (int x : f.nodes()[ni].in) {
        const int a = seg_of[x];
        if (a < 0 || a == static_cast<int>(c) || segs[a].kind != SegmentKind::Kernel || is_output[x]) continue;
        const int y = recomputable_operand(f, x);
        if (y < 0 || seg_of[y] == a) continue;
        first_reader[x].emplace(static_cast<int>(c), ni);  // nodes are in order: the first stays
      }
  }
  if (first_reader.empty()) return std::nullopt;
  std::map<int, std::vector<int>> clone_before;  // node -> values to copy just before it
  for (const auto& [x, readers] : first_reader)
    for (const auto& [c, ni] : readers) clone_before[ni].push_back(x);
  std::vector<int> seg_of_node(f.nodes().size(), -1);
  for (size_t c = 0; c < segs.size(); ++c)
    for (int ni : segs[c].nodes) seg_of_node[ni] = static_cast<int>(c);
  Rebuilder rb(f);
  std::map<std::pair<int, int>, int> copy;  // (value, segment) -> its copy
  for (size_t i = 0; i < f.nodes().size(); ++i) {
    const Node& n = f.nodes()[i];
    const int c = seg_of_node[i];
    for (int x : clone_before[static_cast<int>(i)]) copy[{x, c}] = rb.emit(f.nodes()[f.value(x).producer])[0];
    std::vector<std::pair<int, int>> saved;
    for (int x : n.in)
      if (auto it = copy.find({x, c}); it != copy.end()) {
        saved.emplace_back(x, rb.remap[x]);
        rb.remap[x] = it->second;
      }
    const auto outs = rb.emit(n);
    for (auto it = saved.rbegin(); it != saved.rend(); ++it) rb.remap[it->first] = it->second;
    for (size_t k = 0; k < outs.size(); ++k) rb.remap[n.out[k]] = outs[k];
  }
  return eliminate_dead_code(rb.finish());  // originals that every reader now recomputes
}

Builder place_all(const Fusion& f) {
  Builder b(f);
  for (size_t i = 0; i < f.nodes().size(); ++i) b.place(static_cast<int>(i));
  return b;
}

}  // namespace

SegmentedFusion segment_fusion(Fusion f) {
  Builder first = place_all(f);
  std::optional<Fusion> recomputed = recompute_in_readers(f, first.segs, first.seg_of);
  if (recomputed) f = std::move(*recomputed);
  Builder b = recomputed ? place_all(f) : std::move(first);  // placed again only where it changed
  b.sink_into_consumers();
  b.wire();
  // A constant that is itself an output gets a one-node kernel that materializes it (kernels
  // that read it inline it instead).
  for (int v : f.outputs()) {
    const Value& val = f.value(v);
    if (val.producer < 0 || !inlined_source(f.nodes()[val.producer].op)) continue;
    if (std::any_of(b.segs.begin(), b.segs.end(), [&](const Segment& s) {
          return std::find(s.outputs.begin(), s.outputs.end(), v) != s.outputs.end();
        }))
      continue;
    Segment s;
    s.kind = SegmentKind::Kernel;
    s.category = KernelCategory::Pointwise;
    s.domain = val.shape;
    s.nodes = {val.producer};
    s.outputs = {v};
    b.segs.push_back(std::move(s));
  }
  // A pad has no memory of its own: kernels read it masked. Elsewhere it would be copied or
  // read as a plain strided view, so that is refused by name (not built yet).
  auto is_pad = [&](int v) { const Node* n = pad_or_window(f, v); return n && n->op == Op::Pad; };
  for (int v : f.outputs())
    if (is_pad(v)) throw Error("pad: " + f.value(v).name + " is an output; a pad is only read by element math in a kernel (not yet an output)");
  // A pad of a pad (several dims) is read as one: kernels mask each dim (pad_chain).
  auto pads_only = [&](const Segment& s) {
    return std::all_of(s.nodes.begin(), s.nodes.end(), [&](int ni) { return f.nodes()[ni].op == Op::Pad; });
  };
  for (const Segment& s : b.segs)
    if (s.kind != SegmentKind::Kernel && !(s.kind == SegmentKind::View && pads_only(s)))
      for (int x : s.inputs)
        if (is_pad(x))
          throw Error("pad: " + f.value(x).name + " is read by a " + segment_kind_name(s.kind) +
                      "; a pad is only read by element math in a kernel or padded again (not yet by other views, cats or matmuls)");
  SegmentedFusion out{std::move(f), std::move(b.segs), {}, {}};
  group_independent_segments(out);
  verify_segments(out);
  return out;
}

const Node* pad_or_window(const Fusion& f, int v) {
  const int p = f.value(v).producer;
  return p >= 0 && (f.nodes()[p].op == Op::Window || f.nodes()[p].op == Op::Pad) ? &f.nodes()[p] : nullptr;
}

std::vector<int> pad_chain(const Fusion& f, int v) {
  std::vector<int> out;
  for (const Node* n = pad_or_window(f, v); n; n = n->op == Op::Pad ? pad_or_window(f, n->in[0]) : nullptr) {
    if (n->op == Op::Window && !out.empty()) break;  // a pad's input is memory, never a window
    out.push_back(n->out[0]);
  }
  return out;
}

bool reads_pads_or_windows(const Fusion& f, const Segment& s) {
  return std::any_of(s.nodes.begin(), s.nodes.end(), [&](int ni) { return reads_window(f, f.nodes()[ni]); });
}

void verify_segments(const SegmentedFusion& sf) {
  const Fusion& f = sf.fusion;
  std::vector<char> written(f.values().size(), 0);
  for (int v : f.inputs()) written[v] = 1;
  auto is_const = [&](int v) {
    const int p = f.value(v).producer;
    return p >= 0 && inlined_source(f.nodes()[p].op);
  };
  auto fail = [&](size_t si, const std::string& what) {
    throw Error("segmentation of " + f.name() + ": segment " + std::to_string(si) + " (" +
                segment_kind_name(sf.segments[si].kind) + ") " + what + "\n" + describe_segments(sf));
  };
  std::vector<char> inside(f.values().size(), 0);  // made by the kernel segment being checked
  for (size_t si = 0; si < sf.segments.size(); ++si) {
    const Segment& s = sf.segments[si];
    if (s.nodes.empty()) fail(si, "has no nodes");
    if (s.kind == SegmentKind::Kernel) {
      for (int ni : s.nodes)
        for (int o : f.nodes()[ni].out) inside[o] = 1;
      for (int x : s.inputs)
        if (!written[x]) fail(si, "reads " + f.value(x).name + " before any segment writes it");
      for (int ni : s.nodes)
        for (int x : f.nodes()[ni].in)
          if (!inside[x] && !is_const(x) && std::find(s.inputs.begin(), s.inputs.end(), x) == s.inputs.end())
            fail(si, "uses " + f.value(x).name + " without reading it");
      for (int o : s.outputs) {
        if (!inside[o]) fail(si, "writes " + f.value(o).name + ", which none of its nodes makes");
        written[o] = 1;
      }
      for (int ni : s.nodes)
        for (int o : f.nodes()[ni].out) inside[o] = 0;
      continue;
    }
    if (s.nodes.size() != 1) fail(si, "has more than one node");
    const Node& n = f.nodes()[s.nodes[0]];
    for (int x : n.in)
      if (!written[x]) fail(si, "reads " + f.value(x).name + " before any segment writes it");
    for (int o : n.out) written[o] = 1;
  }
  for (int v : f.outputs())
    if (!written[v]) throw Error("segmentation of " + f.name() + ": output " + f.value(v).name + " is never written");
  verify_groups(sf);
}

void verify_groups(const SegmentedFusion& sf) {
  const Fusion& f = sf.fusion;
  auto fail = [&](size_t gi, const std::string& what) {
    throw Error("segmentation of " + f.name() + ": group " + std::to_string(gi) + " " + what + "\n" + describe_segments(sf));
  };
  std::vector<int> group_of(sf.segments.size(), -1);
  for (size_t gi = 0; gi < sf.groups.size(); ++gi) {
    const std::vector<int>& ms = sf.groups[gi].members;
    if (ms.size() < 2) fail(gi, "has fewer than two members");
    std::set<int> written;  // by the members before this one
    for (size_t k = 0; k < ms.size(); ++k) {
      const int m = ms[k];
      if (m < 0 || m >= static_cast<int>(sf.segments.size())) fail(gi, "names no segment");
      const Segment& s = sf.segments[m];
      if (k > 0 && m != ms[k - 1] + 1) fail(gi, "is not contiguous (segment " + std::to_string(m) + ")");
      if (s.kind != SegmentKind::Kernel || s.group != static_cast<int>(gi)) fail(gi, "lists segment " + std::to_string(m) + ", not its kernel");
      // Contiguous members with no edge between them have no path between them either.
      for (int x : s.inputs)
        if (written.count(x)) fail(gi, "member " + std::to_string(m) + " reads " + f.value(x).name + ", another member's");
      written.insert(s.outputs.begin(), s.outputs.end());
      group_of[m] = static_cast<int>(gi);
    }
  }
  for (size_t si = 0; si < sf.segments.size(); ++si)
    if (sf.segments[si].group != group_of[si])
      throw Error("segmentation of " + f.name() + ": segment " + std::to_string(si) + " names a group that does not list it");
}

const char* segment_kind_name(SegmentKind k) {
  switch (k) {
    case SegmentKind::Kernel: return "kernel";
    case SegmentKind::View: return "view";
    case SegmentKind::Cat: return "cat";
    case SegmentKind::Matmul: return "matmul";
  }
  return "?";
}

const char* kernel_category_name(KernelCategory c) {
  switch (c) {
    case KernelCategory::Pointwise: return "pointwise";
    case KernelCategory::Inner: return "inner-reduction";
    case KernelCategory::Full: return "full-reduction";
    case KernelCategory::Outer: return "outer-reduction";
    case KernelCategory::Transpose: return "transpose";
  }
  return "?";
}

std::string describe_segments(const SegmentedFusion& s) {
  const Fusion& f = s.fusion;
  std::string r;
  for (size_t i = 0; i < s.segments.size(); ++i) {
    const Segment& g = s.segments[i];
    r += "segment " + std::to_string(i) + ": " + segment_kind_name(g.kind);
    if (g.kind == SegmentKind::Kernel) {
      r += std::string(" ") + kernel_category_name(g.category) + " over " + shape_str(g.domain);
      if (!g.reduce_axes.empty()) {
        r += " reducing dims [";
        for (size_t k = 0; k < g.reduce_axes.size(); ++k) r += (k ? ", " : "") + std::to_string(g.reduce_axes[k]);
        r += "]";
      }
      if (g.group >= 0) r += " [group " + std::to_string(g.group) + "]";
    }
    r += "\n  ops:";
    for (int ni : g.nodes) r += std::string(" ") + op_name(f.nodes()[ni].op);
    r += "\n  reads:";
    for (int x : g.inputs) r += " " + f.value(x).name;
    r += "\n  writes:";
    for (int x : g.outputs) r += " " + f.value(x).name;
    r += "\n";
  }
  for (size_t gi = 0; gi < s.groups.size(); ++gi) {
    const SegmentGroup& g = s.groups[gi];
    r += "group " + std::to_string(gi) + ": segments " + std::to_string(g.members.front()) + "-" +
         std::to_string(g.members.back()) + " may stack into one launch (" + g.why + ")\n";
  }
  for (const std::string& note : s.group_notes) r += note + "\n";
  return r;
}

}  // namespace solder
