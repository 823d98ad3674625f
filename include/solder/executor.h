#pragma once
// Runs a fusion on the GPU. The first call with a new input signature (shapes, strides,
// 16-byte alignment) plans every segment, compiles (or finds in the kernel caches) each kernel
// and records a replayable launch program; later calls with that signature only patch
// pointers, allocate outputs from the caching allocator and launch.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "solder/fusion.h"
#include "solder/host_tensor.h"

typedef struct CUstream_st* CUstream;

namespace solder {

// A strided view of device memory. `owner` keeps an allocation alive (null for borrowed memory).
struct DeviceTensor {
  DType dtype = DType::F32;
  std::vector<int64_t> shape, strides;  // strides in elements
  uint64_t ptr = 0;                     // address of element 0
  std::shared_ptr<void> owner;
  int64_t numel() const;
};

DeviceTensor to_device(const HostTensor& h);  // same strides layout made contiguous
HostTensor to_host(const DeviceTensor& d);    // contiguous copy

struct LaunchRecord {
  std::string name;      // kernel name, or "view", "matmul"
  std::string category;  // pointwise | inner-reduction | outer-reduction | full-reduction | matmul | copy | view
  std::string params;
  int registers = 0, spill_bytes = 0;
  unsigned grid_x = 0, grid_y = 0, block = 0;
  int64_t bytes = 0;  // bytes the kernel reads + writes (every operand once)
  int64_t cols = 0;   // row length of the kernel's [rows, cols] domain
  int vec = 0;
  std::string tuning_key;  // where autotune records a better choice for this kernel
};

// One step of a profiled run (Executor::set_profiling), in launch order. Kernel, copy, cat and
// matmul steps are timed with a pair of CUDA events on the run's stream; a nested copy executor
// counts as one step, a cat as one step over all its pieces. Views launch nothing: ms = 0.
struct StepTiming {
  std::string name, category;  // as in LaunchRecord; a cat is "solder_copy_cat" / "copy"
  float ms = 0;
  unsigned grid_x = 0, grid_y = 0, block = 0;
  int registers = 0, spill_bytes = 0;
  int64_t bytes = 0;
  bool launched() const { return category != "view"; }
};

// A generated kernel as compiled: what `solder profile --dump-dir` writes out.
struct KernelSourceInfo {
  std::string name;
  std::string source;     // CUDA C++ (extern "C" __global__ <name>)
  std::string ptxas_log;  // NVRTC + ptxas -v log
  int registers = 0, spill_bytes = 0;
};

struct ExecutorStats {
  int64_t signatures = 0;       // distinct input signatures planned (first calls)
  int64_t kernels_compiled = 0;  // NVRTC compiles this executor caused (cache hits and new sizes of a
                                 // compiled class add none; a spill retry adds one)
  int64_t runs = 0;
};

// A run of an executor recorded as a CUDA graph (Executor::capture). replay() enqueues every
// step of the program with one graph launch, on the device memory of the capture: the inputs
// given to capture (write new values into them between replays), outputs() and the
// intermediates it holds. Replays on one stream run in order; the caller keeps the inputs'
// memory alive.
class CapturedRun {
 public:
  ~CapturedRun();
  CapturedRun(const CapturedRun&) = delete;
  CapturedRun& operator=(const CapturedRun&) = delete;
  void replay(CUstream stream = nullptr) const;
  const std::vector<DeviceTensor>& outputs() const;

  struct Impl;
  explicit CapturedRun(std::unique_ptr<Impl> impl);

 private:
  std::unique_ptr<Impl> impl_;
};

struct ExecutorOptions {
  // Pins kernel plans (nvFuser's and Inductor's users try other heuristics this way):
  // "KEY=VALUE,..." applies to every kernel, "SEG:KEY=VALUE,..." to kernel segment SEG only;
  // several separated by ';'. Keys are KernelParams' parts as `solder explain` prints them,
  // e.g. "threads_per_row=512,prefetch=0", "1:unroll=1", "max_registers=96" (a register cap),
  // "scheduler=outer_norm" (that scheduler takes the kernel, or an error says why it cannot).
  std::string plan;
  // Every program output the caller does not provide is made contiguous in a buffer of its own,
  // as a caller that passes contiguous output buffers (Python, torch's .contiguous()) gets: a
  // permuted view of a kernel's result is then written by that kernel through the view's strides,
  // a view of an input is copied (an input returned as an output stays as it is). Off: a view
  // stays metadata on its source's memory.
  bool contiguous_outputs = false;
};

class Executor {
 public:
  // `raw` skips the rewrite passes (used for the internal copy kernels).
  explicit Executor(const Fusion& f, bool raw = false);
  Executor(const Fusion& f, const ExecutorOptions& options);
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  // Inputs in fusion order. `outputs`, when given, are written in place (any strides).
  std::vector<DeviceTensor> run(const std::vector<DeviceTensor>& inputs, CUstream stream = nullptr,
                                const std::vector<DeviceTensor>* outputs = nullptr);
  std::vector<HostTensor> run_host(const std::vector<HostTensor>& inputs);

  // Runs once on `stream` (planning and compiling as run does), then records a run on these
  // inputs as a CUDA graph: its replays cost one graph launch however many kernels the program
  // has. Not while profiling (events are not captured).
  std::unique_ptr<CapturedRun> capture(const std::vector<DeviceTensor>& inputs, CUstream stream = nullptr);

  // Segments and, for inputs of these sizes (and strides in elements, where given; else
  // contiguous), the steps a run would take: which scheduler took each kernel (and why the
  // others could not), its plan, the candidates rejected before it, registers, spills and
  // occupancy; where a view becomes a copy. The same planning as run's. Needs no GPU.
  // `output_strides`: where given, the run writes outputs of these strides (a caller's out=
  // buffers, dense), as the Python call does with eager's layouts.
  std::string explain(const std::vector<std::vector<int64_t>>& input_shapes,
                      const std::vector<std::vector<int64_t>>& input_strides = {},
                      const std::vector<std::vector<int64_t>>& output_strides = {}) const;

  // Plans and compiles every kernel for these input sizes (contiguous inputs) without running
  // anything: the no-GPU path of `solder bench` and CI's compile checks. Copies (views copied
  // into contiguous outputs, reshapes strides cannot express) give their copy kernels' records.
  // With `sources`, also gives each kernel's generated source and ptxas log (nested copy
  // kernels included: views copied into contiguous outputs).
  std::vector<LaunchRecord> compile_for(const std::vector<std::vector<int64_t>>& input_shapes,
                                        std::vector<KernelSourceInfo>* sources = nullptr) const;

  // Profiling (off by default; off costs one branch per run). While on, every run records CUDA
  // events around each step; last_step_timings() then waits for the last profiled run's events
  // and returns one StepTiming per step. Empty when nothing was profiled since profiling was
  // last switched on. Events are created once per executor and reused.
  void set_profiling(bool on);
  bool profiling() const;
  std::vector<StepTiming> last_step_timings() const;

  // The generated kernels of the signature planned last (then those of nested copy executors
  // that have run), one per kernel name. Empty before the first run.
  std::vector<KernelSourceInfo> kernel_sources() const;

  // What the last run launched, in order.
  const std::vector<LaunchRecord>& last_launches() const;
  const ExecutorStats& stats() const;
  const Fusion& fusion() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace solder
