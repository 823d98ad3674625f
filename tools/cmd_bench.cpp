// `solder bench` (not implemented yet).
#include "commands.h"
#include "solder/error.h"

namespace solder::cli {

void register_bench(CLI::App& app) {
  auto* cmd = app.add_subcommand("bench", "(not implemented yet)");
  cmd->callback([] { throw Error("solder bench is not implemented yet"); });
}

}  // namespace solder::cli
