#pragma once
// Each subcommand of `solder` lives in its own tools/cmd_<name>.cpp and registers itself here.
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace solder::cli {

// The program argument and its size options, shared by run, explain and profile.
inline void add_program_options(CLI::App* cmd, std::string& program, std::vector<std::string>& shapes,
                                std::vector<std::string>& sizes) {
  cmd->add_option("program", program, "a .fusion file or a workload name")->required();
  cmd->add_option("--shape", shapes, "an input's shape, NAME=8192x5140 (repeatable)");
  cmd->add_option("--size", sizes, "a size symbol's value, SYM=5140 (repeatable)");
}

void register_run(CLI::App& app);
void register_explain(CLI::App& app);
void register_bench(CLI::App& app);
void register_profile(CLI::App& app);
void register_compare(CLI::App& app);

}  // namespace solder::cli
