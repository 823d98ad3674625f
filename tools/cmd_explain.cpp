// `solder explain` (not implemented yet).
#include "commands.h"
#include "solder/error.h"

namespace solder::cli {

void register_explain(CLI::App& app) {
  auto* cmd = app.add_subcommand("explain", "(not implemented yet)");
  cmd->callback([] { throw Error("solder explain is not implemented yet"); });
}

}  // namespace solder::cli
