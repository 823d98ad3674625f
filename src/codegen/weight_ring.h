#pragma once
// The weight ring of persistent rows (KernelParams::weight_ring = K slots; rows of one block,
// aligned, with the next row prefetched into shared memory): the weight vectors each pass
// reads stream through shared memory by cp.async, D batches ahead of their use, so they stay
// in flight without registers. Each thread reads back only the slots it filled, so there is no
// barrier, only waits on the thread's own copy groups (`cp.async.wait_group N`, N from a
// simulation of the groups committed in the first rows). The stream is the same every row
// (weights do not depend on it), so the last pass's refills copy the next row's first weights.
// Item i of a row (its batches' weights in pass order) sits in slot i % K, K dividing the
// row's items, so every row starts at slot 0 and slot addresses are constants (a slot counter
// carried across rows spilled W1 f16 H=65536).
// Measured (ncu, H100, W1 f16 H=65536, plain loads): 48 % of the warps' stall cycles waited on
// weights from L2 (none hit L1: a row's 512 KB of weights passes through it), at 64 % of L2 and
// 67 % of DRAM throughput; with the ring 78 -> 93 % of a same-bytes copy (perf-notes).
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "codegen/kernel_writer.h"

namespace solder::codegen_detail {

class WeightRing {
 public:
  // `streamed[q]`: the weight operands (slots) pass q reads through the ring, empty where none;
  // `passes`: the passes the kernel runs, in order; `prefetch_pass`: the pass after whose batches
  // the next row's inputs are copied (one group); `at`: the ring's byte offset in dynamic shared
  // memory. Inactive (no code) where no pass streams or a batch's weights exceed the slots.
  WeightRing(const Writer& w, std::vector<std::vector<int>> streamed, const std::vector<int>& passes, int prefetch_pass,
             int64_t at);

  bool active() const { return ahead_ > 0; }
  bool streams(int q) const { return active() && !streamed_[q].empty(); }
  bool streams(int q, int k) const;
  std::string prologue() const;            // the first D groups, before the row loop
  std::string wait_for_row() const;        // before the prefetched row is read
  std::string wait_for_batch(int q) const;  // before batch b of pass q reads its weights
  std::string read(int q, int k) const;     // operand k's vector of batch b in pass q
  std::string refill(int q) const;          // after batch b of pass q has read its slots

 private:
  int group_size(int g) const;  // items (weight vectors) of stream group g (one per pass and batch)
  int group_item(int g) const;  // index of group g's first item; g >= groups_: the next row's
  int first_group(int q) const;
  std::string slot(const std::string& item) const;  // shared address of this thread's vector
  std::string issue(const std::string& g, int ind) const;

  const Writer& w_;
  std::vector<std::vector<int>> streamed_;
  std::vector<int> passes_;  // the passes that stream, in order
  int batch_ = 0, groups_ = 0, items_ = 0, slots_ = 0, ahead_ = 0;
  int64_t at_ = 0, thread_bytes_ = 0;
  std::map<std::pair<int, int>, int> wait_;  // (pass, batch) -> groups allowed pending
  int wait_row_ = -1;
};

}  // namespace solder::codegen_detail
