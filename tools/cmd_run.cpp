// `solder run` (not implemented yet).
#include "commands.h"
#include "solder/error.h"

namespace solder::cli {

void register_run(CLI::App& app) {
  auto* cmd = app.add_subcommand("run", "(not implemented yet)");
  cmd->callback([] { throw Error("solder run is not implemented yet"); });
}

}  // namespace solder::cli
