#include "codegen/row_prefetch.h"

#include <algorithm>

namespace solder::codegen_detail {

RowPrefetch::RowPrefetch(const Writer& w, std::vector<int> operands,
                         std::function<std::string(const std::string&)> phase_of)
    : w_(w), operands_(std::move(operands)), phase_of_(std::move(phase_of)) {
  const KernelParams& P = w.plan.params;
  smem_ = P.prefetch && P.prefetch_smem && !operands_.empty();
  phased_ = P.batch > 0 && P.col_vec > 0;
  if (P.prefetch && !operands_.empty())
    for (int k = 0; k < static_cast<int>(w.plan.operands.size()); ++k)
      if (!w.op(k).is_output && w.op(k).access == Access::Row) row_inputs_.push_back(k);
  for (int k : operands_) {
    at_[k] = bytes_;
    bytes_ += int64_t{P.rows_per_block} * P.batch * P.threads_per_row * P.vec * dtype_size(w.dt(w.op(k).value));
  }
}

std::string RowPrefetch::row_loads(int ind) const {
  std::string c;
  for (int k : row_inputs_) c += I(ind) + "pr" + num(k) + " = " + w_.ptr(k) + "[" + w_.offset(k, "prow", "0") + "];\n";
  return c;
}

bool RowPrefetch::has(int k) const { return std::count(operands_.begin(), operands_.end(), k) > 0; }

std::string RowPrefetch::slot(int k) const {
  return "dsm + " + num(at_.at(k)) + "u + ((ry * BATCH + b) * TPR + tr) * " +
         num(w_.plan.params.vec * dtype_size(w_.dt(w_.op(k).value))) + "u";
}

std::string RowPrefetch::row_value(int k) const {
  return std::count(row_inputs_.begin(), row_inputs_.end(), k) ? "rv" + num(k) : std::string();
}

std::string RowPrefetch::take_row_values(int ind) const {
  std::string c;
  for (int k : row_inputs_) c += I(ind) + "const " + storage_type(w_.dt(w_.op(k).value)) + " rv" + num(k) + " = pr" + num(k) + ";\n";
  return c;
}

std::string RowPrefetch::declarations() const {
  std::string c;
  for (int k : row_inputs_) c += "  " + std::string(storage_type(w_.dt(w_.op(k).value))) + " pr" + num(k) + " = 0;\n";
  if (!smem_)
    for (int k : operands_) {
      c += "  " + w_.in_vec_type(k) + " pf" + num(k) + "[BATCH];\n";
      // Shift plans: the second aligned vector of each pair (Writer::inner_shift_loads).
      if (w_.inner_shifted(k)) c += "  " + w_.in_vec_type(k) + " pfh" + num(k) + "[BATCH];\n";
    }
  return c;
}

std::string RowPrefetch::read(int k) const {
  if (smem_) return "ld_shared<" + w_.in_vec_type(k) + ">(" + slot(k) + ")";
  // Shift plans: the pair shifted by this row's phase (the prefetched row's: see open_row_loop).
  if (w_.inner_shifted(k))
    return w_.inner_shift_value(k, "sh" + num(k), "redge", "colc", "pf" + num(k) + "[b]", "pfh" + num(k) + "[b]");
  return "pf" + num(k) + "[b]";
}

std::string RowPrefetch::issue(const std::string& row, int ind) const {
  const Writer& w = w_;
  std::string c;
  if (smem_) {
    c += I(ind) + "if (const i64 prow = " + row + "; prow < R) {\n#pragma unroll\n" + I(ind + 1) +
         "for (int b = 0; b < BATCH; ++b) {\n" + I(ind + 2) + "const int col0 = " + w.row_slot() + " * VEC;\n";
    for (int k : operands_)
      c += I(ind + 2) + "cp_async<" + num(w.plan.params.vec * dtype_size(w.dt(w.op(k).value))) + ">(" + slot(k) + ", " +
           w.ptr(k) + " + " + w.offset(k, "prow", "0") + " + (b < BATCH - 1 || col0 < C ? col0 : 0));\n";
    c += I(ind + 1) + "}\n" + row_loads(ind + 1) + I(ind) + "}\n" + I(ind) + "cp_async_commit();\n";
    return c;
  }
  c += I(ind) + "if (const i64 prow = " + row + "; prow < R) {\n" + row_loads(ind + 1);
  if (!phased_) {
    // Shift plans: each shifted input's row base and phase, and whether the row is the first or last.
    bool shifted = false;
    for (int k : operands_)
      if (w.inner_shifted(k)) {
        const std::string t = storage_type(w.dt(w.op(k).value)), kk = num(k);
        c += I(ind + 1) + "const " + t + "* const pb" + kk + " = " + w.ptr(k) + " + " + w.offset(k, "prow", "0") + ";\n";
        c += I(ind + 1) + "const unsigned psh" + kk + " = (unsigned)((unsigned long long)pb" + kk + " / " +
             num(dtype_size(w.dt(w.op(k).value))) + "u) & (VEC - 1);\n";
        shifted = true;
      }
    if (shifted) c += I(ind + 1) + "const bool pedge = prow == 0 || prow == R - 1;\n";
    c += "#pragma unroll\n" + I(ind + 1) + "for (int b = 0; b < BATCH; ++b) {\n" + I(ind + 2) +
         "const int col0 = " + w.row_slot() + " * VEC;\n";
    if (shifted) c += I(ind + 2) + "const int pcol = b < BATCH - 1 || col0 < C ? col0 : 0;\n";
    for (int k : operands_) {
      if (w.inner_shifted(k)) {
        const std::string kk = num(k);
        c += w.inner_shift_loads(k, ind + 2, "pb" + kk, "psh" + kk, "pedge", "pcol", "pf" + kk + "[b]", "pfh" + kk + "[b]");
        continue;
      }
      c += I(ind + 2) + "pf" + num(k) + "[b] = " + w.vector_load(k, "prow", "(b < BATCH - 1 || col0 < C ? col0 : 0)") +
           ";\n";
    }
    c += I(ind + 1) + "}\n" + I(ind) + "}\n";
    return c;
  }
  // Phase-shifted: rows between the first and the last load their partial vectors whole (the
  // lanes outside the row are the neighbour rows' storage; slots past the row load vector 1),
  // one branch per row rather than per vector (softmax bf16 H=4098: 78 -> 88 % of a copy).
  c += I(ind + 1) + "const int pph = " + phase_of_("prow") + ", pnv = (C + pph + VEC - 1) / VEC;\n";
  for (bool inner : {true, false}) {
    c += I(ind + 1) + (inner ? "if (prow > 0 && prow < R - 1) {\n" : "} else {\n") + "#pragma unroll\n" + I(ind + 2) +
         "for (int b = 0; b < BATCH; ++b) {\n" + I(ind + 3) + "const int vs = b * TPR + tr + 1, col0 = (vs == pnv ? 0 : " +
         (inner ? "vs < pnv ? vs : 1" : "vs") + ") * VEC;\n";
    for (int k : operands_) {
      const std::string at = w.ptr(k) + " + " + w.offset(k, "prow", "0") + " - pph + col0";
      c += I(ind + 3) + "pf" + num(k) + "[b] = " +
           (inner ? w.row_load(k, at, "(1u << VEC) - 1")
                  : "b < BATCH - 1 ? " + w.row_load(k, at, "(1u << VEC) - 1") + " : " +
                        w.row_load(k, at, "row_lanes<VEC>(col0 - pph, C)")) +
           ";\n";
    }
    c += I(ind + 2) + "}\n";
  }
  c += I(ind + 1) + "}\n" + I(ind) + "}\n";
  return c;
}

}  // namespace solder::codegen_detail
