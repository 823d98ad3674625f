#pragma once
// Where recorded autotune choices live: a process-wide forced choice (autotune sets it while
// timing a candidate) and a small JSON database next to the kernel cache (its winners). The
// compile driver looks them up for the scheduler; the scheduler itself reads no files.
#include <optional>
#include <string>

#include "schedule/tuning.h"

namespace solder {

// A process-wide forced choice (autotune sets it while timing a candidate).
void set_forced_choice(std::optional<Choice> c);
const std::optional<Choice>& forced_choice();

class TuneDb {
 public:
  static TuneDb& global();  // file: <kernel cache dir>/tuning.json
  std::optional<Choice> find(const std::string& key) const;
  void record(const std::string& key, const Choice& c, double heuristic_us, double best_us);
  size_t size() const;

 private:
  TuneDb();
  struct Impl;
  Impl* impl_;
};

// The forced choice, else the database's record for `tuning_key`.
std::optional<Choice> recorded_choice(const std::string& tuning_key);

}  // namespace solder
