#pragma once
// Internal to codegen: the state and helpers shared by the kernel templates (flat: pointwise
// and full reduction; inner: row reductions and persistent normalization).
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "codegen/device_runtime.h"
#include "codegen/expr_emitter.h"
#include "codegen/kernel_codegen.h"
#include "codegen/param_layout.h"
#include "schedule/stages.h"
#include "solder/error.h"

namespace solder::codegen_detail {

inline std::string I(int n) { return std::string(static_cast<size_t>(n) * 2, ' '); }
inline std::string num(long long v) { return std::to_string(v); }

inline const char* red_struct(Op kind) {
  switch (kind) {
    case Op::Max: return "RedMax";
    case Op::Min: return "RedMin";
    default: return "RedSum";
  }
}

// Accumulators: bools reduce as ints (shuffles and atomics have no bool form).
inline DType accumulator_dtype(DType out) { return out == DType::Bool ? DType::I32 : out; }

// Bytes of a value of dtype t in registers (compute_type): f16/bf16/fp8 are floats there.
inline int compute_bytes(DType t) {
  const std::string ct = compute_type(t);
  return ct == "double" || ct == "i64" ? 8 : ct == "bool" ? 1 : 4;
}

// Identity of a reduction in the accumulator type.
inline std::string red_identity(Op kind, DType acc) {
  if (kind == Op::Max || kind == Op::Min) {
    bool mx = kind == Op::Max;
    switch (acc) {
      case DType::I32: return mx ? "(int)(-2147483647 - 1)" : "(int)2147483647";
      case DType::I64: return mx ? "(i64)(-9223372036854775807LL - 1)" : "(i64)9223372036854775807LL";
      case DType::Bool: return mx ? "false" : "true";
      default: return literal(acc, mx ? -INFINITY : INFINITY);
    }
  }
  return std::string("(") + compute_type(acc) + ")0";
}

inline std::string combine(Op kind, const std::string& a, const std::string& b) {
  if (kind == Op::Max) return "s_max(" + a + ", " + b + ")";
  if (kind == Op::Min) return "s_min(" + a + ", " + b + ")";
  return a + " + " + b;
}

// The loop over pairs of elements ahead of an element loop (the flat and inner templates):
// f16/bf16 values that native ops make come two to a register, one f16x2/bf16x2 instruction per
// pair (`pe`, in pairs mode); each value the element loop reads lies in an array p<v>[VEC / 2].
// On single halves ptxas paired the ops its own way and re-packed lanes around them.
struct PairLoop {
  ExprEmitter pe;
  std::string body;                   // the loop's body (at indent + 1)
  std::map<int, std::string> arrays;  // value -> its array
  std::string indent;
  PairLoop(const Fusion& f, std::string ind) : pe(f, [](int) { return std::string(); }), indent(std::move(ind)) {
    pe.set_pairs(true);
  }
  // The word holding value v's element j ("p<v>[j / 2]"), computed in the loop; "" where the
  // pair emitter has no bits for v.
  std::string word(int v) {
    if (auto it = arrays.find(v); it != arrays.end()) return it->second + "[j / 2]";
    const std::string e = pe.raw_bits(v, body, indent + I(1));
    if (e.empty()) return "";
    arrays[v] = "p" + std::to_string(v);
    body += indent + I(1) + "p" + std::to_string(v) + "[j2] = " + e + ";\n";
    return "p" + std::to_string(v) + "[j / 2]";
  }
  // The arrays' declarations and the loop, to insert ahead of the element loop ("" if empty).
  std::string loop() const {
    if (body.empty()) return "";
    std::string out;
    for (const auto& [v, name] : arrays) out += indent + "unsigned " + name + "[VEC / 2];\n";
    return out + "#pragma unroll\n" + indent + "for (int j2 = 0; j2 < VEC / 2; ++j2) {\n" + body + indent + "}\n";
  }
};

// Shared state of one kernel being written.
struct Writer {
  const Fusion& f;
  const Segment& seg;
  const KernelPlan& plan;
  const KernelShape& ks;
  StagePlan sp;
  std::string code;
  std::map<int, int> operand_index;  // value id -> operand slot
  int vec;
  std::vector<Dim> bounds;  // symbolic pad/window bounds: p.bound[i]

  Writer(const Fusion& fu, const Segment& s, const KernelPlan& p)
      : f(fu), seg(s), plan(p), ks(p.shape), sp(plan_stages(fu, s, p.shape, p.params.batch > 0, p.params.recompute)), vec(p.params.vec),
        bounds(symbolic_bounds(fu, s)) {
    for (size_t k = 0; k < p.operands.size(); ++k)
      if (!p.operands[k].is_output) operand_index[p.operands[k].value] = static_cast<int>(k);
  }

