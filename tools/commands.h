#pragma once
// Each subcommand of `solder` lives in its own tools/cmd_<name>.cpp and registers itself here.
#include <CLI/CLI.hpp>

namespace solder::cli {

void register_run(CLI::App& app);
void register_explain(CLI::App& app);
void register_bench(CLI::App& app);
void register_profile(CLI::App& app);
void register_compare(CLI::App& app);

}  // namespace solder::cli
