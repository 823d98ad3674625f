#pragma once
// The CUDA driver API, loaded at run time from libcuda.so.1 (dlopen), so that every binary starts
// on a machine without a GPU and can fall back to the reference executor, saying why.
#include <cuda.h>

#include <string>
#include <vector>

namespace solder {

struct DriverApi {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuGetErrorString)(CUresult, const char**);
  CUresult (*cuDeviceGetCount)(int*);
  CUresult (*cuDeviceGet)(CUdevice*, int);
  CUresult (*cuDeviceGetName)(char*, int, CUdevice);
  CUresult (*cuDeviceGetAttribute)(int*, CUdevice_attribute, CUdevice);
  CUresult (*cuDeviceTotalMem)(size_t*, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuModuleLoadData)(CUmodule*, const void*);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction*, CUmodule, const char*);
  CUresult (*cuFuncGetAttribute)(int*, CUfunction_attribute, CUfunction);
  CUresult (*cuFuncSetAttribute)(CUfunction, CUfunction_attribute, int);
  CUresult (*cuOccupancyMaxActiveBlocksPerMultiprocessor)(int*, CUfunction, int, size_t);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             CUstream, void**, void**);
  CUresult (*cuMemAlloc)(CUdeviceptr*, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemGetInfo)(size_t*, size_t*);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void*, size_t);
  CUresult (*cuMemcpyDtoH)(void*, CUdeviceptr, size_t);
  CUresult (*cuMemcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
  CUresult (*cuMemsetD8Async)(CUdeviceptr, unsigned char, size_t, CUstream);
  CUresult (*cuMemsetD32Async)(CUdeviceptr, unsigned, size_t, CUstream);
  CUresult (*cuStreamCreate)(CUstream*, unsigned);
  CUresult (*cuStreamDestroy)(CUstream);
  CUresult (*cuStreamSynchronize)(CUstream);
  CUresult (*cuStreamBeginCapture)(CUstream, CUstreamCaptureMode);
  CUresult (*cuStreamEndCapture)(CUstream, CUgraph*);
  CUresult (*cuGraphInstantiate)(CUgraphExec*, CUgraph, unsigned long long);
  CUresult (*cuGraphLaunch)(CUgraphExec, CUstream);
  CUresult (*cuGraphDestroy)(CUgraph);
  CUresult (*cuGraphExecDestroy)(CUgraphExec);
  CUresult (*cuEventCreate)(CUevent*, unsigned);
  CUresult (*cuEventDestroy)(CUevent);
  CUresult (*cuEventRecord)(CUevent, CUstream);
  CUresult (*cuEventSynchronize)(CUevent);
  CUresult (*cuEventElapsedTime)(float*, CUevent, CUevent);
  // Added after the first version of this interface (append only: others code against it).
  CUresult (*cuGetErrorName)(CUresult, const char**);
  CUresult (*cuDriverGetVersion)(int*);
  CUresult (*cuCtxGetCurrent)(CUcontext*);
  // Thread-block clusters (sm_90): launches with a cluster shape, and how many fit at once.
  CUresult (*cuLaunchKernelEx)(const CUlaunchConfig*, CUfunction, void**, void**);
  CUresult (*cuOccupancyMaxActiveClusters)(int*, CUfunction, const CUlaunchConfig*);
};

// The loaded driver with a current primary context on device 0, or nullptr when there is no
// usable driver/GPU; then driver_unavailable_reason() says why (e.g. "libcuda.so.1 not found").
const DriverApi* driver();
const std::string& driver_unavailable_reason();
inline bool has_gpu() { return driver() != nullptr; }
// The driver, or an error saying `what` needs a GPU and why there is none.
const DriverApi& need_driver(const char* what);
// The libcuda.so.1 symbols driver() resolves, in order (cuda.h's versioned names, e.g.
// cuMemAlloc_v2, cuGraphInstantiateWithFlags). For tests and diagnostics.
std::vector<std::string> driver_symbol_names();

// Throws solder::Error "<what>[ in kernel <kernel>]: CUDA_ERROR_X: <CUDA error string>" unless
// r == CUDA_SUCCESS.
void check_cuda(CUresult r, const std::string& what, const std::string& kernel = "");
// "CUDA_ERROR_X: <string>" (falls back to the numeric code when the driver cannot name it).
std::string cuda_error_text(CUresult r);

}  // namespace solder
