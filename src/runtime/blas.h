#pragma once
// Matmul through cuBLASLt, loaded at run time (dlopen libcublasLt.so.13) so binaries start
// without it. Row-major in, row-major out: the row-major problem C = op(A) op(B) is handed to
// cuBLASLt as the column-major problem C^T = op(B)^T op(A)^T. Requires has_gpu().
#include <cuda.h>

#include <cstdint>
#include <string>

#include "solder/dtype.h"

namespace solder {

// Leading dimensions (row strides, in elements) of the matrices as stored, and batch strides
// (in elements; 0 broadcasts one matrix over the batch).
struct MatmulStrides {
  int64_t lda = 0, ldb = 0, ldc = 0;
  int64_t batch_a = 0, batch_b = 0, batch_c = 0;
};

// Dense row-major strides: A stored m x k (k x m when trans_a), B stored k x n (n x k when
// trans_b), C m x n, batches back to back.
MatmulStrides contiguous_matmul_strides(int64_t m, int64_t n, int64_t k, bool trans_a, bool trans_b);

// C[b] = op(A[b]) @ op(B[b]) (+ bias) (relu), for b < batch. op(A) is m x k, op(B) k x n.
// dtype: F32 (exact fp32 compute, no TF32), F16 or BF16 (fp32 accumulation). bias: optional
// device vector of n elements of `dtype`, added to every row. Throws solder::Error when cuBLASLt
// is missing or rejects the problem.
void blas_matmul(DType dtype, CUdeviceptr a, CUdeviceptr b, CUdeviceptr c, int64_t batch, int64_t m, int64_t n,
                 int64_t k, const MatmulStrides& strides, bool trans_a, bool trans_b, CUstream stream,
                 CUdeviceptr bias = 0, bool relu = false);

// Whether libcublasLt.so.13 could be loaded, and why not.
bool blas_available();
const std::string& blas_unavailable_reason();

}  // namespace solder
