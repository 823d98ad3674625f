// The `solder` command line. Subcommands are registered from tools/cmd_*.cpp.
#include <cstdio>

#include "commands.h"
#include "solder/error.h"

int main(int argc, char** argv) {
  CLI::App app{"solder: a fusion code generator for NVIDIA GPUs"};
  app.require_subcommand(1);
  solder::cli::register_run(app);
  solder::cli::register_explain(app);
  solder::cli::register_bench(app);
  solder::cli::register_profile(app);
  solder::cli::register_compare(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const solder::Error& e) {
    std::fprintf(stderr, "solder: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
