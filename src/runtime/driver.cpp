// Loads libcuda.so.1 at run time and keeps one primary context on device 0 for the process.
#include "runtime/driver.h"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <vector>

#include "solder/error.h"

namespace solder {
namespace {

struct DriverState {
  DriverApi api{};
  bool lib_loaded = false;  // api.cuGetErrorName/String usable even when init failed later
  bool ok = false;
  CUcontext ctx = nullptr;
  std::string reason;
};

// Resolves one entry point. The name is the *macro-expanded* field name, so cuda.h's own
// versioning (cuMemAlloc -> cuMemAlloc_v2, cuGraphInstantiate -> cuGraphInstantiateWithFlags,
// cuEventElapsedTime -> cuEventElapsedTime_v2, ...) picks the ABI our prototypes describe.
template <class Lookup, class Fn>
bool resolve(Lookup& lookup, const char* name, Fn& slot, std::string& missing) {
  void* p = lookup(name);
  if (!p) {
    if (!missing.empty()) missing += ", ";
    missing += name;
    return false;
  }
  slot = reinterpret_cast<Fn>(p);
  return true;
}

#define SOLDER_STR_(x) #x
#define SOLDER_STR(x) SOLDER_STR_(x)
#define SOLDER_RESOLVE(field) ok &= resolve(lookup, SOLDER_STR(field), api.field, missing)

// lookup(name) -> address or nullptr: dlsym in production, a recorder for driver_symbol_names().
template <class Lookup>
bool resolve_all(Lookup&& lookup, DriverApi& api, std::string& missing) {
  bool ok = true;
  SOLDER_RESOLVE(cuInit);
  SOLDER_RESOLVE(cuGetErrorString);
  SOLDER_RESOLVE(cuGetErrorName);
  SOLDER_RESOLVE(cuDriverGetVersion);
  SOLDER_RESOLVE(cuDeviceGetCount);
  SOLDER_RESOLVE(cuDeviceGet);
  SOLDER_RESOLVE(cuDeviceGetName);
  SOLDER_RESOLVE(cuDeviceGetAttribute);
  SOLDER_RESOLVE(cuDeviceTotalMem);
  SOLDER_RESOLVE(cuDevicePrimaryCtxRetain);
  SOLDER_RESOLVE(cuCtxSetCurrent);
  SOLDER_RESOLVE(cuCtxGetCurrent);
  SOLDER_RESOLVE(cuCtxSynchronize);
  SOLDER_RESOLVE(cuModuleLoadData);
  SOLDER_RESOLVE(cuModuleUnload);
  SOLDER_RESOLVE(cuModuleGetFunction);
  SOLDER_RESOLVE(cuFuncGetAttribute);
  SOLDER_RESOLVE(cuFuncSetAttribute);
  SOLDER_RESOLVE(cuOccupancyMaxActiveBlocksPerMultiprocessor);
  SOLDER_RESOLVE(cuLaunchKernel);
  SOLDER_RESOLVE(cuLaunchKernelEx);
  SOLDER_RESOLVE(cuOccupancyMaxActiveClusters);
  SOLDER_RESOLVE(cuMemAlloc);
  SOLDER_RESOLVE(cuMemFree);
  SOLDER_RESOLVE(cuMemGetInfo);
  SOLDER_RESOLVE(cuMemcpyHtoD);
  SOLDER_RESOLVE(cuMemcpyDtoH);
  SOLDER_RESOLVE(cuMemcpyDtoDAsync);
  SOLDER_RESOLVE(cuMemsetD8Async);
  SOLDER_RESOLVE(cuMemsetD32Async);
  SOLDER_RESOLVE(cuStreamCreate);
  SOLDER_RESOLVE(cuStreamDestroy);
  SOLDER_RESOLVE(cuStreamSynchronize);
  SOLDER_RESOLVE(cuStreamBeginCapture);
  SOLDER_RESOLVE(cuStreamEndCapture);
  SOLDER_RESOLVE(cuGraphInstantiate);
  SOLDER_RESOLVE(cuGraphLaunch);
  SOLDER_RESOLVE(cuGraphDestroy);
  SOLDER_RESOLVE(cuGraphExecDestroy);
  SOLDER_RESOLVE(cuEventCreate);
  SOLDER_RESOLVE(cuEventDestroy);
  SOLDER_RESOLVE(cuEventRecord);
  SOLDER_RESOLVE(cuEventSynchronize);
  SOLDER_RESOLVE(cuEventElapsedTime);
  return ok;
}

#undef SOLDER_RESOLVE

std::string error_text(const DriverState& s, CUresult r) {
  const char* name = nullptr;
  const char* str = nullptr;
  if (s.lib_loaded) {
    s.api.cuGetErrorName(r, &name);
    s.api.cuGetErrorString(r, &str);
  }
  std::string out = name ? name : "CUDA error " + std::to_string(static_cast<int>(r));
  out += ": ";
  out += str ? str : "unknown error";
  return out;
}

DriverState load() {
  DriverState s;
  const char* off = std::getenv("SOLDER_DISABLE_GPU");
  if (off && *off && std::strcmp(off, "0") != 0) {
    s.reason = "GPU disabled by SOLDER_DISABLE_GPU=" + std::string(off);
    return s;
  }
  // Never dlclose: the driver stays loaded for the life of the process.
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    s.reason = "libcuda.so.1 not found: no NVIDIA driver on this machine";
    return s;
  }
  std::string missing;
  if (!resolve_all([lib](const char* name) { return dlsym(lib, name); }, s.api, missing)) {
    // Error name/string may still be resolvable; keep them usable only when both are.
    s.reason = "libcuda.so.1 is too old: missing " + missing;
    return s;
  }
  s.lib_loaded = true;
  if (CUresult r = s.api.cuInit(0); r != CUDA_SUCCESS) {
    s.reason = "cuInit failed: " + error_text(s, r);
    return s;
  }
  int count = 0;
  if (CUresult r = s.api.cuDeviceGetCount(&count); r != CUDA_SUCCESS || count == 0) {
    s.reason = r != CUDA_SUCCESS ? "cuDeviceGetCount failed: " + error_text(s, r) : "no CUDA device found";
    return s;
  }
  CUdevice dev = 0;
  if (CUresult r = s.api.cuDeviceGet(&dev, 0); r != CUDA_SUCCESS) {
    s.reason = "cuDeviceGet(0) failed: " + error_text(s, r);
    return s;
  }
  if (CUresult r = s.api.cuDevicePrimaryCtxRetain(&s.ctx, dev); r != CUDA_SUCCESS) {
    s.reason = "cuDevicePrimaryCtxRetain failed: " + error_text(s, r);
    return s;
  }
  s.ok = true;
  return s;
}

const DriverState& state() {
  static const DriverState s = load();  // thread-safe one-time init
  return s;
}

}  // namespace