  DType dt(int v) const { return f.value(v).dtype; }
  const OperandPlan& op(int k) const { return plan.operands[k]; }
  std::string ptr(int k) const { return "P" + num(k); }
  bool is_input(int v) const { return operand_index.count(v) > 0; }
  bool vectorized(int k) const {
    if (vec <= 1) return unit_vectors && (op(k).access == Access::Full || op(k).access == Access::Col);
    if (plan.params.interleave) return false;  // a thread's elements lie 32 apart
    if (op(k).access == Access::Staged) return staged.count(k) && staged_tile_vectors(plan.params, dtype_size(dt(op(k).value)));
    if (op(k).access == Access::Full) return !(cols_by_element() && one_row_dims_by_element(plan.params, op(k)));
    if (op(k).access == Access::General) return op(k).segments;  // a vector from goff of its first element
    return op(k).access == Access::Col && !cols_by_element();
  }
  // Flat phase-shifted rows (col_vec=1), or one row of R x C whose rows are not vec-aligned:
  // weights are not aligned with the vectors and are read element by element.
  bool cols_by_element() const {
    return plan.params.col_vec == 1 &&
           (plan.shape.category == KernelCategory::Pointwise || plan.shape.category == KernelCategory::Full);
  }

  // Persistent rows: the slot of batch b's vector in the row (a cluster's blocks interleave).
  std::string row_slot() const {
    return plan.params.cluster > 1 || plan.params.row_split > 1 ? "(b * RT + rt)" : "(b * TPR + tr)";
  }

  // Operands whose row base `R<k> = P<k> + rowc * ld` the kernel computes once per row (the
  // persistent kernels): addresses at row "rowc" are then that base plus the column.
  std::set<int> row_based;
  // Weights (Col operands) through the read-only path: set where registers allow (write_inner).
  bool nc_weights = false;
  // Resident weights (plan.params.resident): operand slot -> the byte offset in dynamic shared
  // memory of its copies, one vector per thread and batch (write_inner).
  std::map<int, std::string> resident;
  // Staged operands of inner plans (Access::Staged): operand slot -> the byte offset in dynamic
  // shared memory of its tile (rows of the block at staged_tile_pitch), set by write_inner.
  std::map<int, std::string> staged;
  std::string staged_at(int k, const std::string& col) const {
    const int es = dtype_size(dt(op(k).value));
    return "dsm + " + staged.at(k) + "u + (unsigned)(ry * " + num(staged_tile_pitch(plan.params, es)) + " + (int)(" + col + ")) * " +
           num(es) + "u";
  }
  std::string addr(int k, const std::string& row, const std::string& col) const {
    if (row == "rowc" && row_based.count(k)) return "R" + num(k) + " + " + col;
    return ptr(k) + " + " + offset(k, row, col);
  }
  std::string elem_ref(int k, const std::string& row, const std::string& col) const {
    if (staged.count(k)) return "ld_shared_elem<" + std::string(storage_type(dt(op(k).value))) + ">(" + staged_at(k, col) + ")";
    if (row == "rowc" && row_based.count(k)) return "R" + num(k) + "[" + col + "]";
    return ptr(k) + "[" + offset(k, row, col) + "]";
  }

  // Flat kernels (write_flat): the row part of a General or rows_by_dim operand's offset apart
  // from its columns; at "row", the base the kernel computed once per row (operand slot ->
  // variable).
  bool flat_rows = false;
  std::map<int, std::string> row_base;
  // Flat rows in flight with index32 (write_flat): "row" is an int and a row's offset at a row
  // stride 32-bit (every offset fits 31 bits: fits_index32), fewer registers per row held.
  bool rows32 = false;
  // Flat rows in flight at VEC 1 (write_flat): dense operands' elements as vectors of one, so
  // their loads go ahead of the rows' math as vectors' do.
  bool unit_vectors = false;
  // Flat element loops: element j's distance from the chunk's first (32 j where a warp's lanes
  // take consecutive elements: plan.params.interleave).
  std::string lane_step() const { return plan.params.interleave ? "32 * j" : "j"; }
  bool split_rows(int k) const { return flat_rows && (op(k).rows_by_dim || op(k).access == Access::General); }
  std::string flat_row_part(int k, const std::string& row) const {
    if (row == "row" && row_base.count(k)) return row_base.at(k);
    if (op(k).rows_by_dim) return "roff(p, " + num(k) + ", " + row + ")";
    return "(" + row + ") * p.ld[" + num(k) + "]";
  }

  // Element offset of operand k at (row, col) for non-vector access.
  std::string offset(int k, const std::string& row, const std::string& col) const {
    // One row of R x C: a dense operand (ld = C) lies at the element's index in the row
    // (vector i0's element j), whatever its row.
    if (flat_rows && plan.params.one_row && op(k).access == Access::Full && !op(k).rows_by_dim) {
      if (col == "col0") return "i0";
      if (col == "col") return "(i0 + " + lane_step() + ")";
    }
    if (split_rows(k)) {
      const std::string base = flat_row_part(k, row);
      if (op(k).access == Access::Row) return base;
      if (op(k).access == Access::Full) return base + " + " + col;
      return base + " + coff(p, " + num(k) + ", " + col + ")";
    }
    const std::string at_row = rows32 ? "(int)(" + row + ") * (int)p.ld[" + num(k) + "]" : "(" + row + ") * p.ld[" + num(k) + "]";
    switch (op(k).access) {
      case Access::Scalar: return "0";
      case Access::Row: return at_row;
      case Access::Col: return col;
      case Access::Full: return at_row + " + " + col;
      case Access::General: return "goff(p, " + num(k) + ", " + row + ", " + col + ")";
      case Access::Staged: break;  // transpose plans address their own; inner plans' are in `staged`
    }
    return "0";
  }

