#pragma once
// The DLPack C exchange table (DLPack >= 1.2) that a framework hangs on its tensor type as
// `__dlpack_c_exchange_api__` (a capsule named "dlpack_exchange_api"). torch 2.10+ has it.
// Through it a tensor's pointer, sizes and strides are read in C without making a capsule,
// the framework's current stream is asked for, and new tensors come from the framework's own
// allocator. Declared here (plain C ABI, laid out as the DLPack header lays it out) so that
// nothing links to or includes a framework.
#include <cstdint>

extern "C" {

struct SolderDLPackVersion {
  uint32_t major, minor;
};
struct SolderDLDevice {
  int32_t device_type;  // an enum in dlpack.h: int-sized
  int32_t device_id;
};
struct SolderDLDataType {
  uint8_t code, bits;
  uint16_t lanes;
};
struct SolderDLTensor {
  void* data;
  SolderDLDevice device;
  int32_t ndim;
  SolderDLDataType dtype;
  int64_t* shape;
  int64_t* strides;  // null: compact row-major
  uint64_t byte_offset;
};
struct SolderDLManagedTensorVersioned {
  SolderDLPackVersion version;
  void* manager_ctx;
  void (*deleter)(SolderDLManagedTensorVersioned* self);
  uint64_t flags;
  SolderDLTensor dl_tensor;
};

struct SolderDLPackExchangeAPIHeader {
  SolderDLPackVersion version;
  SolderDLPackExchangeAPIHeader* prev_api;
};
struct SolderDLPackExchangeAPI {
  SolderDLPackExchangeAPIHeader header;
  int (*managed_tensor_allocator)(SolderDLTensor* prototype, SolderDLManagedTensorVersioned** out, void* error_ctx,
                                  void (*set_error)(void* error_ctx, const char* kind, const char* message));
  int (*managed_tensor_from_py_object_no_sync)(void* py_object, SolderDLManagedTensorVersioned** out);
  int (*managed_tensor_to_py_object_no_sync)(SolderDLManagedTensorVersioned* tensor, void** out_py_object);
  int (*dltensor_from_py_object_no_sync)(void* py_object, SolderDLTensor* out);  // may be null
  int (*current_work_stream)(int32_t device_type, int32_t device_id, void** out_current_stream);
};

}  // extern "C"

constexpr int32_t kSolderDLCPU = 1, kSolderDLCUDA = 2;
