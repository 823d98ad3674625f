// Executor::capture and the captured run it returns: a CUDA graph of one run of the program.
#include "runtime/capture_retention.h"
#include "runtime/driver.h"
#include "solder/error.h"
#include "solder/executor.h"

namespace solder {

struct CapturedRun::Impl {
  // The capture's own stream, kept for the graph's life: cuBLASLt keys the workspace a captured
  // matmul addresses by stream, and a destroyed stream's handle could come back to another.
  CUstream stream = nullptr;
  CUgraph graph = nullptr;
  CUgraphExec exec = nullptr;
  std::vector<DeviceTensor> outputs;
  std::vector<std::shared_ptr<void>> keep;  // every other buffer the graph's steps address

  ~Impl() {
    const DriverApi* cu = driver();
    if (!cu) return;
    if (exec) cu->cuGraphExecDestroy(exec);
    if (graph) cu->cuGraphDestroy(graph);
    if (stream) cu->cuStreamDestroy(stream);
  }
};

CapturedRun::CapturedRun(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CapturedRun::~CapturedRun() = default;

const std::vector<DeviceTensor>& CapturedRun::outputs() const { return impl_->outputs; }

void CapturedRun::replay(CUstream stream) const {
  check_cuda(driver()->cuGraphLaunch(impl_->exec, stream), "replaying a captured run");
}

std::unique_ptr<CapturedRun> Executor::capture(const std::vector<DeviceTensor>& inputs, CUstream stream) {
  const DriverApi* cu = driver();
  if (!cu) throw Error("no GPU: " + driver_unavailable_reason());
  const std::string what = "capture of " + fusion().name();
  if (profiling()) throw Error(what + ": profiling is on (its events cannot be captured)");
  auto im = std::make_unique<CapturedRun::Impl>();
  // The plans of both signatures (outputs allocated, then given) are built before the capture:
  // building copies initial values into scratch memory synchronously.
  im->outputs = run(inputs, stream);
  run(inputs, stream, &im->outputs);
  check_cuda(cu->cuStreamSynchronize(stream), what + ": synchronizing first");
  check_cuda(cu->cuStreamCreate(&im->stream, CU_STREAM_NON_BLOCKING), what + ": creating its stream");
  // Relaxed: the caching allocator may call cuMemAlloc while the capture is open.
  check_cuda(cu->cuStreamBeginCapture(im->stream, CU_STREAM_CAPTURE_MODE_RELAXED), what);
  try {
    CaptureRetention retain(im->keep);
    run(inputs, im->stream, &im->outputs);
  } catch (...) {
    CUgraph partial = nullptr;
    cu->cuStreamEndCapture(im->stream, &partial);
    if (partial) cu->cuGraphDestroy(partial);
    throw;
  }
  check_cuda(cu->cuStreamEndCapture(im->stream, &im->graph), what);
  check_cuda(cu->cuGraphInstantiate(&im->exec, im->graph, 0), what + ": instantiating the graph");
  return std::make_unique<CapturedRun>(std::move(im));
}

}  // namespace solder
