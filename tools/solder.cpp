// The `solder` command line. Subcommands are registered from tools/cmd_*.cpp.
#include <cstdio>
#include <exception>
#include <new>
#include <string>

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
  // CLI11 says only "A subcommand is required" for `solder frobnicate`: name the word.
  if (argc > 1 && argv[1][0] != '-') {
    std::string known;
    bool found = false;
    for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
      known += (known.empty() ? "" : ", ") + sub->get_name();
      found = found || sub->get_name() == argv[1];
    }
    if (!found) {
      std::fprintf(stderr, "solder: error: unknown command '%s' (commands: %s)\n", argv[1], known.c_str());
      return 1;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const solder::Error& e) {
    std::fprintf(stderr, "solder: error: %s\n", e.what());
    return 1;
  } catch (const std::bad_alloc&) {  // a limit let through more than the machine has
    std::fprintf(stderr, "solder: error: out of memory (see SOLDER_MAX_TENSOR_GB and SOLDER_MAX_REFERENCE_GB)\n");
    return 1;
  } catch (const std::exception& e) {  // a bug, but still a message and a failing exit
    std::fprintf(stderr, "solder: internal error: %s\n", e.what());
    return 2;
  }
  return 0;
}
