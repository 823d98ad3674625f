// `solder compare` (not implemented yet).
#include "commands.h"
#include "solder/error.h"

namespace solder::cli {

void register_compare(CLI::App& app) {
  auto* cmd = app.add_subcommand("compare", "(not implemented yet)");
  cmd->callback([] { throw Error("solder compare is not implemented yet"); });
}

}  // namespace solder::cli
