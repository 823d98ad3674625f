#pragma once
// The straight-line per-element math shared by every kernel template: C types per dtype,
// literals, loads/stores with conversion, and one expression per IR op. Values are emitted as
// `const <ctype> v<id> = ...;` in topological order, stopping at values the template already
// provides (loaded inputs, row statistics, register-held arrays).
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "solder/fusion.h"

namespace solder {

const char* storage_type(DType t);  // element type in memory: u16 for f16/bf16, u8 for fp8/bool
const char* compute_type(DType t);  // register type: float for f16/bf16/f32/fp8, double, int, i64, bool
std::string load_convert(DType t, const std::string& raw);     // storage -> compute
std::string store_convert(DType t, const std::string& value);  // compute -> storage (exact: values are pre-rounded)
std::string literal(DType t, double v);

// Emits the values in `targets` (and what they need) into `code`. `provided(id)` returns the
// expression for a value the template supplies, or "" to compute it from its producer.
class ExprEmitter {
 public:
  ExprEmitter(const Fusion& f, std::function<std::string(int)> provided);
  // Returns the expression naming value `id` (after emitting its computation if needed).
  std::string value(int id, std::string& code, const std::string& indent);
  // Values that do not change across the elements being emitted (row statistics): an f32
  // division by one becomes a multiply by its reciprocal, which the compiler computes once
  // (within 1.5 ulp of the division; the division is a dozen instructions per element), and
  // (x - a) * b with a, b invariant (a normalization) is one FMA, x * b - a * b.
  void set_invariant(std::function<bool(int)> invariant) { invariant_ = std::move(invariant); }
  // The raw f16 bits (a u16 expression) of an input value, or "". With it, f16(a OP b) over
  // f16 operands widened to f32 (OP: + - *) is one native f16 instruction instead of two
  // widenings, the f32 op and a rounding: f32 has 24 >= 2*11 + 2 significand bits, so
  // rounding the f32 result to f16 equals rounding the exact result (no double-rounding error).
  void set_raw_f16(std::function<std::string(int)> raw) { raw_ = std::move(raw); }
  // Every result of the kernel reaches memory as f16, bf16 or fp8: an f32 exp may then use the
  // hardware ex2.approx (2^-22 relative error, far below those dtypes' rounding) instead of
  // expf's exact range reduction (softmax spent a third of its instructions there).
  void set_narrow_results(bool narrow) { narrow_results_ = narrow; }
  // The f16 bits of value `id` when they come without a rounding (an input, or a native f16
  // op as above), else "".
  std::string raw_f16(int id, std::string& code, const std::string& indent);

 private:
  std::string op_expr(const Node& n, const std::vector<std::string>& a, DType out);
  std::string folded_normalize(const Node& mul, std::string& code, const std::string& indent);
  const Fusion& f_;
  std::vector<int> uses_;  // per value: node operands plus fusion outputs naming it
  std::function<std::string(int)> provided_;
  std::function<bool(int)> invariant_;
  std::function<std::string(int)> raw_;
  bool narrow_results_ = false;
  std::map<int, std::string> raw_done_;
  std::map<int, std::string> done_;
};

}  // namespace solder
