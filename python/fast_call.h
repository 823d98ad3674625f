#pragma once
// The Python call of an Executor. Tensors whose type carries the DLPack exchange table (torch
// 2.10+) take the fast path: pointers, sizes and strides read in C, torch's current stream,
// outputs from torch's caching allocator (or the caller's, `out=`). Other tensors (numpy,
// older torch) go through DLPack capsules (solder_module.cpp).
#include <nanobind/nanobind.h>

#include <cstdint>
#include <optional>
#include <vector>

#include "solder/executor.h"
#include "solder/host_tensor.h"

namespace solder_py {

namespace nb = nanobind;

// An Executor as Python holds it: the output sizes (and layouts) of the last input sizes and
// strides are kept, since a program calls one fusion with the same inputs again and again.
struct PyExecutor {
  PyExecutor(const solder::Fusion& f, const std::string& plan, bool contiguous_outputs)
      : ex(f, solder::ExecutorOptions{plan, contiguous_outputs}), contiguous_outputs(contiguous_outputs) {}
  solder::Executor ex;
  bool contiguous_outputs;  // new outputs contiguous, views included (ExecutorOptions::contiguous_outputs)
  std::vector<int64_t> last_inputs;
  std::vector<std::vector<int64_t>> last_out_shapes;
  // Per output: the strides of its natural layout (natural_output_metas), or empty where that
  // is contiguous (or contiguous_outputs asks for it); and the dense shape its buffer is
  // allocated at (its dims by falling stride).
  std::vector<std::vector<int64_t>> last_out_strides, last_out_dense;
  const std::vector<std::vector<int64_t>>& output_shapes(const std::vector<std::vector<int64_t>>& input_sizes,
                                                        const std::vector<std::vector<int64_t>>& input_strides = {});
};

// The call on tensors that all have the exchange table: a list of output tensors, or nullopt
// when some argument's type has none. `out`: None or a sequence of tensors to write; `stream`:
// None (the framework's current stream) or a CUstream handle as an int.
std::optional<nb::list> call_exchange(PyExecutor& pe, nb::args args, nb::handle out, nb::handle stream);

// DLPack dtype codes (DLPack 1.1 numbering) to and from Solder's dtypes.
solder::DType dtype_of_dlpack(uint8_t code, uint8_t bits, uint16_t lanes, size_t index);
void dlpack_of_dtype(solder::DType t, uint8_t& code, uint8_t& bits);

// A strided host array, copied and made dense (views, transposes, broadcasts all arrive so).
solder::HostTensor host_tensor_from(const void* data, solder::DType dtype, std::vector<int64_t> shape,
                                    std::vector<int64_t> strides);

// Checks the argument count and that the arguments are all on one side: true for GPU.
bool check_devices(const solder::Executor& ex, const std::vector<int32_t>& device_types);

}  // namespace solder_py
