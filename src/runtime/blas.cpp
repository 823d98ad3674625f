// Row-major (batched, strided) matmul on cuBLASLt, with cached plans and per-stream workspaces.
#include "runtime/blas.h"

#include <map>
#include <memory>
#include <mutex>
#include <tuple>

#include <fmt/format.h>

#include "runtime/cublaslt_api.h"
#include "runtime/device_memory.h"
#include "runtime/driver.h"
#include "solder/error.h"

namespace solder {
namespace {

constexpr size_t kWorkspaceBytes = size_t{32} << 20;  // what cuBLAS recommends for Hopper

// Everything that selects descriptors and the algorithm. Pointer alignments are part of it:
// cuBLASLt picks vectorized kernels from them (CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_*).
using PlanKey = std::tuple<DType, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                           int64_t, bool, bool, bool, bool, uint32_t, uint32_t, uint32_t, uint32_t>;

struct Plan {
  const CublasLtApi* lt = nullptr;
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
  cublasLtMatmulAlgo_t algo{};
  ~Plan() {
    if (a) lt->layout_destroy(a);
    if (b) lt->layout_destroy(b);
    if (c) lt->layout_destroy(c);
    if (desc) lt->desc_destroy(desc);
  }
};

struct Blas {
  std::mutex mu;  // one call at a time: plans (bias pointer) and workspaces are shared
  cublasLtHandle_t handle = nullptr;
  std::map<PlanKey, std::unique_ptr<Plan>> plans;
  std::map<CUstream, DeviceBuffer> workspaces;  // one per stream so streams never share scratch
};

Blas& blas() {
  static auto* b = new Blas();  // never destroyed: the handle outlives static teardown
  return *b;
}

void check(const CublasLtApi& lt, cublasStatus_t s, const char* what, const std::string& problem) {
  if (s == CUBLAS_STATUS_SUCCESS) return;
  throw Error(fmt::format("cuBLASLt {} failed for {}: {}: {}", what, problem, lt.status_name(s), lt.status_string(s)));
}

cudaDataType data_type(DType t) {
  switch (t) {
    case DType::F32: return CUDA_R_32F;
    case DType::F16: return CUDA_R_16F;
    case DType::BF16: return CUDA_R_16BF;
    default: throw Error(fmt::format("blas_matmul supports f32, f16 and bf16, not {}", dtype_name(t)));
  }
}

// Largest power of two (<= 256) dividing every matrix's address in the batch.
uint32_t alignment(CUdeviceptr p, int64_t batch_stride_bytes, int64_t batch) {
  uint64_t bits = p | (batch > 1 ? static_cast<uint64_t>(batch_stride_bytes) : 0) | 256;
  return static_cast<uint32_t>(bits & (~bits + 1));
}

// A row-major r x c matrix with row stride ld is, to cuBLASLt, column-major c x r with the same ld.
cublasLtMatrixLayout_t layout(const CublasLtApi& lt, cudaDataType t, int64_t rows, int64_t cols, int64_t ld,
                              int64_t batch, int64_t stride, const std::string& problem) {
  cublasLtMatrixLayout_t l = nullptr;
  check(lt, lt.layout_create(&l, t, static_cast<uint64_t>(cols), static_cast<uint64_t>(rows), ld), "layout create",
        problem);
  if (batch > 1) {
    int32_t count = static_cast<int32_t>(batch);
    check(lt, lt.layout_set(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof(count)), "batch count", problem);
    check(lt, lt.layout_set(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof(stride)),
          "batch stride", problem);
  }
  return l;
}

std::unique_ptr<Plan> make_plan(const CublasLtApi& lt, cublasLtHandle_t handle, DType dtype, int64_t batch, int64_t m,
                                 int64_t n, int64_t k, const MatmulStrides& s, bool trans_a, bool trans_b,
                                 CUdeviceptr bias, bool relu, const uint32_t align[4], const std::string& problem) {
  auto plan = std::make_unique<Plan>();
  plan->lt = &lt;
  cudaDataType t = data_type(dtype);
  // fp32 accumulation for every type; CUBLAS_COMPUTE_32F (not _FAST_TF32) keeps f32 exact.
  check(lt, lt.desc_create(&plan->desc, CUBLAS_COMPUTE_32F, CUDA_R_32F), "matmul desc create", problem);
  // Column-major view: C^T (n x m) = op(B)^T (n x k) * op(A)^T (k x m); cuBLASLt's "A" is our B.
  cublasOperation_t op_first = trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasOperation_t op_second = trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  check(lt, lt.desc_set(plan->desc, CUBLASLT_MATMUL_DESC_TRANSA, &op_first, sizeof(op_first)), "transa", problem);
  check(lt, lt.desc_set(plan->desc, CUBLASLT_MATMUL_DESC_TRANSB, &op_second, sizeof(op_second)), "transb", problem);
  cublasLtEpilogue_t epi = bias ? (relu ? CUBLASLT_EPILOGUE_RELU_BIAS : CUBLASLT_EPILOGUE_BIAS)
                                : (relu ? CUBLASLT_EPILOGUE_RELU : CUBLASLT_EPILOGUE_DEFAULT);
  check(lt, lt.desc_set(plan->desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof(epi)), "epilogue", problem);
  if (bias) {
    // Bias has C's type and n elements: cuBLASLt's D has n rows in the column-major view.
    int32_t bias_type = t;
    check(lt, lt.desc_set(plan->desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bias_type, sizeof(bias_type)),
          "bias type", problem);
    check(lt, lt.desc_set(plan->desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof(bias)), "bias pointer",
          problem);
  }
  // Stored shapes (row-major): B is k x n (n x k when trans_b), A is m x k (k x m when trans_a).
  plan->a = trans_b ? layout(lt, t, n, k, s.ldb, batch, s.batch_b, problem)
                    : layout(lt, t, k, n, s.ldb, batch, s.batch_b, problem);
  plan->b = trans_a ? layout(lt, t, k, m, s.lda, batch, s.batch_a, problem)
                    : layout(lt, t, m, k, s.lda, batch, s.batch_a, problem);
  plan->c = layout(lt, t, m, n, s.ldc, batch, s.batch_c, problem);

  struct PrefGuard {
    const CublasLtApi& lt;
    cublasLtMatmulPreference_t p = nullptr;
    ~PrefGuard() {
      if (p) lt.pref_destroy(p);
    }
  } guard{lt};
  check(lt, lt.pref_create(&guard.p), "preference create", problem);
  cublasLtMatmulPreference_t pref = guard.p;
  uint64_t ws = kWorkspaceBytes;
  check(lt, lt.pref_set(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof(ws)), "workspace pref", problem);
  // align[]: a, b, c, bias in *our* naming; cuBLASLt's A/B are swapped.
  const cublasLtMatmulPreferenceAttributes_t attrs[4] = {
      CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES,
      CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES};
  for (int i = 0; i < 3; ++i) check(lt, lt.pref_set(pref, attrs[i], &align[i], sizeof(uint32_t)), "alignment", problem);
  check(lt, lt.pref_set(pref, attrs[3], &align[2], sizeof(uint32_t)), "alignment", problem);

  cublasLtMatmulHeuristicResult_t result{};
  int found = 0;
  check(lt, lt.heuristic(handle, plan->desc, plan->a, plan->b, plan->c, plan->c, pref, 1, &result, &found),
        "algorithm heuristic", problem);
  if (found == 0) throw Error("cuBLASLt has no algorithm for " + problem);
  plan->algo = result.algo;
  return plan;
}

void validate(int64_t m, int64_t n, int64_t k, const MatmulStrides& s, bool trans_a, bool trans_b,
              const std::string& problem) {
  if (m < 0 || n < 0 || k <= 0) throw Error("blas_matmul needs m, n >= 0 and k > 0: " + problem);
  int64_t a_cols = trans_a ? m : k, b_cols = trans_b ? k : n;
  if (s.lda < a_cols || s.ldb < b_cols || s.ldc < n)
    throw Error(fmt::format("blas_matmul leading dimensions too small (need lda >= {}, ldb >= {}, ldc >= {}): {}",
                            a_cols, b_cols, n, problem));
}

}  // namespace

MatmulStrides contiguous_matmul_strides(int64_t m, int64_t n, int64_t k, bool trans_a, bool trans_b) {
  MatmulStrides s;
  s.lda = trans_a ? m : k;
  s.ldb = trans_b ? k : n;
  s.ldc = n;
  s.batch_a = m * k;
  s.batch_b = k * n;
  s.batch_c = m * n;
  return s;
}

bool blas_available() { return cublaslt() != nullptr; }
const std::string& blas_unavailable_reason() { return cublaslt_unavailable_reason(); }

void blas_matmul(DType dtype, CUdeviceptr a, CUdeviceptr b, CUdeviceptr c, int64_t batch, int64_t m, int64_t n,
                 int64_t k, const MatmulStrides& s, bool trans_a, bool trans_b, CUstream stream, CUdeviceptr bias,
                 bool relu) {
  std::string problem = fmt::format("{} matmul batch={} m={} n={} k={} trans_a={} trans_b={} lda={} ldb={} ldc={}",
                                    dtype_name(dtype), batch, m, n, k, trans_a, trans_b, s.lda, s.ldb, s.ldc);
  validate(m, n, k, s, trans_a, trans_b, problem);
  if (batch <= 0 || m == 0 || n == 0) return;
  if (!driver()) throw Error("blas_matmul needs a GPU: " + driver_unavailable_reason());
  const CublasLtApi* lt = cublaslt();
  if (!lt) throw Error("blas_matmul: cuBLASLt unavailable: " + cublaslt_unavailable_reason());

  int64_t elem = dtype_size(dtype);
  uint32_t align[4] = {alignment(a, s.batch_a * elem, batch), alignment(b, s.batch_b * elem, batch),
                       alignment(c, s.batch_c * elem, batch), bias ? alignment(bias, 0, 1) : 256u};
  PlanKey key{dtype, batch, m, n, k, s.lda, s.ldb, s.ldc, s.batch_a, s.batch_b, s.batch_c, trans_a, trans_b,
              bias != 0, relu, align[0], align[1], align[2], align[3]};

  Blas& st = blas();
  std::lock_guard<std::mutex> lock(st.mu);
  if (!st.handle) check(*lt, lt->create(&st.handle), "handle create", problem);
  auto it = st.plans.find(key);
  if (it == st.plans.end())
    it = st.plans.emplace(key, make_plan(*lt, st.handle, dtype, batch, m, n, k, s, trans_a, trans_b, bias, relu, align,
                                         problem))
             .first;
  Plan& plan = *it->second;
  if (bias)
    check(*lt, lt->desc_set(plan.desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof(bias)), "bias pointer",
          problem);
  auto ws = st.workspaces.find(stream);
  if (ws == st.workspaces.end()) ws = st.workspaces.emplace(stream, DeviceBuffer(kWorkspaceBytes)).first;

  const float alpha = 1.0f, beta = 0.0f;
  // Swapped operands: cuBLASLt's A is our B and its B is our A (see make_plan).
  check(*lt,
        lt->matmul(st.handle, plan.desc, &alpha, reinterpret_cast<const void*>(b), plan.a,
                   reinterpret_cast<const void*>(a), plan.b, &beta, reinterpret_cast<const void*>(c), plan.c,
                   reinterpret_cast<void*>(c), plan.c, &plan.algo, reinterpret_cast<void*>(ws->second.ptr()),
                   kWorkspaceBytes, reinterpret_cast<cudaStream_t>(stream)),
        "matmul", problem);
}

}  // namespace solder
