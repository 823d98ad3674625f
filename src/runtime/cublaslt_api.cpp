// Loads libcublasLt.so.13 once per process.
#include "runtime/cublaslt_api.h"

#include <dlfcn.h>

#include "runtime/toolkit_paths.h"

namespace solder {
namespace {

constexpr const char* kLibName = "libcublasLt.so.13";

struct Loaded {
  CublasLtApi api{};
  bool ok = false;
  std::string reason;
};

template <class Fn>
void resolve(void* lib, const char* name, Fn& slot, std::string& missing) {
  slot = reinterpret_cast<Fn>(dlsym(lib, name));
  if (!slot) missing += missing.empty() ? name : std::string(", ") + name;
}

Loaded load() {
  Loaded l;
  // The normal search path first; then the folder of the linked libnvrtc, where the toolkit
  // keeps its libraries even when that folder is not in the loader's path.
  void* lib = dlopen(kLibName, RTLD_NOW | RTLD_LOCAL);
  std::string first_error = lib ? "" : dlerror();
  if (!lib && !cuda_library_dir().empty()) lib = dlopen((cuda_library_dir() + "/" + kLibName).c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    l.reason = std::string(kLibName) + " not found (install cuBLAS for CUDA 13 or add it to LD_LIBRARY_PATH): " +
               first_error;
    return l;
  }
  std::string missing;
  CublasLtApi& a = l.api;
  resolve(lib, "cublasLtCreate", a.create, missing);
  resolve(lib, "cublasLtGetStatusName", a.status_name, missing);
  resolve(lib, "cublasLtGetStatusString", a.status_string, missing);
  resolve(lib, "cublasLtMatmul", a.matmul, missing);
  resolve(lib, "cublasLtMatmulDescCreate", a.desc_create, missing);
  resolve(lib, "cublasLtMatmulDescDestroy", a.desc_destroy, missing);
  resolve(lib, "cublasLtMatmulDescSetAttribute", a.desc_set, missing);
  resolve(lib, "cublasLtMatrixLayoutCreate", a.layout_create, missing);
  resolve(lib, "cublasLtMatrixLayoutDestroy", a.layout_destroy, missing);
  resolve(lib, "cublasLtMatrixLayoutSetAttribute", a.layout_set, missing);
  resolve(lib, "cublasLtMatmulPreferenceCreate", a.pref_create, missing);
  resolve(lib, "cublasLtMatmulPreferenceDestroy", a.pref_destroy, missing);
  resolve(lib, "cublasLtMatmulPreferenceSetAttribute", a.pref_set, missing);
  resolve(lib, "cublasLtMatmulAlgoGetHeuristic", a.heuristic, missing);
  if (!missing.empty()) {
    l.reason = std::string(kLibName) + " lacks " + missing;
    return l;
  }
  l.ok = true;
  return l;
}

const Loaded& loaded() {
  static const Loaded l = load();
  return l;
}

}  // namespace

const CublasLtApi* cublaslt() { return loaded().ok ? &loaded().api : nullptr; }
const std::string& cublaslt_unavailable_reason() { return loaded().reason; }

}  // namespace solder