  // Windows and pads (a cat's pieces read in one kernel, passes/cat_pieces.cpp): whether value
  // v (a window, or a pad that an operand reads) covers the element at (row, col): its index
  // along the axis in [lo, hi). Empty for any other value.
  // `lane`: the element's offset from `col` inside a vector chunk (which never crosses an index
  // of the dims outside the innermost: the scheduler aligns vec), so the chunk's index is formed
  // once and each element adds its lane along the innermost dim.
  // A pad of several dims (pad_chain): inside each.
  std::string window_of(int v, const std::string& row, const std::string& col, const std::string& lane = "") const {
    std::string all;
    for (int u : pad_chain(f, v)) all += (all.empty() ? "" : " && ") + one_window(u, row, col, lane);
    return all;
  }
  std::string one_window(int v, const std::string& row, const std::string& col, const std::string& lane) const {
    std::string idx, lo, hi, wrap;
    if (!window_parts(v, row, col, lane, idx, lo, hi, &wrap)) return "";
    if (!wrap.empty())
      return "(window_lanes((int)(" + idx + "), " + lo + ", " + hi + ", (int)" + wrap + ") >> (" + lane + ") & 1u)";
    if (plan.params.index32 && window_divides(v) && lo == "0") return "(" + idx + " < " + hi + ")";  // unsigned
    return "(" + idx + " >= " + lo + " && " + idx + " < " + hi + ")";
  }
  // With index32 a window's divisions (window_divides) are unsigned 32-bit.
  bool window_divides(int v) const { return solder::window_divides(f, ks, v); }
  // window_of's parts: the element's index along the axis and the window's bounds [lo, hi).
  // With shift plans, vectors need not divide the innermost dim, so a lane's index along it
  // wraps once past its end (launch_grid keeps vec at most that dim). Given `wrap`, a 32-bit
  // lane's wrap is left to window_lanes: idx is then the vector's index and *wrap the dim.
  bool window_parts(int v, const std::string& row, const std::string& col, const std::string& lane, std::string& idx,
                    std::string& lo, std::string& hi, std::string* wrap = nullptr) const {
    const int kd = window_dim(v);
    if (kd < 0) return false;
    const Node& n = *pad_or_window(f, v);
    const int rank = static_cast<int>(ks.dim_order.size());
    const bool in_cols = kd >= ks.split;
    const int last = in_cols ? rank - 1 : ks.split - 1, first = in_cols ? ks.split : 0;
    idx = in_cols ? col : row;
    // index32 (every index fits 30 bits: fits_index32): 32-bit divisions.
    const std::string u = plan.params.index32 ? "(unsigned)" : "";
    std::string below;
    for (int d = kd + 1; d <= last; ++d) below += (below.empty() ? "" : " * ") + u + "p.dims[" + num(d) + "]";
    if (window_divides(v)) idx = u + "(" + idx + ")";
    if (!below.empty()) idx = "(" + idx + ") / (" + below + ")";
    if (kd > first) idx = "(" + idx + ") % " + u + "p.dims[" + num(kd) + "]";
    // Without a shift or phased rows every cut along the innermost dim is a multiple of vec
    // and so is every vector's start (windows_fit, at each launch): a lane is where its vector
    // is, and the test is one per vector.
    if (!lane.empty() && in_cols && kd == rank - 1 && (plan.params.shift || cols_by_element())) {
      if (kd > first && wrap && plan.params.index32 && window_divides(v))
        *wrap = "p.dims[" + num(kd) + "]";
      else if (kd > first)
        idx = "(" + idx + " + " + lane + " - (" + idx + " + " + lane + " >= " + u + "p.dims[" + num(kd) + "] ? " + u + "p.dims[" + num(kd) +
              "] : 0))";
      else
        idx = "(" + idx + " + " + lane + ")";
    }
    lo = bound(n.attrs.bound_start);
    hi = n.op == Op::Window ? bound(n.attrs.bound_end) : "p.dims[" + num(kd) + "] - " + bound(n.attrs.bound_end);
    // Where the index is 32-bit (index32's divisions), the bounds are too: the parameters are
    // i64, and one of them in the test made every lane's index, its wrap and its compares 64-bit
    // (a RoPE's halves of 2049 under a shift plan: 8 instructions a lane). Against a 64-bit
    // index (a column that is not divided) they stay i64: compares then read them from the
    // parameters, where an int bound took a register and a widening (a cat of f32 rows of 770).
    if (plan.params.index32 && window_divides(v)) {
      lo = int_bound(lo);
      hi = int_bound(hi);
    }
    return true;
  }
  // A window's bound as an int (index32: every bound fits 31 bits); a literal, or one already
  // cast, stays as it is.
  static std::string int_bound(const std::string& b) {
    return b.find("p.") == std::string::npos || b.rfind("(int)", 0) == 0 ? b : "(int)(" + b + ")";
  }
  int window_dim(int v) const { return solder::window_dim(f, ks, v); }
  // A pad's or window's bound: its constant, or the kernel parameter that holds its value.
  std::string bound(const Dim& d) const {
    if (const auto c = d.const_value()) return num(*c);
    const int slot = bound_slot(bounds, d);
    if (slot < 0) throw Error("codegen: the bound " + d.str() + " of a pad or window has no parameter");
    return "p.bound[" + num(slot) + "]";
  }

