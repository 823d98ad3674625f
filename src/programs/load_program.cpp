#include "programs/load_program.h"

#include <algorithm>
#include <filesystem>

#include "ir/parser.h"
#include "ops/workloads.h"
#include "solder/error.h"

namespace solder {

Fusion load_program(const std::string& arg) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_regular_file(arg, ec)) return load_fusion_file(arg);
  auto names = workload_names();
  bool is_workload = std::find(names.begin(), names.end(), arg) != names.end();
#ifdef SOLDER_SOURCE_DIR
  // Prefer the text in the source tree: it is what a user edits and what `explain` shows.
  fs::path example = fs::path(SOLDER_SOURCE_DIR) / "examples" / (arg + ".fusion");
  if (is_workload && fs::is_regular_file(example, ec)) return load_fusion_file(example.string());
#endif
  if (is_workload) return make_workload(arg);
  if (arg.find('/') != std::string::npos || arg.find(".fusion") != std::string::npos)
    return load_fusion_file(arg);  // reports the unreadable path
  std::string known;
  for (const auto& n : names) known += "\n  " + n;
  throw Error("'" + arg + "' is neither a readable file nor a workload; workloads:" + known);
}

}  // namespace solder
