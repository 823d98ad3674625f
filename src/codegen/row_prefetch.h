#pragma once
// The next-row prefetch of persistent rows (KernelParams::prefetch): the row-varying vector
// inputs of the first pass with work, every batch at once, in storage form (two f16/bf16 per
// register). They are loaded for the block's next row right after this row's first pass, so
// their DRAM latency overlaps the reductions and the later passes; without prefetch, at the top
// of the row. In registers (pf<k>[BATCH]), or with prefetch_smem by cp.async into this thread's
// slots of dynamic shared memory: the next row then holds no registers while this one is
// computed (operand k's [RPB][BATCH * TPR * VEC] elements from byte offset at(k); the
// scheduler's dyn_smem counts them).
// The row's per-row inputs (Access::Row: a row's mask or scale) come with it, into a register
// each (pr<k>), copied at the top of the row (rv<k>): loaded in the row, each was a memory
// latency before the row's first pass could use it.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "codegen/kernel_writer.h"

namespace solder::codegen_detail {

class RowPrefetch {
 public:
  // `operands`: the vectorized Full inputs the first pass reads (empty: nothing to load ahead);
  // `phase_of(row)`: the expression of a row's phase (phase-shifted rows).
  RowPrefetch(const Writer& w, std::vector<int> operands, std::function<std::string(const std::string&)> phase_of);

  bool empty() const { return operands_.empty(); }
  bool in_smem() const { return smem_; }
  bool has(int k) const;
  int64_t bytes() const { return bytes_; }  // of dynamic shared memory, from offset 0
  std::string declarations() const;         // the registers: vectors (in registers only), per-row inputs
  std::string issue(const std::string& row, int ind) const;  // loads row `row`'s inputs (if < R)
  std::string read(int k) const;                              // operand k's vector of batch b
  // The row's value of per-row input k (taken at the row's top by take_row_values), or "".
  std::string row_value(int k) const;
  std::string take_row_values(int ind) const;

 private:
  std::string slot(int k) const;
  std::string row_loads(int ind) const;  // the per-row inputs of row `prow` into pr<k>

  const Writer& w_;
  std::vector<int> operands_;
  std::vector<int> row_inputs_;  // per-row inputs loaded ahead (prefetch in registers or smem)
  std::function<std::string(const std::string&)> phase_of_;
  bool smem_ = false, phased_ = false;
  std::map<int, int64_t> at_;
  int64_t bytes_ = 0;
};

}  // namespace solder::codegen_detail