  void header() {
    code += "// Generated by solder: " + plan.name + "\n// plan: " + plan.key() + "\n";
    code += device_runtime_source();
    code += ParamLayout{static_cast<int>(plan.operands.size()), static_cast<int>(bounds.size())}.struct_text();
    const int rank = static_cast<int>(ks.dim_order.size());
    // General addressing: split row and column indices back into kernel dims.
    if (plan.params.index32 && plan.shape.category == KernelCategory::Inner) {
      // Inner plans reading General inputs per element: every index and offset fits 31 bits
      // (fits_index32), so the divisions are 32-bit multiply-highs (udiv31: the multiplier
      // depends on the dim alone, a kernel parameter, so it is made once per kernel, not per
      // element), and the outermost dim of each part takes no remainder (row < R, col < C).
      code += "__device__ __forceinline__ unsigned udiv31(unsigned n, unsigned d) {\n"
              "  const unsigned s = 32 - __clz(d - 1);  // n, d < 2^31 (index32)\n"
              "  const unsigned m = (unsigned)(((1ull << 32) * ((1ull << s) - d)) / d + 1);\n"
              "  return (__umulhi(n, m) + n) >> s;\n}\n";
      code += "__device__ __forceinline__ i64 goff(const Params& p, int k, i64 row64, i64 col64) {\n"
              "  int off = 0;\n  unsigned row = (unsigned)row64, col = (unsigned)col64, q;\n  (void)q;\n";
      auto part = [&](int hi, int lo, const std::string& x) {
        for (int d = hi; d > lo; --d)
          code += "  q = udiv31(" + x + ", (unsigned)p.dims[" + num(d) + "]); off += (int)(" + x + " - q * (unsigned)p.dims[" + num(d) +
                  "]) * (int)p.stride[k][" + num(d) + "]; " + x + " = q;\n";
        code += "  off += (int)" + x + " * (int)p.stride[k][" + num(lo) + "];\n";
      };
      if (rank > ks.split) part(rank - 1, ks.split, "col");
      if (ks.split > 0) part(ks.split - 1, 0, "row");
      code += "  return off;\n}\n";
      return;
    }
    code += "__device__ __forceinline__ i64 goff(const Params& p, int k, i64 row, i64 col) {\n  i64 off = 0;\n";
    for (int d = rank - 1; d >= ks.split; --d)
      code += "  off += (col % p.dims[" + num(d) + "]) * p.stride[k][" + num(d) + "]; col /= p.dims[" + num(d) + "];\n";
    for (int d = ks.split - 1; d >= 0; --d)
      code += "  off += (row % p.dims[" + num(d) + "]) * p.stride[k][" + num(d) + "]; row /= p.dims[" + num(d) + "];\n";
    code += "  return off;\n}\n";
  }

  // The kernel's register cap: the plan's max_registers, else __launch_bounds__ with
  // `min_blocks` resident blocks (0: no minimum).
  std::string launch_bounds(int min_blocks) const {
    if (plan.params.max_registers) return "__maxnreg__(" + num(plan.params.max_registers) + ")";
    return "__launch_bounds__(" + num(plan.params.threads) + (min_blocks ? ", " + num(min_blocks) : std::string()) + ")";
  }

  void pointers(int ind) {
    for (size_t k = 0; k < plan.operands.size(); ++k) {
      int v = op(static_cast<int>(k)).value;
      std::string t = storage_type(dt(v));
      if (op(static_cast<int>(k)).is_output)
        code += I(ind) + t + "* __restrict__ " + ptr(static_cast<int>(k)) + " = (" + t + "*)p.ptr[" + num(k) + "];\n";
      else
        code += I(ind) + "const " + t + "* __restrict__ " + ptr(static_cast<int>(k)) + " = (const " + t + "*)p.ptr[" + num(k) + "];\n";
    }
  }

  // Inputs (operand slots) that computing `targets` reads at element level in this context.
  std::vector<int> element_inputs(const std::vector<int>& targets, const std::function<bool(int)>& stop) const {
    std::set<int> seen, found;
    std::function<void(int)> visit = [&](int v) {
      if (!seen.insert(v).second || stop(v)) return;
      if (is_input(v)) {
        found.insert(operand_index.at(v));
        return;
      }
      const Value& val = f.value(v);
      if (val.producer < 0) return;
      for (int x : f.nodes()[val.producer].in) visit(x);
    };
    for (int t : targets) visit(t);
    return {found.begin(), found.end()};
  }

