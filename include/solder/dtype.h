#pragma once
// Element types and PyTorch-style type promotion.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace solder {

enum class DType : uint8_t { Bool, I32, I64, F16, BF16, F32, F64, F8E4M3, F8E5M2 };

std::string_view dtype_name(DType t);  // "f16", "bf16", "f8e4m3", ...
std::optional<DType> parse_dtype(std::string_view s);
int dtype_size(DType t);  // bytes per element
bool is_floating(DType t);
bool is_fp8(DType t);
bool is_integral(DType t);  // bool counts as integral here

// Promotion of two operands of the same priority (both dimensioned tensors, or both rank-0).
// Mirrors torch.promote_types: bool < ints < floats; f16+bf16 -> f32. fp8 only promotes with
// itself (PyTorch refuses mixed fp8 promotion too): throws solder::Error otherwise.
DType promote_types(DType a, DType b);

// Category rank used by PyTorch's "wrapped number / zero-dim" promotion rule.
int dtype_category(DType t);  // 0 bool, 1 integral, 2 floating

}  // namespace solder
