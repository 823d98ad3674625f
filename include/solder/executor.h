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
  std::string category;  // pointwise | inner-reduction | full-reduction | matmul | copy | view
  std::string params;
  int registers = 0, spill_bytes = 0;
  unsigned grid_x = 0, grid_y = 0, block = 0;
  int64_t bytes = 0;  // bytes the kernel reads + writes (every operand once)
  int64_t cols = 0;   // row length of the kernel's [rows, cols] domain
  int vec = 0;
  std::string tuning_key;  // where autotune records a better choice for this kernel
};

struct ExecutorStats {
  int64_t signatures = 0;       // distinct input signatures planned (first calls)
  int64_t kernels_compiled = 0;  // kernels this executor obtained from the cache's compile path
  int64_t runs = 0;
};

class Executor {
 public:
  // `raw` skips the rewrite passes (used for the internal copy kernels).
  explicit Executor(const Fusion& f, bool raw = false);
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  // Inputs in fusion order. `outputs`, when given, are written in place (any strides).
  std::vector<DeviceTensor> run(const std::vector<DeviceTensor>& inputs, CUstream stream = nullptr,
                                const std::vector<DeviceTensor>* outputs = nullptr);
  std::vector<HostTensor> run_host(const std::vector<HostTensor>& inputs);

  // Segments and, for the given input sizes (contiguous inputs), each kernel's plan, registers,
  // spills and occupancy. Needs no GPU (compiles with NVRTC).
  std::string explain(const std::vector<std::vector<int64_t>>& input_shapes) const;

  // Plans and compiles every kernel for these input sizes (contiguous inputs) without running
  // anything: the no-GPU path of `solder bench` and CI's compile checks.
  std::vector<LaunchRecord> compile_for(const std::vector<std::vector<int64_t>>& input_shapes) const;

  // What the last run launched, in order.
  const std::vector<LaunchRecord>& last_launches() const;
  const ExecutorStats& stats() const;
  const Fusion& fusion() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace solder
