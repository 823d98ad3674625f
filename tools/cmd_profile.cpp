// `solder profile` (not implemented yet).
#include "commands.h"
#include "solder/error.h"

namespace solder::cli {

void register_profile(CLI::App& app) {
  auto* cmd = app.add_subcommand("profile", "(not implemented yet)");
  cmd->callback([] { throw Error("solder profile is not implemented yet"); });
}

}  // namespace solder::cli