const DriverApi* driver() {
  const DriverState& s = state();
  if (!s.ok) return nullptr;
  // The primary context must be current on every thread that calls the driver; do it once per
  // thread (cheap flag) rather than making every caller remember.
  thread_local bool current = false;
  if (!current) {
    check_cuda(s.api.cuCtxSetCurrent(s.ctx), "cuCtxSetCurrent");
    current = true;
  }
  return &s.api;
}

const std::string& driver_unavailable_reason() { return state().reason; }

std::vector<std::string> driver_symbol_names() {
  std::vector<std::string> names;
  DriverApi api{};
  std::string missing;
  resolve_all(
      [&](const char* name) -> void* {
        names.emplace_back(name);
        return nullptr;
      },
      api, missing);
  return names;
}

std::string cuda_error_text(CUresult r) { return error_text(state(), r); }

void check_cuda(CUresult r, const std::string& what, const std::string& kernel) {
  if (r == CUDA_SUCCESS) return;
  std::string msg = what;
  if (!kernel.empty()) msg += " in kernel " + kernel;
  msg += ": " + cuda_error_text(r);
  throw Error(msg);
}

const DriverApi& need_driver(const char* what) {
  const DriverApi* d = driver();
  if (!d) throw Error(std::string(what) + " needs a GPU: " + driver_unavailable_reason());
  return *d;
}

}  // namespace solder
