#include "codegen/weight_ring.h"

#include <algorithm>

namespace solder::codegen_detail {

WeightRing::WeightRing(const Writer& w, std::vector<std::vector<int>> streamed, const std::vector<int>& passes,
                       int prefetch_pass, int64_t at)
    : w_(w), streamed_(std::move(streamed)), batch_(w.plan.params.batch), slots_(w.plan.params.weight_ring), at_(at) {
  for (int q : passes)
    if (!streamed_[q].empty()) passes_.push_back(q);
  groups_ = static_cast<int>(passes_.size()) * batch_;
  if (groups_ == 0 || slots_ <= 0) return;
  int widest = 0;
  for (int g = 0; g < groups_; ++g) {
    items_ += group_size(g);
    widest = std::max(widest, group_size(g));
  }
  // Slots: the most of the plan's that divide a row's items (the scheduler reserves as many as
  // divide them where each weight is read in one pass; fewer where one is read in two).
  while (slots_ > widest && items_ % slots_) --slots_;
  if (slots_ < widest) return;
  // D: the most groups in flight whose items fit the slots, in every window of the stream.
  for (int d = 1; d <= groups_; ++d) {
    bool fits = true;
    for (int s0 = 0; s0 < groups_ && fits; ++s0) {
      int n = 0;
      for (int h = 0; h < d; ++h) n += group_size(s0 + h);
      fits = n <= slots_;
    }
    if (!fits) break;
    ahead_ = d;
  }
  // A slot: a vector of the widest weight per thread (the scheduler's dyn_smem counts them).
  int col_bytes = 0;
  for (int k = 0; k < static_cast<int>(w.plan.operands.size()); ++k)
    if (!w.op(k).is_output && w.op(k).access == Access::Col) col_bytes = std::max(col_bytes, dtype_size(w.dt(w.op(k).value)));
  thread_bytes_ = int64_t{w.plan.params.vec} * col_bytes;
  // Wait counts: how many of this thread's copy groups were committed after the one about to be
  // read, simulated over the first rows (the prologue's order differs) and taken at the least.
  std::vector<long long> commits;  // -1 - r: row r's prefetch; g >= 0: stream group g
  auto after = [&](long long label) {
    const auto it = std::find(commits.rbegin(), commits.rend(), label);
    if (it == commits.rend()) throw Error("weight ring: copy group never committed");
    return static_cast<int>(it - commits.rbegin());
  };
  commits.push_back(-1);
  for (int g = 0; g < ahead_; ++g) commits.push_back(g);
  for (int r = 0; r < 3; ++r) {
    int base = 0;
    for (int q : passes) {
      if (q == prefetch_pass) wait_row_ = wait_row_ < 0 ? after(-1 - r) : std::min(wait_row_, after(-1 - r));
      if (!streamed_[q].empty()) {
        for (int b = 0; b < batch_; ++b) {
          const long long g = static_cast<long long>(r) * groups_ + base + b;
          const int k = after(g);
          auto [it, fresh] = wait_.try_emplace({q, b}, k);
          if (!fresh) it->second = std::min(it->second, k);
          commits.push_back(g + ahead_);
        }
        base += batch_;
      }
      if (q == prefetch_pass) commits.push_back(-2 - r);
    }
  }
}

bool WeightRing::streams(int q, int k) const {
  return streams(q) && std::count(streamed_[q].begin(), streamed_[q].end(), k) > 0;
}

int WeightRing::group_size(int g) const {
  return static_cast<int>(streamed_[passes_[(g % groups_) / batch_]].size());
}

int WeightRing::group_item(int g) const {
  int i = g >= groups_ ? items_ : 0;
  for (int h = 0; h < g % groups_; ++h) i += group_size(h);
  return i;
}

int WeightRing::first_group(int q) const {
  return static_cast<int>(std::find(passes_.begin(), passes_.end(), q) - passes_.begin()) * batch_;
}

std::string WeightRing::slot(const std::string& item) const {
  return "dsm + " + num(at_) + "u + (" + item + ") % " + num(slots_) + " * " +
         num(thread_bytes_ * w_.plan.params.threads_per_row) + "u + tr * " + num(thread_bytes_) + "u";
}

// Copies group g (an expression, the batch loop's b folded in once unrolled) into its slots.
std::string WeightRing::issue(const std::string& g, int ind) const {
  std::string out;
  for (size_t pi = 0; pi < passes_.size(); ++pi) {
    const std::vector<int>& ops = streamed_[passes_[pi]];
    for (int row : {0, 1}) {
      const int lo = row * groups_ + static_cast<int>(pi) * batch_;
      out += I(ind) + "if (" + g + " >= " + num(lo) + " && " + g + " < " + num(lo + batch_) + ") {\n" + I(ind + 1) +
             "const int wb = " + g + " - " + num(lo) + ", wc = (wb * TPR + tr) * VEC;\n";
      for (size_t j = 0; j < ops.size(); ++j)
        out += I(ind + 1) + "cp_async<" + num(w_.plan.params.vec * dtype_size(w_.dt(w_.op(ops[j]).value))) + ">(" +
               slot(num(group_item(lo)) + " + wb * " + num(static_cast<long long>(ops.size())) + " + " +
                    num(static_cast<long long>(j))) +
               ", " + w_.ptr(ops[j]) + " + (wb < BATCH - 1 || wc < C ? wc : 0));\n";
      out += I(ind) + "}\n";
    }
  }
  return out + I(ind) + "cp_async_commit();\n";
}

std::string WeightRing::prologue() const {
  std::string out;
  for (int g = 0; g < ahead_; ++g) out += issue(num(g), 1);
  return out;
}

std::string WeightRing::wait_for_row() const { return "    cp_async_wait<" + num(wait_row_) + ">();\n"; }

std::string WeightRing::wait_for_batch(int q) const {
  std::string out;
  for (int b = 0; b < batch_;) {
    int e = b;
    while (e + 1 < batch_ && wait_.at({q, e + 1}) == wait_.at({q, b})) ++e;
    out += I(4) + (b ? "else " : "") + (e + 1 < batch_ ? "if (b <= " + num(e) + ") " : "") + "cp_async_wait<" +
           num(wait_.at({q, b})) + ">();\n";
    b = e + 1;
  }
  return out;
}

std::string WeightRing::read(int q, int k) const {
  const std::vector<int>& ops = streamed_[q];
  const long long j = std::find(ops.begin(), ops.end(), k) - ops.begin();
  return "ld_shared<" + w_.in_vec_type(k) + ">(" +
         slot(num(group_item(first_group(q))) + " + b * " + num(static_cast<long long>(ops.size())) + " + " + num(j)) + ")";
}

std::string WeightRing::refill(int q) const {
  return issue("(" + num(first_group(q) + ahead_) + " + b)", 4);
}

}  // namespace solder::codegen_detail