  // Vector inputs of 16-bit elements are held as 32-bit pairs (Vec<unsigned, VEC / 2>): held as
  // 16-bit lanes, a vector loaded under a condition (a prefetch) is re-merged lane by lane
  // (PRMT), and pair operations (f16x2) want the pairs as they are.
  bool in_pairs(int k) const { return vectorized(k) && in_pairs_dtype(k); }
  bool in_pairs_dtype(int k) const { return vec % 2 == 0 && std::string(storage_type(dt(op(k).value))) == "u16"; }
  std::string in_vec_type(int k) const {
    return in_pairs(k) ? "Vec<unsigned, " + num(vec / 2) + ">" : "Vec<" + std::string(storage_type(dt(op(k).value))) + ", " + num(vec) + ">";
  }
  // Phase-shifted rows (plan.params.col_vec > 0; see write_inner): the vector at `base` (its
  // first element's address), of which the elements in `lanes` lie in the row.
  std::string row_load(int k, const std::string& base, const std::string& lanes) const {
    const int g = op(k).access == Access::Col ? plan.params.col_vec : vec;
    if (in_pairs(k)) return "ld_row_pairs<" + num(vec) + ", " + num(g) + ">(" + base + ", " + lanes + ")";
    return "ld_row<" + std::string(storage_type(dt(op(k).value))) + ", " + num(vec) + ", " + num(g) + ">(" + base + ", " +
           lanes + ")";
  }
  // The load of operand k's vector at (row, col0), of type in_vec_type(k). Phase-shifted rows
  // at "rowc" name the slot's aligned offset `vi`, its first column `col0` and lanes `ln`.
  std::string vector_load(int k, const std::string& row, const std::string& col0) const {
    if (auto it = resident.find(k); it != resident.end() && row == "rowc")
      return "reinterpret_cast<const " + in_vec_type(k) + "*>(dyn_smem + " + it->second + ")[b * TPR + tr]";
    if (staged.count(k)) return "ld_shared<" + in_vec_type(k) + ">(" + staged_at(k, col0) + ")";
    if (plan.params.col_vec && row == "rowc")
      return row_load(k, op(k).access == Access::Col ? ptr(k) + " + col0" : "R" + num(k) + " + vi", "ln");
    const std::string ld = nc_weights && op(k).access == Access::Col ? "ld_vec_nc<" : "ld_vec<";
    if (in_pairs(k))
      return ld + "unsigned, " + num(vec / 2) + ">((const unsigned*)(" + addr(k, row, col0) + "))";
    const std::string t = storage_type(dt(op(k).value));
    return ld + t + ", " + num(vec) + ">(" + addr(k, row, col0) + ")";
  }
  // Shift plans (plan.params.shift, flat kernels): Full inputs read at their own phase `sh<k>`
  // (elements past an aligned vector, per row: write_flat's row setup).
  bool shifted(int k) const { return plan.params.shift && flat_rows && op(k).access == Access::Full && !op(k).is_output; }
  // The load of shifted operand k's vector at (row, col0): one aligned vector where its row is
  // aligned (sh 0) and the vector lies in the operand's elements; the two aligned vectors around
  // it, shifted, where both lie in them (the row's columns [0, C), and a pad's window); zeros
  // where every lane lies outside a pad's window; else element by element (a pad's elements
  // outside its window read as 0).
  void shifted_load(int k, int ind, const std::string& row, const std::string& col0) {
    const std::string kk = num(k), t = storage_type(dt(op(k).value)), type = in_vec_type(k), sh = "sh" + kk;
    const int es = dtype_size(dt(op(k).value));
    code += I(ind) + type + " in" + kk + ";\n" + I(ind) + "{\n";
    const int in = ind + 1;
    code += I(in) + "const " + t + "* a" + kk + " = " + ptr(k) + " + " + offset(k, row, col0) + ";\n";
    const int v = op(k).value, kd = window_dim(v), rank = static_cast<int>(ks.dim_order.size());
    std::string aligned_ok, pair_ok, valid_j, outside;
    const std::string in_row = "(" + col0 + " >= VEC && " + col0 + " + 2 * VEC - (i64)" + sh + " <= C)";
    if (kd < 0) {  // the row's own elements
      aligned_ok = "true";
      pair_ok = in_row;
    } else if (kd < ks.split) {  // a window over rows: the whole row in it or out
      code += I(in) + "const bool rw" + kk + " = " + window_of(v, row, col0) + ";\n";
      aligned_ok = "rw" + kk;
      pair_ok = "rw" + kk + " && " + in_row;
      valid_j = "rw" + kk;
    } else if (kd == rank - 1) {  // along the innermost dim: the vectors' lanes inside [lo, hi)
      std::string idx, lo, hi;
      window_parts(v, row, col0, "", idx, lo, hi);
      // index32: the tests in 32 bits, `wi` and the bounds (see window_parts) ints.
      if (plan.params.index32) {
        lo = int_bound(lo);
        hi = int_bound(hi);
      }
      const std::string ix = plan.params.index32 ? "int" : "i64", dim = plan.params.index32 ? "(int)p.dims[" + num(kd) + "]" : "p.dims[" + num(kd) + "]";
      code += I(in) + "const " + ix + " wi" + kk + " = " + idx + ";\n";
      const std::string wi = "wi" + kk, first = "(" + wi + " - (" + ix + ")" + sh + ")";
      aligned_ok = "(" + wi + " >= " + lo + " && " + wi + " + VEC <= " + hi + ")";
      pair_ok = "(" + first + " >= " + lo + " && " + first + " + 2 * VEC <= " + hi + ")";
      // Every lane outside the window (before it, or past it up to the next row's window,
      // lanes wrapping once): zeros, no loads. A cat of pads (rotate-half RoPE) has half its
      // vectors so in each piece.
      outside = "(" + wi + " + VEC <= " + lo + " || (" + wi + " >= " + hi + " && " + wi + " + VEC <= " + dim + " + " + lo + "))";
      valid_j = window_of(v, row, col0, "j");
    } else {  // along an outer column dim (vec divides the innermost: a chunk has one index there)
      aligned_ok = window_of(v, row, col0);
      pair_ok = "false";
      valid_j = window_of(v, row, col0, "j");
    }
    if (es * vec < 4) pair_ok = "false";  // the shift works on 32-bit words
    std::string whole;
    if (in_pairs(k)) whole = "ld_vec<unsigned, " + num(vec / 2) + ">((const unsigned*)a" + kk + ")";
    else whole = "ld_vec<" + t + ", " + num(vec) + ">(a" + kk + ")";
    code += I(in) + "if (" + sh + " == 0" + (aligned_ok == "true" ? std::string() : " && " + aligned_ok) + ") in" + kk + " = " + whole + ";\n";
    if (pair_ok != "false")
      code += I(in) + "else if (" + sh + " != 0 && " + pair_ok + ")\n" + I(in + 1) + "in" + kk + " = " +
              (in_pairs(k) ? "ld_shifted<unsigned, " + num(vec / 2) + ">((const unsigned*)(a" + kk + " - " + sh + ")"
                           : "ld_shifted<" + t + ", " + num(vec) + ">(a" + kk + " - " + sh) +
              ", " + sh + " * " + num(es) + "u);\n";
    if (!outside.empty()) code += I(in) + "else if (" + outside + ") in" + kk + " = " + type + "{};\n";
    code += I(in) + "else {\n" + I(in + 1) + "union { " + type + " v; " + t + " e[VEC]; } u;\n";
    code += "#pragma unroll\n" + I(in + 1) + "for (int j = 0; j < VEC; ++j) u.e[j] = " +
            (valid_j.empty() ? "a" + kk + "[j]" : valid_j + " ? a" + kk + "[j] : (" + t + ")0") + ";\n";
    code += I(in + 1) + "in" + kk + " = u.v;\n" + I(in) + "}\n" + I(ind) + "}\n";
  }
  // Inner held rows with shift (plan.params.shift, see write_inner): Full inputs read at their
  // own phase `sh<k>` (elements past an aligned vector, from the row's address once per row).
  bool inner_shifted(int k) const {
    return plan.params.shift && !flat_rows && plan.params.batch > 0 && op(k).access == Access::Full && !op(k).is_output;
  }
  // Whether inner shifted operand k's vector at column `col` of a row of phase `sh` takes its
  // elements one by one: only the row's first and last vectors in the first and last rows
  // (`edge`), whose aligned pair would reach outside the tensor (C % VEC == 0 and col < C, so
  // the pair otherwise lies in the aligned 16-byte chunks of the row's own elements, and the
  // lanes past the row are the neighbour rows' storage).
  static std::string inner_shift_by_element(const std::string& sh, const std::string& edge, const std::string& col) {
    return "(" + sh + " != 0u && " + edge + " && (" + col + " == 0 || " + col + " + VEC >= C))";
  }
  // Inner shifted operand k's two aligned vectors `lo`, `hi` (declared by the caller, of
  // in_vec_type(k)) around its elements at column `col` of the row whose element 0 is at `base`:
  // lo == hi where the row is aligned (sh 0: one vector), the elements themselves in lo (and hi)
  // where inner_shift_by_element. inner_shift_value makes the vector of them.
  std::string inner_shift_loads(int k, int ind, const std::string& base, const std::string& sh, const std::string& edge,
                                const std::string& col, const std::string& lo, const std::string& hi) const {
    const std::string t = storage_type(dt(op(k).value)), type = in_vec_type(k);
    auto ld = [&](const std::string& at) {
      return in_pairs(k) ? "ld_vec<unsigned, " + num(vec / 2) + ">((const unsigned*)(" + at + "))"
                         : "ld_vec<" + t + ", " + num(vec) + ">(" + at + ")";
    };
    std::string c = I(ind) + "if (" + inner_shift_by_element(sh, edge, col) + ") {\n";
    c += I(ind + 1) + "union { " + type + " v; " + t + " e[VEC]; } u;\n";
    c += "#pragma unroll\n" + I(ind + 1) + "for (int j = 0; j < VEC; ++j) u.e[j] = (" + base + ")[" + col + " + j];\n";
    c += I(ind + 1) + lo + " = u.v;\n" + I(ind + 1) + hi + " = u.v;\n" + I(ind) + "} else {\n";
    c += I(ind + 1) + lo + " = " + ld("(" + base + ") + " + col + " - " + sh) + ";\n";
    c += I(ind + 1) + hi + " = " + ld("(" + base + ") + " + col + " - " + sh + " + (" + sh + " ? VEC : 0)") + ";\n";
    return c + I(ind) + "}\n";
  }
  std::string inner_shift_value(int k, const std::string& sh, const std::string& edge, const std::string& col,
                                const std::string& lo, const std::string& hi) const {
    const std::string e = in_pairs(k) ? "unsigned, " + num(vec / 2) : std::string(storage_type(dt(op(k).value))) + ", " + num(vec);
    return "shift_pair<" + e + ">(" + lo + ", " + hi + ", " + inner_shift_by_element(sh, edge, col) + " ? 0u : " + sh + " * " +
           num(dtype_size(dt(op(k).value))) + "u)";
  }
  // Emits loads for element inputs of one vector chunk at (row, col0). Vector operands load
  // VEC elements at once; others are read per element inside the j-loop (see elem_input()).
  void vector_loads(const std::vector<int>& ks_in, int ind, const std::string& row, const std::string& col0) {
    for (int k : ks_in) {
      if (!vectorized(k)) continue;
      if (auto it = block_vectors.find(k); it != block_vectors.end()) {
        code += I(ind) + "const " + in_vec_type(k) + " in" + num(k) + " = " + it->second + ";\n";
        continue;
      }
      if (inner_shifted(k) && row == "rowc") {
        const std::string kk = num(k), sh = "sh" + kk;
        code += I(ind) + in_vec_type(k) + " in" + kk + ";\n" + I(ind) + "{\n" + I(ind + 1) + in_vec_type(k) + " lo, hi;\n";
        code += inner_shift_loads(k, ind + 1, "R" + kk, sh, "redge", col0, "lo", "hi");
        code += I(ind + 1) + "in" + kk + " = " + inner_shift_value(k, sh, "redge", col0, "lo", "hi") + ";\n" + I(ind) + "}\n";
        continue;
      }
      if (shifted(k)) {
        shifted_load(k, ind, row, col0);
        continue;
      }
      // A pad's vector lies wholly inside or outside it (the scheduler aligns vec to its bounds).
      const std::string w = window_of(op(k).value, row, col0);
      code += I(ind) + "const " + in_vec_type(k) + " in" + num(k) + " = " +
              (w.empty() ? vector_load(k, row, col0) : w + " ? " + vector_load(k, row, col0) + " : " + in_vec_type(k) + "{}") + ";\n";
    }
  }
  // Element j of operand k's loaded vector, and pair j2 (in_pairs only).
  std::string vector_elem(int k) const { return in_pairs(k) ? "half_of(in" + num(k) + ".e[j / 2], j & 1)" : "in" + num(k) + ".e[j]"; }
  std::string vector_pair(int k) const { return "in" + num(k) + ".e[j2]"; }
  // Inputs that do not vary inside the element loop, loaded once where hoisted (see write_flat).
  std::map<int, std::string> hoisted;  // operand slot -> variable
  // Column vectors a thread loads once for every row it takes (see write_flat): slot -> variable.
  std::map<int, std::string> block_vectors;

