#include "solder/dtype.h"

#include "solder/error.h"

namespace solder {

namespace {
struct DTypeRow {
  DType type;
  std::string_view name;
  int size;
};
constexpr DTypeRow kRows[] = {
    {DType::Bool, "bool", 1}, {DType::I32, "i32", 4},        {DType::I64, "i64", 8},
    {DType::F16, "f16", 2},   {DType::BF16, "bf16", 2},      {DType::F32, "f32", 4},
    {DType::F64, "f64", 8},   {DType::F8E4M3, "f8e4m3", 1}, {DType::F8E5M2, "f8e5m2", 1},
};
const DTypeRow& row(DType t) { return kRows[static_cast<int>(t)]; }
}  // namespace

std::string_view dtype_name(DType t) { return row(t).name; }
int dtype_size(DType t) { return row(t).size; }

std::optional<DType> parse_dtype(std::string_view s) {
  for (const auto& r : kRows)
    if (r.name == s) return r.type;
  return std::nullopt;
}

bool is_fp8(DType t) { return t == DType::F8E4M3 || t == DType::F8E5M2; }
bool is_floating(DType t) {
  return t == DType::F16 || t == DType::BF16 || t == DType::F32 || t == DType::F64 || is_fp8(t);
}
bool is_integral(DType t) { return t == DType::Bool || t == DType::I32 || t == DType::I64; }

int dtype_category(DType t) {
  if (t == DType::Bool) return 0;
  return is_floating(t) ? 2 : 1;
}

DType promote_types(DType a, DType b) {
  if (a == b) return a;
  if (is_fp8(a) || is_fp8(b))
    throw Error("type promotion: " + std::string(dtype_name(a)) + " and " +
                std::string(dtype_name(b)) +
                " do not promote (fp8 mixes only with itself); cast one operand explicitly");
  int ca = dtype_category(a), cb = dtype_category(b);
  if (ca != cb) return ca > cb ? a : b;
  if (ca == 1) return (a == DType::I64 || b == DType::I64) ? DType::I64 : DType::I32;
  // floating: f16/bf16/f32/f64
  if (a == DType::F64 || b == DType::F64) return DType::F64;
  return DType::F32;  // {f16,bf16}xf32, f16xbf16
}

}  // namespace solder
