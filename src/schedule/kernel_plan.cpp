#include "schedule/kernel_plan.h"

#include <algorithm>
#include <charconv>
#include <sstream>

#include "solder/error.h"

namespace solder {

const char* access_name(Access a) {
  switch (a) {
    case Access::Scalar: return "scalar";
    case Access::Row: return "row";
    case Access::Col: return "col";
    case Access::Full: return "full";
    case Access::General: return "general";
    case Access::Staged: return "staged";
  }
  return "?";
}

std::string access_text(const OperandPlan& o) {
  return std::string(access_name(o.access)) + (o.rows_by_dim ? "/dims" : "") + (o.segments ? "/seg" : "");
}

std::string KernelParams::str() const {
  std::string s = "vec=" + std::to_string(vec) + " threads=" + std::to_string(threads);
  if (threads_per_row)
    s += " threads_per_row=" + std::to_string(threads_per_row) + " rows_per_block=" + std::to_string(rows_per_block) +
         (batch ? " persistent_batch=" + std::to_string(batch) : std::string(" looped")) +
         (cluster > 1 ? " cluster=" + std::to_string(cluster) : std::string()) +
         (row_split > 1 ? " row_split=" + std::to_string(row_split) : std::string()) +
         " min_blocks=" + std::to_string(min_blocks) + (prefetch ? (prefetch_smem ? " prefetch=smem:" + std::to_string(dyn_smem) : " prefetch") : "") +
         (ldg_weights ? " ldg_weights" : "") +
         (weight_ring ? " weight_ring=" + std::to_string(weight_ring) : std::string()) +
         (tickets ? " tickets" : "") + (resident ? " resident=" + std::to_string(resident) : std::string()) + (recompute ? " recompute" : "") +
         (col_vec ? " phased col_vec=" + std::to_string(col_vec) : std::string()) + (shift ? " shift" : "");
  else
    s += (rows_per_block != 1 ? " rows_per_block=" + std::to_string(rows_per_block) : std::string()) +
         " unroll=" + std::to_string(unroll) + (min_blocks != 1 ? " min_blocks=" + std::to_string(min_blocks) : std::string()) +
         (grid_split ? " grid_split" : "") + (batch ? " persistent_batch=" + std::to_string(batch) : std::string()) +
         (smem_rows ? " smem_rows=" + std::to_string(smem_rows) + ":" + std::to_string(dyn_smem) : std::string()) +
         (col_vec ? " phased col_vec=" + std::to_string(col_vec) : std::string()) + (one_row ? " one_row" : "") +
         (interleave ? " interleave" : "") + (shift ? " shift" : "") + (row_unroll != 1 ? " row_unroll=" + std::to_string(row_unroll) : std::string()) +
         (cluster > 1 ? " cluster=" + std::to_string(cluster) : std::string()) + (staged ? " staged" : "") +
         (kept_run ? " kept_run" : "");
  if (tile_rows || tile_cols || tile_vec)
    s += " tile_rows=" + std::to_string(tile_rows) + " tile_cols=" + std::to_string(tile_cols) +
         " tile_vec=" + std::to_string(tile_vec);
  if (index32) s += " index32";
  if (max_registers) s += " max_registers=" + std::to_string(max_registers);
  return s;
}

uint64_t KernelParams::hash() const {
  uint64_t h = 1469598103934665603ull;  // FNV-1a over the printed form, which names every part
  for (char c : str()) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return h;
}

KernelParams parse_params(const std::string& text, KernelParams p, std::set<std::string>* given) {
  std::string spaced = text;
  std::replace(spaced.begin(), spaced.end(), ',', ' ');
  std::istringstream in(spaced);
  std::string tok;
  while (in >> tok) {
    const size_t eq = tok.find('=');
    const std::string key = tok.substr(0, eq), val = eq == std::string::npos ? "" : tok.substr(eq + 1);
    auto number = [&](const std::string& v) {
      int n = 0;
      auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
      if (ec != std::errc() || end != v.data() + v.size() || n < 0)
        throw Error("plan: '" + tok + "' needs a non-negative integer value");
      return n;
    };
    auto flag = [&] {
      if (val.empty() || val == "1") return true;
      if (val == "0") return false;
      throw Error("plan: '" + tok + "': a flag takes no value, 0 or 1");
    };
    if (given) given->insert(key == "batch" || key == "looped" ? "persistent_batch" : key);
    if (key == "vec") p.vec = number(val);
    else if (key == "threads") p.threads = number(val);
    else if (key == "threads_per_row") p.threads_per_row = number(val);
    else if (key == "rows_per_block") p.rows_per_block = number(val);
    else if (key == "persistent_batch" || key == "batch") p.batch = number(val);
    else if (key == "looped") p.batch = flag() ? 0 : p.batch;
    else if (key == "unroll") p.unroll = number(val);
    else if (key == "min_blocks") p.min_blocks = number(val);
    else if (key == "cluster") p.cluster = number(val);
    else if (key == "row_split") p.row_split = number(val);
    else if (key == "ldg_weights") p.ldg_weights = flag();
    else if (key == "weight_ring") p.weight_ring = number(val);
    else if (key == "tickets") p.tickets = flag();
    else if (key == "resident") p.resident = number(val);
    else if (key == "recompute") p.recompute = flag();
    else if (key == "phased") continue;  // printed beside col_vec
    else if (key == "scheduler") continue;  // which scheduler plans (compile_kernel), not a part of the plan
    else if (key == "col_vec") p.col_vec = number(val);
    else if (key == "max_registers") p.max_registers = number(val);
    else if (key == "grid_split") p.grid_split = flag();
    else if (key == "tile_rows") p.tile_rows = number(val);
    else if (key == "tile_cols") p.tile_cols = number(val);
    else if (key == "tile_vec") p.tile_vec = number(val);
    else if (key == "index32") p.index32 = flag();
    else if (key == "staged") p.staged = flag();
    else if (key == "smem_rows") {  // smem_rows=ROWS[:BYTES] (the bytes as printed; pinned plans recompute them)
      const size_t colon = val.find(':');
      p.smem_rows = number(val.substr(0, colon));
      if (colon != std::string::npos) p.dyn_smem = number(val.substr(colon + 1));
    }
    else if (key == "one_row") p.one_row = flag();
    else if (key == "interleave") p.interleave = flag();
    else if (key == "shift") p.shift = flag();
    else if (key == "row_unroll") p.row_unroll = number(val);
    else if (key == "kept_run") p.kept_run = flag();
    else if (key == "prefetch" && val.rfind("smem:", 0) == 0) {
      p.prefetch = p.prefetch_smem = true;
      p.dyn_smem = number(val.substr(5));
    } else if (key == "prefetch") {
      // As printed: `prefetch` is the next row in registers, `prefetch=smem:BYTES` in shared
      // memory (a pinned `prefetch=1` over a shared-memory first plan kept its copy and size).
      p.prefetch = flag();
      if (p.prefetch_smem) p.prefetch_smem = p.ldg_weights = false, p.weight_ring = 0, p.dyn_smem = 0;
    } else {
      throw Error("plan: unknown part '" + key +
                  "' (vec, threads, threads_per_row, rows_per_block, batch, looped, unroll, min_blocks, cluster, row_split, "
                  "prefetch[=smem:BYTES], ldg_weights, weight_ring, tickets, resident, recompute, col_vec, "
                  "grid_split, staged, smem_rows[=ROWS:BYTES], one_row, interleave, shift, row_unroll, kept_run, tile_rows, tile_cols, tile_vec, index32, max_registers, scheduler)");
    }
  }
  return p;
}

namespace {
// Which domain dims (original order) a value of shape `vs` varies along, right-aligned.
uint32_t domain_span(const Shape& vs, const Shape& domain) {
  uint32_t m = 0;
  size_t off = domain.size() - std::min(domain.size(), vs.size());
  for (size_t i = 0; i < vs.size() && off + i < domain.size(); ++i)
    if (!vs[i].is_one()) m |= 1u << (off + i);
  return m;
}
}  // namespace

int window_dim(const Fusion& f, const KernelShape& ks, int v) {
  const Node* n = pad_or_window(f, v);
  if (!n) return -1;
  const int rank = static_cast<int>(ks.dim_order.size());
  const int dom_axis = static_cast<int>(n->attrs.axis) + rank - f.value(v).rank();
  return static_cast<int>(std::find(ks.dim_order.begin(), ks.dim_order.end(), dom_axis) - ks.dim_order.begin());
}

bool window_divides(const Fusion& f, const KernelShape& ks, int v) {
  const int kd = window_dim(f, ks, v), rank = static_cast<int>(ks.dim_order.size());
  const bool in_cols = kd >= ks.split;
  return kd >= 0 && (kd > (in_cols ? ks.split : 0) || kd < (in_cols ? rank - 1 : ks.split - 1));
}

std::vector<Dim> symbolic_bounds(const Fusion& f, const Segment& s) {
  std::vector<Dim> out;
  for (int ni : s.nodes)
    for (int v : f.nodes()[ni].in)
      for (int u : pad_chain(f, v))
        for (const Dim& d : {pad_or_window(f, u)->attrs.bound_start, pad_or_window(f, u)->attrs.bound_end})
          if (!d.is_const() && bound_slot(out, d) < 0) out.push_back(d);
  return out;
}

int bound_slot(const std::vector<Dim>& bounds, const Dim& d) {
  if (d.is_const()) return -1;
  for (size_t i = 0; i < bounds.size(); ++i)
    if (bounds[i] == d) return static_cast<int>(i);
  return -1;
}

std::vector<int> memory_order(const std::vector<int64_t>& shape, const std::vector<int64_t>& strides) {
  const int rank = static_cast<int>(shape.size());
  std::vector<int> order;
  for (int d = 0; d < rank; ++d)
    if (shape[d] <= 1) order.push_back(d);
  const auto ones = static_cast<std::ptrdiff_t>(order.size());
  for (int d = 0; d < rank; ++d)
    if (shape[d] > 1) order.push_back(d);
  std::stable_sort(order.begin() + ones, order.end(), [&](int a, int b) { return strides[a] > strides[b]; });
  if (std::is_sorted(order.begin() + ones, order.end())) return {};
  return order;
}

namespace {
// An order for an inner segment: its kept dims, then its reduced dims (each in any order).
bool inner_order_fits(const Segment& s, const std::vector<int>& order) {
  const int rank = static_cast<int>(s.domain.size()), kept = rank - static_cast<int>(s.reduce_axes.size());
  if (static_cast<int>(order.size()) != rank) return false;
  std::vector<char> seen(rank, 0);
  for (int pos = 0; pos < rank; ++pos) {
    const int d = order[pos];
    if (d < 0 || d >= rank || seen[d]) return false;
    seen[d] = 1;
    const bool reduced = std::find(s.reduce_axes.begin(), s.reduce_axes.end(), d) != s.reduce_axes.end();
    if (reduced != (pos >= kept)) return false;
  }
  return true;
}
}  // namespace

std::vector<int> inner_reduction_order(const Segment& s, const std::vector<std::vector<int64_t>>& shapes,
                                       const std::vector<std::vector<int64_t>>& strides, const std::vector<int>& elem_bytes) {
  const int rank = static_cast<int>(s.domain.size());
  const size_t inputs = s.inputs.size();
  if (s.category != KernelCategory::Inner || s.reduce_axes.empty() || shapes.size() < inputs) return {};
  // The domain's sizes: the largest of the full-rank inputs' sizes.
  std::vector<int64_t> domain(rank, 1);
  for (size_t i = 0; i < inputs; ++i)
    if (static_cast<int>(shapes[i].size()) == rank)
      for (int d = 0; d < rank; ++d) domain[d] = std::max(domain[d], shapes[i][d]);
  // Bytes of operand i, none counted along its broadcast (stride 0) dims.
  auto bytes = [&](size_t i) {
    int64_t n = elem_bytes[i];
    for (size_t d = 0; d < shapes[i].size(); ++d)
      if (strides[i][d] != 0) n *= shapes[i][d];
    return n;
  };
  // The dominant input: the whole-domain one (every dim, none broadcast) with the most bytes.
  int ref = -1;
  int64_t ref_bytes = -1;
  for (size_t i = 0; i < inputs; ++i) {
    if (shapes[i] != domain) continue;
    bool broadcast = false;
    for (int d = 0; d < rank; ++d) broadcast |= domain[d] > 1 && strides[i][d] == 0;
    if (broadcast || bytes(i) <= ref_bytes) continue;
    ref = static_cast<int>(i);
    ref_bytes = bytes(i);
  }
  if (ref < 0) return {};
  std::vector<int> order;
  for (int d = 0; d < rank; ++d)
    if (std::find(s.reduce_axes.begin(), s.reduce_axes.end(), d) == s.reduce_axes.end()) order.push_back(d);
  const auto kept = static_cast<std::ptrdiff_t>(order.size());
  for (int64_t a : s.reduce_axes) order.push_back(static_cast<int>(a));
  const std::vector<int64_t>& st = strides[ref];
  auto key = [&](int d) { return domain[d] > 1 ? st[d] : INT64_MAX; };  // size-1 dims first
  // Bytes of the operands read or written in unit-stride runs along kernel dim `last`. Inputs
  // broadcast right-aligned; outputs count where they have the domain's rank (element outputs,
  // keepdim statistics).
  auto unit_bytes = [&](int last) {
    int64_t n = 0;
    for (size_t i = 0; i < shapes.size(); ++i) {
      const int off = rank - static_cast<int>(shapes[i].size());
      if ((i >= inputs && off != 0) || last < off || shapes[i][last - off] <= 1 || strides[i][last - off] != 1) continue;
      n += bytes(i);
    }
    return n;
  };
  // The innermost dim of size > 1 among order[lo, hi).
  auto innermost = [&](std::ptrdiff_t lo, std::ptrdiff_t hi) {
    for (std::ptrdiff_t i = hi - 1; i >= lo; --i)
      if (domain[order[i]] > 1) return order[i];
    return -1;
  };
  // Kept dims: where the input's unit-stride dim is a kept dim other than the declared innermost
  // kept one (the mean over dim 0 of a [B, M, K] laid out [B, K, M]), from the largest stride
  // to the smallest, so that the kept columns end in its unit-stride run (the outer schedulers
  // read it as vectors; read as rows it costs a sector per element), where that moves more
  // bytes at unit stride than the declared order (the output of a reduction is the smaller).
  const int declared_kept = innermost(0, kept);
  std::vector<int> by_stride(order.begin(), order.begin() + kept);
  std::stable_sort(by_stride.begin(), by_stride.end(), [&](int a, int b) { return key(a) > key(b); });
  const bool kept_moves = !by_stride.empty() && key(by_stride.back()) == 1 && by_stride.back() != declared_kept &&
                          unit_bytes(by_stride.back()) > (declared_kept >= 0 ? unit_bytes(declared_kept) : 0);
  if (kept_moves) {
    std::copy(by_stride.begin(), by_stride.end(), order.begin());
    return order;
  }
  // Reduced dims (several): from the largest stride to the smallest, only where the columns
  // then end in a unit-stride run of the input (a reduction whose reduced dims are all strided,
  // a kept dim innermost, is the case above), and only where more bytes move at unit stride
  // along the innermost column dim than in the declared order: with x permuted and y
  // contiguous (or a norm's element output contiguous), one of them is strided in either
  // order, and the declared one stays.
  std::stable_sort(order.begin() + kept, order.end(), [&](int a, int b) { return key(a) > key(b); });
  if (s.reduce_axes.size() < 2 || std::is_sorted(order.begin() + kept, order.end())) return {};
  if (key(order.back()) != 1) return {};
  int declared_last = -1;  // the declared order's innermost reduced dim of size > 1
  for (int64_t a : s.reduce_axes)
    if (domain[a] > 1) declared_last = static_cast<int>(a);
  if (declared_last >= 0 && unit_bytes(order.back()) <= unit_bytes(declared_last)) return {};
  return order;
}

KernelShape analyze_kernel(const Fusion& f, const Segment& s, const std::vector<int>& order) {
  KernelShape k;
  k.category = s.category;
  const int rank = static_cast<int>(s.domain.size());
  // Rows first (kept dims, in order), then the reduced dims: an inner reduction over any axes
  // becomes a reduction over the trailing kernel dims.
  std::vector<char> red(rank, 0);
  if (s.category == KernelCategory::Inner)
    for (auto a : s.reduce_axes) red[a] = 1;
  if ((s.category == KernelCategory::Pointwise && static_cast<int>(order.size()) == rank) ||
      (s.category == KernelCategory::Inner && inner_order_fits(s, order))) {
    k.dim_order = order;
  } else {
    for (int d = 0; d < rank; ++d)
      if (!red[d]) k.dim_order.push_back(d);
    for (int d = 0; d < rank; ++d)
      if (red[d]) k.dim_order.push_back(d);
  }
  k.split = s.category == KernelCategory::Inner ? rank - static_cast<int>(s.reduce_axes.size())
            : s.category == KernelCategory::Full ? 0
                                                 : rank;  // pointwise: refined below
  k.operands = s.inputs;
  k.num_inputs = static_cast<int>(s.inputs.size());
  k.operands.insert(k.operands.end(), s.outputs.begin(), s.outputs.end());

  // Spans in original dims; reduction outputs map onto their kept dims.
  std::vector<uint32_t> orig(f.values().size(), 0);
  auto span_of = [&](int id) {
    const Value& v = f.value(id);
    if (v.producer >= 0) {
      const Node& p = f.nodes()[v.producer];
      if (op_info(p.op).kind == OpKind::Reduction && !p.attrs.keepdim) {
        uint32_t m = 0;
        int j = 0;
        for (int d = 0; d < rank; ++d) {
          bool r = std::binary_search(p.attrs.axes.begin(), p.attrs.axes.end(), d);
          if (r) continue;
          if (j < v.rank() && !v.shape[j].is_one()) m |= 1u << d;
          ++j;
        }
        return m;
      }
    }
    return domain_span(v.shape, s.domain);
  };
  k.span.assign(f.values().size(), 0);
  for (size_t id = 0; id < f.values().size(); ++id) {
    uint32_t o = span_of(static_cast<int>(id));
    uint32_t m = 0;
    for (int pos = 0; pos < rank; ++pos)
      if (o & (1u << k.dim_order[pos])) m |= 1u << pos;
    k.span[id] = m;
  }
  if (s.category == KernelCategory::Pointwise) {
    // Largest column block on which every operand either varies along all dims or none:
    // that is what lets a bias [H] be a Col operand of a [B, H] kernel.
    int split = rank;
    for (int cand = rank - 1; cand >= 0; --cand) {
      bool uniform = true;
      for (int id : k.operands) {
        uint32_t cols = k.span[id] >> cand;
        uint32_t full = (1u << (rank - cand)) - 1;
        // size-1 domain dims do not matter
        uint32_t care = 0;
        for (int pos = cand; pos < rank; ++pos)
          if (!s.domain[k.dim_order[pos]].is_one()) care |= 1u << (pos - cand);
        if ((cols & care) != 0 && (cols & care) != (full & care)) uniform = false;
      }
      if (!uniform) break;
      split = cand;
    }
    if (split == rank && rank > 0) split = rank - 1;
    k.split = split;
  }
  return k;
}

std::string KernelPlan::key() const {
  std::string s = name + "|" + kernel_category_name(shape.category) + "|split=" + std::to_string(shape.split) + "|order=";
  for (int d : shape.dim_order) s += std::to_string(d) + ",";
  s += "|ops=";
  for (const auto& o : operands)
    s += std::to_string(o.value) + ":" + access_text(o) + ",";
  if (shape.category == KernelCategory::Transpose) {
    const TileDims& t = shape.tile;
    s += "|tile=" + std::to_string(t.row_lo) + "-" + std::to_string(t.row_hi) + "," + std::to_string(t.col_lo) + "-" +
         std::to_string(t.col_hi) + (t.reduced_lo >= 0 ? ",reduced=" + std::to_string(t.reduced_lo) : "");
  }
  return s + "|" + params.str();
}

std::vector<std::string> KernelPlan::problems() const {
  const KernelParams& p = params;
  std::vector<std::string> out;
  auto need = [&](bool ok, const char* what) {
    if (!ok) out.push_back(what);
  };
  need(p.vec == 1 || p.vec == 2 || p.vec == 4 || p.vec == 8 || p.vec == 16, "vec is 1, 2, 4, 8 or 16");
  need(p.threads >= 1 && p.threads <= 1024, "threads is 1..1024");
  need(p.max_registers == 0 || (p.max_registers >= 16 && p.max_registers <= 255), "max_registers is 0 or 16..255");
  need(!p.kept_run || shape.category == KernelCategory::Outer, "kept_run is an outer plan's part");
  for (const OperandPlan& o : operands)
    need(!o.segments || (shape.category == KernelCategory::Inner && o.access == Access::General && !o.is_output) ||
             (p.one_row && o.access == Access::Full && o.rows_by_dim),
         "vector runs (general/seg, full/dims/seg) are inner plans' General inputs or one_row plans' full/dims operands");
  for (const OperandPlan& o : operands)
    if (o.rows_by_dim) {
      need(shape.category == KernelCategory::Pointwise || shape.category == KernelCategory::Full,
           "rows addressed per kernel dim (row/dims, full/dims, general/dims) are flat plans' operands");
      need(o.access == Access::Row || o.access == Access::Full || o.access == Access::General,
           "rows addressed per kernel dim go with row, full or general columns");
    }
  if (shape.category != KernelCategory::Transpose) {
    need(p.tile_rows == 0 && p.tile_cols == 0 && p.tile_vec == 0, "tile_rows, tile_cols and tile_vec are transpose plans' parts");
    need(!p.index32 || shape.category == KernelCategory::Pointwise || shape.category == KernelCategory::Full ||
             shape.category == KernelCategory::Inner,
         "index32 is a transpose, flat or inner plan's part");
  }
  if (shape.category == KernelCategory::Transpose) {
    auto pow2_in = [](int v, int lo, int hi) { return v >= lo && v <= hi && (v & (v - 1)) == 0; };
    const TileDims& t = shape.tile;
    const int rank = static_cast<int>(shape.dim_order.size());
    need(0 <= t.row_lo && t.row_lo < t.row_hi && t.row_hi <= rank && 0 <= t.col_lo && t.col_lo < t.col_hi &&
             t.col_hi <= rank && (t.row_hi <= t.col_lo || t.col_hi <= t.row_lo),
         "transpose: the tile's row and column dims are two disjoint, non-empty runs of kernel dims");
    need(pow2_in(p.tile_rows, 32, 256) && pow2_in(p.tile_cols, 32, 256), "transpose: tile_rows and tile_cols are 32, 64, 128 or 256");
    need(pow2_in(p.tile_vec, 1, 16), "transpose: tile_vec is 1, 2, 4, 8 or 16");
    need(p.vec <= p.tile_cols, "transpose: a vector (vec) lies inside a tile's columns");
    need(p.threads % 32 == 0, "transpose: whole warps (threads a multiple of 32)");
    need(!p.grid_split || (t.reduced_lo >= 0 && t.col_lo < t.reduced_lo),
         "transpose: grid_split (split reduced indices) is a plan's part for tiles of kept dims only");
    need(p.threads_per_row == 0 && p.batch == 0 && p.unroll == 1 && p.rows_per_block == 1 &&
             !p.prefetch && !p.prefetch_smem && !p.ldg_weights && !p.tickets && !p.recompute && p.weight_ring == 0 &&
             p.resident == 0 && p.col_vec == 0 && p.cluster == 1 && p.row_split == 1 && p.dyn_smem == 0 && !p.one_row && !p.interleave && p.smem_rows == 0 && !p.shift && p.row_unroll == 1,
         "transpose: a plan has vec, threads, min_blocks, tile_rows, tile_cols, tile_vec, index32 and grid_split only");
    need(p.min_blocks >= 1, "min_blocks is at least 1");
    return out;
  }
  if (shape.category != KernelCategory::Inner) {
    need(p.threads_per_row == 0, "a flat kernel has no rows of threads");
    need(p.row_split == 1, "row_split is an inner plan's part");
    need(p.batch == 0 || shape.category == KernelCategory::Outer, "only inner and outer plans hold rows (batch)");
    need(!p.prefetch && !p.prefetch_smem && !p.ldg_weights && !p.tickets && !p.recompute && p.weight_ring == 0 &&
             p.resident == 0 && (p.dyn_smem == 0 || (shape.category == KernelCategory::Outer && p.smem_rows > 0)),
         "prefetch, tickets, recompute, weight rings and resident weights are inner plans' parts");
    need(p.smem_rows == 0 || shape.category == KernelCategory::Outer, "smem_rows (held rows in shared memory) is an outer plan's part");
    need(p.col_vec == 0 || ((shape.category == KernelCategory::Pointwise || shape.category == KernelCategory::Full ||
                             shape.category == KernelCategory::Outer) &&
                            p.col_vec == 1 && p.vec > 1),
         "phased rows (col_vec=1: weights element by element) are pointwise, full reduction and outer plans' with vec > 1");
    need(p.col_vec == 0 || shape.category != KernelCategory::Outer || (p.batch == 0 && p.cluster == 1 && !p.staged),
         "outer: phase-shifted kept columns (col_vec=1) are the reduction form's (no batch, cluster or staged)");
    need(p.cluster == 1 || shape.category == KernelCategory::Outer, "clusters are inner and outer plans' parts");
    need(!p.one_row || (shape.category == KernelCategory::Pointwise && p.unroll == 1),
         "one_row is a pointwise plan's part, without unroll");
    need(!p.interleave || (p.one_row && p.col_vec == 1), "interleave is a one_row plan's part with phased rows (col_vec=1)");
    need(!p.staged || shape.category == KernelCategory::Outer, "staged outputs are an outer plan's part");
    need(!p.shift || (shape.category == KernelCategory::Pointwise && p.unroll == 1 && !p.one_row && p.col_vec == 0 && p.vec > 1),
         "shift (inputs read at their own phase) is a pointwise 2-D plan's part with vec > 1, without unroll, one_row or phased rows");
    need(p.unroll >= 1, "unroll is at least 1");
    need(p.row_unroll >= 1 && p.row_unroll <= 8, "row_unroll is 1..8");
    need(p.row_unroll == 1 || ((shape.category == KernelCategory::Pointwise || shape.category == KernelCategory::Full) &&
                               p.unroll == 1 && !p.one_row && !p.shift),
         "row_unroll (rows per thread in flight) is a pointwise or full reduction 2-D plan's part, without unroll, one_row "
         "or shift");
    if (shape.category == KernelCategory::Outer) {
      need(p.rows_per_block >= 1 && p.threads % p.rows_per_block == 0,
           "outer: threads = threads along the kept columns x rows_per_block");
      need(p.unroll <= 8, "outer: unroll (rows in flight per thread) is at most 8");
      need(p.min_blocks >= 1, "min_blocks is at least 1");
      need(p.batch >= 0 && p.batch <= 64, "outer: batch (rows a thread holds) is 0..64");
      need(p.batch == 0 || (!p.grid_split && p.unroll == 1), "outer: held rows (batch) exclude grid_split and unroll");
      need(p.smem_rows >= 0 && p.smem_rows <= p.batch, "outer: smem_rows (held rows in shared memory) is 0..batch");
      need(p.dyn_smem >= 0 && (p.dyn_smem > 0) == (p.smem_rows > 0), "outer: dynamic shared memory holds the smem_rows, no more");
      need(p.cluster == 1 || p.cluster == 2 || p.cluster == 4 || p.cluster == 8 || p.cluster == 16,
           "outer: cluster is 1, 2, 4, 8 or 16");
      need(p.cluster == 1 || !p.grid_split, "outer: a cluster and grid_split both split the rows: one or the other");
      // A cluster's blocks exchange their totals 16 bytes at a time (see write_outer_norm).
      need(p.cluster == 1 || (p.vec * (p.threads / std::max(1, p.rows_per_block))) % 4 == 0,
           "outer: a cluster's tile is a multiple of 4 kept columns");
      bool general_out = false;
      for (const OperandPlan& o : operands) general_out |= o.is_output && o.access == Access::General;
      need(!p.staged || general_out, "outer: staged needs an output addressed General (kept columns not unit-stride)");
    } else {
      need(p.rows_per_block == 1 && !p.grid_split && p.min_blocks == 1,
           "rows_per_block, min_blocks and grid_split are not flat plans' parts");
    }
    return out;
  }
  need(!p.grid_split, "grid_split is an outer plan's part");
  need(!p.staged, "staged outputs are an outer plan's part");
  need(p.smem_rows == 0, "smem_rows (held rows in shared memory) is an outer plan's part");
  need(!p.one_row, "one_row is a pointwise plan's part");
  need(p.row_unroll == 1, "row_unroll is a pointwise plan's part");
  need(!p.shift || (p.batch > 0 && p.vec > 1 && p.col_vec == 0 && p.cluster == 1 && p.row_split == 1 && !p.prefetch_smem &&
                    p.weight_ring == 0),
       "inner: shift (inputs read at their own phase) is a held row's part (batch > 0) with vec > 1, without phased rows "
       "(col_vec), clusters, split rows or the shared-memory prefetch");
  need(p.threads_per_row >= 1 && p.rows_per_block >= 1 && p.threads == p.threads_per_row * p.rows_per_block,
       "threads = threads_per_row x rows_per_block");
  need(p.unroll == 1, "inner plans do not unroll");
  need(p.min_blocks >= 1, "min_blocks is at least 1");
  need(p.cluster == 1 || p.cluster == 2 || p.cluster == 4 || p.cluster == 8, "cluster is 1, 2, 4 or 8");
  need(p.dyn_smem >= 0, "dynamic shared memory is not negative");
  if (p.batch == 0)
    need(!p.prefetch && p.cluster == 1 && p.resident == 0 && p.col_vec == 0 && !p.recompute,
         "a looped row has no prefetch, cluster, resident weights, phased rows or recomputed values");
  need(!p.prefetch_smem || p.prefetch, "prefetch=smem needs the prefetch");
  // Its copies are 16-byte cp.async at the row's start, not at the row's phase.
  need(!p.prefetch_smem || p.col_vec == 0, "prefetch=smem needs aligned rows (no col_vec)");
  need(!p.ldg_weights || p.prefetch_smem, "ldg_weights goes with prefetch=smem");
  need(p.weight_ring == 0 || (p.prefetch_smem && p.rows_per_block == 1 && p.col_vec == 0),
       "a weight ring needs prefetch=smem, one row per block and aligned rows");
  need(!p.tickets || (p.prefetch && !p.prefetch_smem && p.cluster == 1 && p.threads_per_row > 32),
       "tickets need the prefetch in registers, no cluster and rows of more than a warp");
  need(p.cluster == 1 || p.rows_per_block == 1, "a cluster shares one row per block");
  need(p.row_split >= 1, "row_split is at least 1");
  need(p.row_split == 1 || (p.cluster == 1 && p.rows_per_block == 1 && !p.prefetch && !p.tickets && p.resident == 0 &&
                            p.col_vec == 0 && p.weight_ring == 0),
       "row_split: one row per block, no cluster, prefetch, tickets, resident weights, weight ring or phased rows");
  need(p.resident == 0 || (!p.prefetch_smem && p.col_vec == 0), "resident weights exclude prefetch=smem and phased rows");
  need(p.col_vec == 0 || (p.col_vec < p.vec && p.vec % p.col_vec == 0), "col_vec divides vec and is smaller");
  bool staged = false;
  for (const OperandPlan& o : operands) staged |= o.access == Access::Staged;
  need(!staged || (p.batch > 0 && p.cluster == 1 && p.row_split == 1 && p.col_vec == 0 && !p.prefetch_smem &&
                         p.resident == 0 && p.weight_ring == 0),
       "inner: staged operands need held rows (batch) without cluster, row_split, phased rows, prefetch=smem, resident "
       "weights or a weight ring");
  bool row_input = false;
  for (const OperandPlan& o : operands) row_input |= !o.is_output && o.access == Access::Full;
  need(!p.prefetch || row_input, "the prefetch needs an input that varies along the row");
  return out;
}

void KernelPlan::validate() const {
  const auto bad = problems();
  if (bad.empty()) return;
  std::string why;
  for (const auto& b : bad) why += "\n  " + b;
  throw Error("plan for kernel " + name + " (" + params.str() + ") is impossible:" + why);
}

std::string KernelPlan::describe(const Fusion& f) const {
  std::string s = name + " (" + kernel_category_name(shape.category) + ")\n    params: " + params.str() + "\n    operands:";
  for (const auto& o : operands)
    s += " " + f.value(o.value).name + (o.is_output ? "(out," : "(in,") + access_text(o) + ")";
  return s;
}

bool staged_tile_vectors(const KernelParams& p, int es) { return p.vec > 1 && p.vec * es >= 4 && p.vec * es <= 16; }

// Rows of the tile start at a pitch of `target` bytes modulo 128: a warp copying columns' runs
// of RPB rows (RPB lanes per column, 32 / RPB columns) then writes 32 distinct banks, where
// target is 128 / RPB (RPB rounded down to a power of two); at least a vector's bytes, so that
// VEC-element reads along a row stay aligned.
int64_t staged_tile_pitch(const KernelParams& p, int es) {
  int rpb2 = 1;
  while (rpb2 * 2 <= p.rows_per_block && rpb2 < 128) rpb2 *= 2;
  const int64_t target = std::max<int64_t>({int64_t{es}, 128 / rpb2, staged_tile_vectors(p, es) ? int64_t{p.vec} * es : 0}) % 128;
  const int64_t cols = int64_t{p.batch} * p.threads_per_row * p.vec, base = cols * es;
  return cols + ((target - base % 128) % 128 + 128) % 128 / es;
}
int64_t staged_tile_bytes(const KernelParams& p, int es) {
  return (int64_t{p.rows_per_block} * staged_tile_pitch(p, es) * es + 15) / 16 * 16;
}

}  // namespace solder