  void scalar_loads(const std::vector<int>& ks_in, int ind, const std::string& row, const std::string& col, bool all) {
    for (int k : ks_in) {
      if (hoisted.count(k) || (vectorized(k) && !all)) continue;
      const std::string t = storage_type(dt(op(k).value)), w = window_of(op(k).value, row, col);
      code += I(ind) + "const " + t + " ie" + num(k) + " = " +
              (w.empty() ? elem_ref(k, row, col) : w + " ? " + elem_ref(k, row, col) + " : (" + t + ")0") + ";\n";
    }
  }
  // The raw storage bits of an input element (what elem_input converts).
  std::string elem_raw(int v, bool vector_path) const {
    int k = operand_index.at(v);
    if (hoisted.count(k)) return hoisted.at(k);
    if (vector_path && vectorized(k)) return vector_elem(k);
    return "ie" + num(k);
  }
  std::string elem_input(int v, bool vector_path) const { return load_convert(dt(v), elem_raw(v, vector_path)); }

  // What output slot k stores, in its storage type: the bits of an f16/bf16 value where native
  // ops or an input give them (ExprEmitter::raw_bits), else the value converted. A cast to the
  // output's storage dtype from a float register needs no separate rounding: the store
  // conversion rounds exactly once.
  std::string stored(ExprEmitter& em, int k, const std::string& indent) {
    int v = op(k).value;
    const Value& val = f.value(v);
    if (std::string bits = em.raw_bits(v, code, indent); !bits.empty()) return bits;
    if (val.producer >= 0 && f.nodes()[val.producer].op == Op::Cast) {
      const Node& n = f.nodes()[val.producer];
      DType src = f.value(n.in[0]).dtype;
      bool narrow = val.dtype == DType::F16 || val.dtype == DType::BF16 || is_fp8(val.dtype);
      if (n.op == Op::Cast && narrow && is_floating(src) && src != DType::F64)
        return store_convert(val.dtype, em.value(n.in[0], code, indent));
    }
    return store_convert(val.dtype, em.value(v, code, indent));
  }

