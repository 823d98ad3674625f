#pragma once
// matmul / linear through cuBLASLt: operand layouts are resolved once per signature; operands
// that are not expressible as (batched) strided matrices are first copied contiguous.
#include <cstdint>
#include <memory>
#include <vector>

#include "exec/view_meta.h"
#include "solder/fusion.h"

typedef struct CUstream_st* CUstream;

namespace solder {

class MatmulStep {
 public:
  MatmulStep(Op op, const std::vector<TensorMeta>& inputs, const TensorMeta& output);
  ~MatmulStep();
  void run(const std::vector<uint64_t>& inputs, uint64_t output, CUstream stream);

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace solder
