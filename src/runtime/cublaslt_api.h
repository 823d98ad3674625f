#pragma once
// The few cuBLASLt entry points blas.cpp uses, resolved from libcublasLt.so.13 with dlsym.
// cublasLt.h provides the types only; the library is never linked.
#include <cublasLt.h>

#include <string>

namespace solder {

struct CublasLtApi {
  decltype(&::cublasLtCreate) create;
  decltype(&::cublasLtGetStatusName) status_name;
  decltype(&::cublasLtGetStatusString) status_string;
  decltype(&::cublasLtMatmul) matmul;
  decltype(&::cublasLtMatmulDescCreate) desc_create;
  decltype(&::cublasLtMatmulDescDestroy) desc_destroy;
  decltype(&::cublasLtMatmulDescSetAttribute) desc_set;
  decltype(&::cublasLtMatrixLayoutCreate) layout_create;
  decltype(&::cublasLtMatrixLayoutDestroy) layout_destroy;
  decltype(&::cublasLtMatrixLayoutSetAttribute) layout_set;
  decltype(&::cublasLtMatmulPreferenceCreate) pref_create;
  decltype(&::cublasLtMatmulPreferenceDestroy) pref_destroy;
  decltype(&::cublasLtMatmulPreferenceSetAttribute) pref_set;
  decltype(&::cublasLtMatmulAlgoGetHeuristic) heuristic;
};

// The loaded API, or nullptr; then cublaslt_unavailable_reason() says why.
const CublasLtApi* cublaslt();
const std::string& cublaslt_unavailable_reason();

}  // namespace solder
