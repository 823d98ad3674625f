#include "schedule/launch_facts.h"

#include <algorithm>
#include <cstdint>
#include <numeric>

#include "solder/error.h"

namespace solder {

namespace {

enum Part { None, Linear, Strided };
// How an operand with kernel-order strides `st` is addressed over [R, C]; its row stride, and
// the parts of its rows and columns.
Access classify(const std::vector<int64_t>& dims, const std::vector<int64_t>& st, int split, int64_t& ld,
                Part* rows_out = nullptr, Part* cols_out = nullptr) {
  const int rank = static_cast<int>(dims.size());
  // Dims [lo, hi) of size > 1: none varies, all vary as one linear index, or anything else.
  auto part = [&](int lo, int hi, bool need_unit, int64_t& stride_out) -> Part {
    std::vector<int> rel;
    for (int d = lo; d < hi; ++d)
      if (dims[d] > 1) rel.push_back(d);
    const bool any = std::any_of(rel.begin(), rel.end(), [&](int d) { return st[d] != 0; });
    const bool all = std::all_of(rel.begin(), rel.end(), [&](int d) { return st[d] != 0; });
    if (!any) return None;
    if (!all) return Strided;
    for (size_t i = 0; i + 1 < rel.size(); ++i)
      if (st[rel[i]] != st[rel[i + 1]] * dims[rel[i + 1]]) return Strided;
    stride_out = st[rel.back()];
    if (need_unit && stride_out != 1) return Strided;
    return Linear;
  };
  int64_t row_ld = 0, col_st = 0;
  const Part r = part(0, split, false, row_ld);
  const Part c = part(split, rank, true, col_st);
  ld = row_ld;
  if (rows_out) *rows_out = r;
  if (cols_out) *cols_out = c;
  if (r == Strided || c == Strided) return Access::General;
  if (r == None && c == None) return Access::Scalar;
  if (r == Linear && c == None) return Access::Row;
  if (r == None && c == Linear) return Access::Col;
  return Access::Full;
}

std::string kernel_name(const Fusion& f, const Segment& s, int index, bool has_elem_outputs) {
  std::string cat = s.category == KernelCategory::Pointwise ? "pw"
                    : s.category == KernelCategory::Full    ? "red"
                    : has_elem_outputs                      ? "norm"
                                                            : "red";
  std::string name = "solder_" + cat;
  std::vector<std::string> seen;
  for (int ni : s.nodes) {
    std::string op = op_name(f.nodes()[ni].op);
    if (std::find(seen.begin(), seen.end(), op) != seen.end()) continue;
    seen.push_back(op);
    if (seen.size() <= 4) name += "_" + op;
  }
  return name + "_" + std::to_string(index);
}

// Reductions: the reduced dims [split, rank) in the memory order of the first input that
// varies along all of them (outermost first; stable, dims it does not vary along first), so
// a reduction over several axes of a permuted view (a mean over [1, 2] of a [B, M, K] whose
// last two dims are swapped in memory) reads that input as rows, not one element at a time.
// The order in which a reduction visits its elements is free; spans follow the new order.
void reduced_dims_in_memory_order(KernelShape& ks, LaunchFacts& lf) {
  const int rank = static_cast<int>(ks.dim_order.size()), split = ks.split;
  if (rank - split < 2 || ks.num_inputs == 0) return;
  const OperandFacts* ref = nullptr;
  for (int k = 0; k < ks.num_inputs && !ref; ++k) {
    bool all = true;
    for (int d = split; d < rank; ++d)
      if (lf.dims[d] > 1 && lf.operands[k].strides[d] == 0) all = false;
    if (all) ref = &lf.operands[k];
  }
  if (!ref) return;
  std::vector<int> order(rank);  // new position -> old position
  for (int d = 0; d < rank; ++d) order[d] = d;
  auto key = [&](int d) { return lf.dims[d] > 1 ? ref->strides[d] : INT64_MAX; };
  std::stable_sort(order.begin() + split, order.end(), [&](int a, int b) { return key(a) > key(b); });
  bool same = true;
  for (int d = 0; d < rank; ++d) same &= order[d] == d;
  if (same) return;
  // Only where the input's reduced dims then collapse to one linear index (a row it reads
  // contiguously or at one stride): otherwise the order is kept (no kernel changes for nothing).
  std::vector<int> rel;
  for (int d = split; d < rank; ++d)
    if (lf.dims[order[d]] > 1) rel.push_back(order[d]);
  for (size_t i = 0; i + 1 < rel.size(); ++i)
    if (ref->strides[rel[i]] != ref->strides[rel[i + 1]] * lf.dims[rel[i + 1]]) return;
  auto permute = [&](auto& v) {
    auto old = v;
    for (int d = 0; d < rank; ++d) v[d] = old[order[d]];
  };
  permute(ks.dim_order);
  permute(lf.dims);
  for (OperandFacts& of : lf.operands) permute(of.strides);
  for (uint32_t& m : ks.span) {
    uint32_t n = m & ((1u << split) - 1);
    for (int d = split; d < rank; ++d)
      if (m & (1u << order[d])) n |= 1u << d;
    m = n;
  }
}

}  // namespace

LaunchFacts make_facts(const Fusion& f, const Segment& s, KernelShape& ks, const std::vector<int64_t>& domain,
                       const std::vector<std::vector<int64_t>>& shapes, const std::vector<std::vector<int64_t>>& strides,
                       const std::vector<uint64_t>& addresses) {
  LaunchFacts lf;
  const int rank = static_cast<int>(ks.dim_order.size());
  for (int pos = 0; pos < rank; ++pos) lf.dims.push_back(domain[ks.dim_order[pos]]);
  for (size_t k = 0; k < ks.operands.size(); ++k) {
    int v = ks.operands[k];
    const Value& val = f.value(v);
    OperandFacts of{val.dtype, std::vector<int64_t>(rank, 0), addresses[k]};
    // Map the operand's dims onto domain dims (original order), then to kernel order.
    std::vector<int> dom_of(shapes[k].size(), -1);
    const Node* red = val.producer >= 0 ? &f.nodes()[val.producer] : nullptr;
    if (red && op_info(red->op).kind == OpKind::Reduction && !red->attrs.keepdim &&
        std::find(s.nodes.begin(), s.nodes.end(), val.producer) != s.nodes.end()) {
      size_t j = 0;
      for (int d = 0; d < rank && j < dom_of.size(); ++d)
        if (!std::binary_search(red->attrs.axes.begin(), red->attrs.axes.end(), d)) dom_of[j++] = d;
    } else {
      int off = rank - static_cast<int>(shapes[k].size());
      for (size_t i = 0; i < shapes[k].size(); ++i) dom_of[i] = off + static_cast<int>(i);
    }
    for (size_t i = 0; i < shapes[k].size(); ++i) {
      if (dom_of[i] < 0 || shapes[k][i] == 1) continue;
      int pos = static_cast<int>(std::find(ks.dim_order.begin(), ks.dim_order.end(), dom_of[i]) - ks.dim_order.begin());
      of.strides[pos] = strides[k][i];
    }
    lf.operands.push_back(std::move(of));
  }
  // Pointwise kernels: the widest column block that every operand addresses linearly. Dims an
  // operand does not walk contiguously (a slice of a wider tensor, a permuted input) stay rows,
  // so the operand is still read as 16-byte vectors along its rows, not element by element.
  auto any_general = [&](int split) {
    bool general = false;
    for (OperandFacts& of : lf.operands) {
      of.access = classify(lf.dims, of.strides, split, of.ld);
      general |= of.access == Access::General;
    }
    return general;
  };
  if (ks.category == KernelCategory::Inner || ks.category == KernelCategory::Full) reduced_dims_in_memory_order(ks, lf);
  // Full reductions likewise (their order is free): a reduction of a slice of a wider tensor
  // reads it as rows at its row stride, vectors along each row, not one element at a time.
  if (ks.category == KernelCategory::Pointwise || ks.category == KernelCategory::Full)
    while (ks.split + 1 < rank && any_general(ks.split)) ++ks.split;
  any_general(ks.split);
  for (int pos = 0; pos < rank; ++pos) (pos < ks.split ? lf.R : lf.C) *= lf.dims[pos];
  return lf;
}

KernelPlan base_plan(const Fusion& f, const Segment& s, int index, const KernelShape& ks, const LaunchFacts& facts) {
  KernelPlan plan;
  plan.shape = ks;
  bool has_elem_outputs = false;
  for (size_t k = 0; k < ks.operands.size(); ++k) {
    OperandPlan op{ks.operands[k], static_cast<int>(k) >= ks.num_inputs, facts.operands[k].access};
    if (op.is_output && (op.access == Access::Full || op.access == Access::Col)) has_elem_outputs = true;
    plan.operands.push_back(op);
  }
  plan.name = kernel_name(f, s, index, has_elem_outputs);
  return plan;
}

FlatColumns flat_columns(const LaunchFacts& facts, int k, int split) {
  const OperandFacts& of = facts.operands.at(k);
  if (of.access != Access::General) return {of.access, false};
  int64_t ld = 0;
  Part r = None, c = None;
  classify(facts.dims, of.strides, split, ld, &r, &c);
  return {c == None ? Access::Row : c == Linear ? Access::Full : Access::General, r == Strided};
}

bool row_steps_divisible(const LaunchFacts& facts, int k, int split, int vec) {
  const OperandFacts& of = facts.operands.at(k);
  for (int d = 0; d < split && d < static_cast<int>(facts.dims.size()); ++d)
    if (facts.dims[d] > 1 && of.strides[d] % vec) return false;
  return true;
}

bool flat_segments(const LaunchFacts& facts, int k, int split, int vec) {
  const OperandFacts& of = facts.operands.at(k);
  if (of.address % (static_cast<uint64_t>(vec) * dtype_size(of.dtype))) return false;
  int64_t dense = facts.C;
  for (int d = std::min(split, static_cast<int>(facts.dims.size())) - 1; d >= 0; --d) {
    if (facts.dims[d] > 1 && of.strides[d] != dense && (dense % vec || of.strides[d] % vec)) return false;
    dense *= facts.dims[d];
  }
  return true;
}

std::string flat_vectors_misfit(const KernelPlan& plan, const LaunchFacts& facts) {
  const KernelParams& p = plan.params;
  if (p.vec <= 1 || p.interleave) return "";  // interleaved: every operand element by element
  // Shift plans read a cat's Full pieces at their own phase; their windows are the scheduler's
  // shift_windows_allow (flat_plans.cpp), checked at these same facts.
  if (!p.shift && !windows_fit(facts, p.vec))
    return "a cat's piece (a pad or window) begins or ends inside a vector along the rows, or the rows are not a multiple of it";
  const int split = plan.shape.split;
  const int rank = static_cast<int>(facts.dims.size());
  if (p.shift && rank - split >= 2 && facts.dims[rank - 1] < p.vec)  // a lane's window index wraps once
    return "the innermost dim (" + std::to_string(facts.dims[rank - 1]) + ") is shorter than a vector (shift)";
  const bool by_element = p.col_vec == 1, phased = by_element && !p.one_row;
  std::vector<int64_t> first;  // phased rows: the first row-varying operand's phases
  for (size_t k = 0; k < plan.operands.size(); ++k) {
    const OperandPlan& o = plan.operands[k];
    const OperandFacts& of = facts.operands[k];
    const bool vector = o.access == Access::Full ? !one_row_dims_by_element(p, o)
                                                 : o.access == Access::Col && !by_element;
    if (!vector) continue;
    const uint64_t es = dtype_size(of.dtype), bytes = es * p.vec;
    const std::string name = "operand " + std::to_string(k);
    if (p.one_row && by_element && o.rows_by_dim) {
      if (!flat_segments(facts, static_cast<int>(k), split, p.vec))
        return name + "'s vectors of " + std::to_string(p.vec) + " at the flat index do not lie in one aligned run of it";
      continue;
    }
    if (p.shift && o.access == Access::Full && !o.is_output) {  // read at its own phase
      if (of.address % es) return name + " is not element-aligned";
      continue;
    }
    if (phased && o.access == Access::Full) {
      if (of.address % es) return name + " is not element-aligned";
      std::vector<int64_t> ph{static_cast<int64_t>(of.address / es % p.vec)};
      for (int d = 0; d < split; ++d)
        if (facts.dims[d] > 1) ph.push_back(of.strides[d] % p.vec);
      if (first.empty()) first = ph;
      else if (ph != first) return name + "'s rows are at another phase than the first row-varying operand's";
      continue;
    }
    if (of.address % bytes) return name + " is not aligned to vectors of " + std::to_string(p.vec);
    const bool dense = p.one_row && o.access == Access::Full && !o.rows_by_dim;
    if (o.access == Access::Full && !dense && facts.R > 1 && !row_steps_divisible(facts, static_cast<int>(k), split, p.vec))
      return name + "'s rows do not start at multiples of " + std::to_string(p.vec) + " elements";
  }
  return "";
}

bool general_segments(const LaunchFacts& facts, int k, int vec) {
  const OperandFacts& of = facts.operands.at(k);
  const int rank = static_cast<int>(facts.dims.size());
  if (rank == 0 || facts.dims[rank - 1] % vec || of.strides[rank - 1] != 1) return false;
  if (of.address % (static_cast<uint64_t>(vec) * dtype_size(of.dtype))) return false;
  for (int d = 0; d + 1 < rank; ++d)
    if (facts.dims[d] > 1 && of.strides[d] % vec) return false;
  return true;
}

int widest_vector_operand(const KernelPlan& plan, const LaunchFacts& facts) {
  int widest = 1;
  for (size_t k = 0; k < plan.operands.size(); ++k)
    if (plan.operands[k].access == Access::Full || plan.operands[k].access == Access::Col)
      widest = std::max(widest, dtype_size(facts.operands[k].dtype));
  return widest;
}

int widest_vec(const KernelPlan& plan, const LaunchFacts& facts, bool tail_ok) {
  int vec = 16 / widest_vector_operand(plan, facts);
  for (; vec > 1; vec /= 2) {
    bool ok = tail_ok || facts.C % vec == 0;
    for (size_t k = 0; k < plan.operands.size() && ok; ++k) {
      const Access a = plan.operands[k].access;
      if (a != Access::Full && a != Access::Col) continue;
      const uint64_t bytes = static_cast<uint64_t>(vec) * dtype_size(facts.operands[k].dtype);
      if (facts.operands[k].address % bytes) ok = false;
      if (a == Access::Full && !row_steps_divisible(facts, static_cast<int>(k), plan.shape.split, vec)) ok = false;
    }
    if (ok) break;
  }
  return vec;
}

int phase_step(const KernelPlan& plan, const LaunchFacts& facts, int v) {
  int phase = -1, ld = -1;
  for (size_t k = 0; k < plan.operands.size(); ++k) {
    const Access a = plan.operands[k].access;
    const uint64_t es = dtype_size(facts.operands[k].dtype);
    if (a == Access::General || (plan.operands[k].is_output && a == Access::Col)) return 0;
    if (a != Access::Full) continue;
    if (facts.operands[k].address % es) return 0;
    const int ph = static_cast<int>(facts.operands[k].address / es % v), l = static_cast<int>(facts.operands[k].ld % v);
    if ((phase >= 0 && ph != phase) || (ld >= 0 && l != ld)) return 0;
    phase = ph;
    ld = l;
  }
  if (phase < 0) return 0;
  const int g = std::gcd(v, std::gcd(phase, std::gcd(ld, static_cast<int>(facts.C % v))));
  for (size_t k = 0; k < plan.operands.size(); ++k)
    if (plan.operands[k].access == Access::Col &&
        facts.operands[k].address % (static_cast<uint64_t>(g) * dtype_size(facts.operands[k].dtype)))
      return 0;
  return g;
}

int shifted_inner_vec(const KernelPlan& plan, const LaunchFacts& facts) {
  for (size_t k = 0; k < plan.operands.size(); ++k) {
    const OperandPlan& o = plan.operands[k];
    const OperandFacts& of = facts.operands[k];
    if (o.access == Access::General || o.access == Access::Staged) return 1;
    if (o.access != Access::Full || o.is_output) continue;
    if (of.address % static_cast<uint64_t>(dtype_size(of.dtype))) return 1;
    if (facts.R > 1 && (of.ld < 0 ? -of.ld : of.ld) < facts.C) return 1;
  }
  int vec = 16 / widest_vector_operand(plan, facts);
  for (; vec > 1; vec /= 2) {
    bool ok = facts.C % vec == 0;
    for (size_t k = 0; k < plan.operands.size() && ok; ++k) {
      const Access a = plan.operands[k].access;
      if ((a != Access::Full && a != Access::Col) || (a == Access::Full && !plan.operands[k].is_output)) continue;
      if (facts.operands[k].address % (static_cast<uint64_t>(vec) * dtype_size(facts.operands[k].dtype))) ok = false;
      if (a == Access::Full && !row_steps_divisible(facts, static_cast<int>(k), plan.shape.split, vec)) ok = false;
    }
    if (ok) break;
  }
  return vec;
}

int64_t bound_value(const std::vector<Dim>& symbolic, const LaunchFacts& facts, const Dim& d) {
  if (const auto c = d.const_value()) return *c;
  const int slot = bound_slot(symbolic, d);
  if (slot < 0 || slot >= static_cast<int>(facts.bounds.size()))
    throw Error("schedule: the bound " + d.str() + " of a pad or window has no value at this launch");
  return facts.bounds[slot];
}

bool windows_fit(const LaunchFacts& facts, int vec) {
  if (!facts.windowed || facts.dims.empty()) return true;
  if (facts.dims.back() % vec) return false;
  return std::all_of(facts.window_cuts.begin(), facts.window_cuts.end(), [&](int64_t c) { return c % vec == 0; });
}

void add_window_facts(const Fusion& f, const Segment& s, const KernelShape& ks, LaunchFacts& facts) {
  const std::vector<Dim> symbolic = symbolic_bounds(f, s);
  const int rank = static_cast<int>(ks.dim_order.size());
  for (int ni : s.nodes)  // pads are read by the nodes, windows computed inline for them
    for (int v : f.nodes()[ni].in)
      for (int u : pad_chain(f, v)) {  // a pad of several dims: each
        const Node* n = pad_or_window(f, u);
        facts.windowed = true;
        if (rank == 0 || facts.dims.empty() || window_dim(f, ks, u) != rank - 1) continue;
        const int64_t lo = bound_value(symbolic, facts, n->attrs.bound_start),
                      end = bound_value(symbolic, facts, n->attrs.bound_end);
        facts.window_cuts.push_back(lo);
        facts.window_cuts.push_back(n->op == Op::Window ? end : facts.dims[rank - 1] - end);
      }
}

}  // namespace solder