  // Output stores for element-level outputs, vector path: collect into a Vec, store after j.
  void store_decls(const std::vector<int>& outs, int ind) {
    for (int k : outs)
      if (vectorized(k))
        code += I(ind) + "Vec<" + std::string(storage_type(dt(op(k).value))) + ", " + num(vec) + "> out" + num(k) + ";\n";
  }
  // Stores `conv` (an expression of the storage type: see stored) as element (row, col) of k.
  void store_elem(int k, const std::string& conv, int ind, const std::string& row, const std::string& col, bool vector_path) {
    if (vector_path && vectorized(k)) code += I(ind) + "out" + num(k) + ".e[j] = " + conv + ";\n";
    else if (staged.count(k))
      code += I(ind) + "st_shared_elem<" + std::string(storage_type(dt(op(k).value))) + ">(" + staged_at(k, col) + ", " + conv + ");\n";
    else code += I(ind) + guard(k, row, col) + elem_ref(k, row, col) + " = " + conv + ";\n";
  }
  void store_vectors(const std::vector<int>& outs, int ind, const std::string& row, const std::string& col0) {
    for (int k : outs)
      if (vectorized(k) && staged.count(k))
        code += I(ind) + "st_shared<Vec<" + std::string(storage_type(dt(op(k).value))) + ", " + num(vec) + ">>(" +
                staged_at(k, col0) + ", out" + num(k) + ");\n";
      else if (vectorized(k) && plan.params.col_vec && row == "rowc")
        code += I(ind) + "st_row<" + std::string(storage_type(dt(op(k).value))) + ", " + num(vec) + ">(R" + num(k) +
                " + vi, out" + num(k) + ", ln);\n";
      else if (vectorized(k))
        code += I(ind) + guard(k, row, col0) + "st_vec<" + std::string(storage_type(dt(op(k).value))) + ", " + num(vec) + ">(" +
                addr(k, row, col0) + ", out" + num(k) + ");\n";
  }
  // Outputs that do not vary along rows (or columns) are written once, by row 0 (column 0).
  std::string guard(int k, const std::string& row, const std::string& col) const {
    Access a = op(k).access;
    if (a == Access::Col) return "if ((" + row + ") == 0) ";
    if (a == Access::Row) return "if ((" + col + ") == 0) ";
    if (a == Access::Scalar) return "if ((" + row + ") == 0 && (" + col + ") == 0) ";
    return "";
  }

