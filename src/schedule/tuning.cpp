#include "schedule/tuning.h"

#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>

#include "runtime/kernel_cache.h"

namespace solder {

std::string Choice::str() const {
  if (threads_per_row)
    return "threads_per_row=" + std::to_string(threads_per_row) + (looped ? " looped" : prefetch ? " prefetch" : "");
  if (threads) return "threads=" + std::to_string(threads) + " unroll=" + std::to_string(unroll);
  return "heuristic";
}

std::vector<Choice> tuning_candidates(KernelCategory c, int64_t cols, int vec) {
  std::vector<Choice> out;
  if (c == KernelCategory::Inner) {
    int64_t nvec = (cols + vec - 1) / vec;
    for (int tpr = 32; tpr <= 1024; tpr *= 2) {
      int64_t batch = (nvec + tpr - 1) / tpr;
      if (batch <= 16 && (batch >= 1) && tpr <= nvec * 2)
        for (bool prefetch : {false, true}) out.push_back({tpr, false, prefetch, 0, 0});
    }
    // Looped rows: one row per block of 1024 threads, or 2-4 rows per SM in smaller blocks,
    // whose loads of the same weights can then hit L1 instead of L2 (W1 f32 H=65536 reads 1 MB
    // of f32 weights per row from L2; see perf-notes).
    for (int tpr : {256, 512, 1024}) out.push_back({tpr, true, false, 0, 0});
    return out;
  }
  for (int threads : {128, 256, 512})
    for (int unroll : {1, 2, 4}) out.push_back({0, false, false, threads, unroll});
  return out;
}

namespace {
std::optional<Choice>& forced() {
  static std::optional<Choice> c;
  return c;
}
}  // namespace

void set_forced_choice(std::optional<Choice> c) { forced() = std::move(c); }
const std::optional<Choice>& forced_choice() { return forced(); }

std::string tuning_key(uint64_t fusion_hash, int segment, KernelCategory c, int64_t cols, int vec) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%016llx/%d/%s/C=%lld/vec=%d", static_cast<unsigned long long>(fusion_hash), segment,
                kernel_category_name(c), static_cast<long long>(cols), vec);
  return buf;
}

struct TuneDb::Impl {
  std::string path;
  mutable std::mutex mu;
  nlohmann::json db = nlohmann::json::object();
};

TuneDb::TuneDb() : impl_(new Impl) {
  const std::string& dir = KernelCache::global().dir();
  if (dir.empty() || dir == "off") return;
  impl_->path = dir + "/tuning.json";
  std::ifstream in(impl_->path);
  if (!in) return;
  try {
    impl_->db = nlohmann::json::parse(in);
  } catch (const std::exception&) {
    std::fprintf(stderr, "solder: ignoring unreadable tuning database %s\n", impl_->path.c_str());
    impl_->db = nlohmann::json::object();
  }
}

TuneDb& TuneDb::global() {
  static TuneDb db;
  return db;
}

std::optional<Choice> TuneDb::find(const std::string& key) const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  auto it = impl_->db.find(key);
  if (it == impl_->db.end()) return std::nullopt;
  Choice c;
  c.threads_per_row = it->value("threads_per_row", 0);
  c.looped = it->value("looped", false);
  c.prefetch = it->value("prefetch", false);
  c.threads = it->value("threads", 0);
  c.unroll = it->value("unroll", 0);
  return c;
}

void TuneDb::record(const std::string& key, const Choice& c, double heuristic_us, double best_us) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->db[key] = {{"threads_per_row", c.threads_per_row}, {"looped", c.looped}, {"prefetch", c.prefetch}, {"threads", c.threads},
                    {"unroll", c.unroll}, {"heuristic_us", heuristic_us}, {"best_us", best_us}};
  if (impl_->path.empty()) return;
  std::string tmp = impl_->path + ".tmp";
  std::ofstream(tmp) << impl_->db.dump(1);
  std::rename(tmp.c_str(), impl_->path.c_str());
}

size_t TuneDb::size() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->db.size();
}

}  // namespace solder
