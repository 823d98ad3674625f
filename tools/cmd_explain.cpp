// `solder explain FILE [--shape NAME=AxB]... [--size SYM=N]...`: the verified IR and every
// value's type, with concrete sizes when they are given (see src/frontend/explain.h).
#include <cstdio>

#include "commands.h"
#include "frontend/explain.h"
#include "programs/load_program.h"
#include "programs/run_inputs.h"
#include "frontend/size_args.h"

namespace solder::cli {

namespace {
struct ExplainArgs {
  std::string program;
  std::vector<std::string> shapes, sizes;
  std::string plan;
  bool contiguous_outputs = false;
};

void run_explain(const ExplainArgs& a) {
  Fusion f = load_program(a.program);
  ExplainOptions opts;
  opts.plan = a.plan;
  opts.contiguous_outputs = a.contiguous_outputs;
  if (!a.shapes.empty() || !a.sizes.empty()) {
    auto in_shapes = resolve_input_shapes(f, parse_shape_args(a.shapes), parse_size_args(a.sizes));
    opts.sizes = bind_shapes(f, in_shapes);
    for (const auto& [sym, v] : parse_size_args(a.sizes)) opts.sizes->emplace(sym, v);
  }
  std::fputs(explain_fusion(f, opts).c_str(), stdout);
}
}  // namespace

void register_explain(CLI::App& app) {
  auto args = std::make_shared<ExplainArgs>();
  auto* cmd = app.add_subcommand("explain", "Show a program's IR, segments and (with sizes) each kernel's plan, registers and occupancy");
  add_program_options(cmd, args->program, args->shapes, args->sizes);
  cmd->add_option("--plan", args->plan,
                  "pin kernel plans: KEY=VALUE,... for every kernel, SEG:KEY=VALUE,... for one; ';' between "
                  "(e.g. threads_per_row=512,prefetch=0 or max_registers=96; scheduler=NAME picks the scheduler)");
  cmd->add_flag("--contiguous-outputs", args->contiguous_outputs,
                "plan every output contiguous, as Python callers get (a view as an output is then written, not metadata)");
  cmd->callback([args] { run_explain(*args); });
}

}  // namespace solder::cli