  // Whether every output of the kernel is stored as f16, bf16 or fp8 (see set_narrow_results).
  bool narrow_results() const {
    for (int k : output_slots()) {
      DType t = dt(op(k).value);
      if (t != DType::F16 && t != DType::BF16 && !is_fp8(t)) return false;
    }
    return true;
  }

  std::vector<int> output_slots() const {
    std::vector<int> r;
    for (size_t k = 0; k < plan.operands.size(); ++k)
      if (op(static_cast<int>(k)).is_output) r.push_back(static_cast<int>(k));
    return r;
  }
};

void write_flat(Writer& w, KernelSource& out);
void write_inner(Writer& w, KernelSource& out);
void write_outer(Writer& w, KernelSource& out);
void write_outer_norm(Writer& w, KernelSource& out);  // kernel_outer_norm.cpp
void write_transpose(Writer& w, KernelSource& out);   // kernel_transpose.cpp
// Full reductions' pieces (kernel_flat.cpp), shared by the flat template and the transpose
// template's reducing tiles (transpose_reduces): the per-thread accumulators of the stage plan's
// steps (acc<i>; var_mean: acc<i> and acc<i>q, the shifted sums), declared at `ind`, their
// names returned; the fold of one element (the ExprEmitter's values of the steps' inputs); and
// the block and grid combine after the element loop (partials by atomics into scratch, the last
// block writes the scalar results and `post_outs`, and resets the scratch). The combine reads
// `R` and `C` (R x C elements in all) and var_mean's shift acc<i>k, which the caller declares.
std::vector<std::string> write_accumulators(Writer& w, int ind);
void write_fold(Writer& w, ExprEmitter& em, const std::vector<std::string>& acc, int ind);
void write_grid_combine(Writer& w, const std::vector<std::string>& acc, const std::vector<int>& post_outs, KernelSource& ks_out);
// The outer templates' device helpers (outer_kept_split, outer_stride); with `kept_run`, the
// kept run that checks every operand's strides (KernelParams::kept_run).
std::string outer_device_helpers(bool kept_run);
std::string phase_shift_helper();
// Shift plans' shift of two aligned vectors into one (kernel_inner.cpp; the flat template's
// ld_shifted calls it too).
std::string shift_pair_helper();

}  // namespace solder::codegen_detail
