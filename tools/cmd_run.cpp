// `solder run FILE [--shape NAME=AxB]... [--size SYM=N]... [--seed N]`: runs a program on
// random inputs and prints a fingerprint of each output (range, mean, sum, byte hash), so runs
// and backends can be compared by diff.
#include <cstdio>

#include "commands.h"
#include "programs/load_program.h"
#include "programs/run_inputs.h"
#include "frontend/size_args.h"
#include "frontend/tensor_summary.h"
#include "runtime/device_info.h"
#include "runtime/driver.h"
#include "solder/executor.h"
#include "solder/reference.h"

namespace solder::cli {

namespace {
struct RunArgs {
  std::string program;
  std::vector<std::string> shapes, sizes;
  uint64_t seed = 0;
  bool reference = false;
};

std::string dims_str(const std::vector<int64_t>& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  return s + "]";
}

void run_program(const RunArgs& a) {
  Fusion f = load_program(a.program);
  verify(f);
  auto shapes = resolve_input_shapes(f, parse_shape_args(a.shapes), parse_size_args(a.sizes));
  std::vector<HostTensor> inputs = make_random_inputs(f, shapes, a.seed);
  const bool gpu = has_gpu() && !a.reference;
  if (gpu)
    std::printf("backend: gpu (%s)\n", current_device().describe().c_str());
  else
    std::printf("backend: reference (CPU)%s\n",
                a.reference ? "" : (" -- no GPU: " + driver_unavailable_reason()).c_str());
  std::printf("fusion %s, seed %llu\n", f.name().c_str(), static_cast<unsigned long long>(a.seed));
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Value& v = f.value(f.inputs()[i]);
    std::printf("  input  %s %s%s\n", v.name.c_str(), std::string(dtype_name(v.dtype)).c_str(), dims_str(shapes[i]).c_str());
  }
  std::vector<HostTensor> outputs;
  if (gpu) {
    Executor ex(f);
    outputs = ex.run_host(inputs);
    for (const auto& l : ex.last_launches())
      if (l.category != "view")
        std::printf("  launched %s (%s) %s; grid %ux%u block %u, %d registers\n", l.name.c_str(), l.category.c_str(),
                    l.params.c_str(), l.grid_x, l.grid_y, l.block, l.registers);
  } else {
    outputs = run_reference(f, inputs);
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Value& v = f.value(f.outputs()[i]);
    std::printf("  output %s %s%s %s\n", v.name.c_str(), std::string(dtype_name(outputs[i].dtype)).c_str(),
                dims_str(outputs[i].shape).c_str(), format_summary(summarize(outputs[i])).c_str());
  }
}
}  // namespace

void register_run(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  auto* cmd = app.add_subcommand("run", "Run a program on random inputs and summarize its outputs");
  add_program_options(cmd, args->program, args->shapes, args->sizes);
  cmd->add_option("--seed", args->seed, "seed of the random inputs (input i uses seed + i)");
  cmd->add_flag("--reference", args->reference, "run on the CPU reference executor even when a GPU is present");
  cmd->callback([args] { run_program(*args); });
}

}  // namespace solder::cli
