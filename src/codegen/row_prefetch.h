#pragma once
// The next-row prefetch of persistent rows (KernelParams::prefetch): the row-varying vector
// inputs of the first pass with work, every batch at once, in storage form (two f16/bf16 per
// register). They are loaded for the block's next row right after this row's first pass, so
// their DRAM latency overlaps the reductions and the later passes; without prefetch, at the top
// of the row. In registers (pf<k>[BATCH]), or with prefetch_smem by cp.async into this thread's
// slots of dynamic shared memory: the next row then holds no registers while this one is
// computed (operand k's [RPB][BATCH * TPR * VEC] elements from byte offset at(k); the
// scheduler's dyn_smem counts them).
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
  std::string declarations() const;         // the register arrays (in registers only)
  std::string issue(const std::string& row, int ind) const;  // loads row `row`'s inputs (if < R)
  std::string read(int k) const;                              // operand k's vector of batch b

 private:
  std::string slot(int k) const;

  const Writer& w_;
  std::vector<int> operands_;
  std::function<std::string(const std::string&)> phase_of_;
  bool smem_ = false, phased_ = false;
  std::map<int, int64_t> at_;
  int64_t bytes_ = 0;
};

}  // namespace solder::codegen_detail
