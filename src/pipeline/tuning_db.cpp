#include "pipeline/tuning_db.h"

#include <cstdio>
#include <fstream>
#include <mutex>
#include <nlohmann/json.hpp>

#include "runtime/kernel_cache.h"

namespace solder {

namespace {
std::optional<Choice>& forced() {
  static std::optional<Choice> c;
  return c;
}
}  // namespace

void set_forced_choice(std::optional<Choice> c) { forced() = std::move(c); }
const std::optional<Choice>& forced_choice() { return forced(); }

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

std::optional<Choice> recorded_choice(const std::string& key) {
  if (forced_choice()) return forced_choice();
  return TuneDb::global().find(key);
}

}  // namespace solder
