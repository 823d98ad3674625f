#pragma once
// The straight-line per-element math shared by every kernel template: C types per dtype,
// literals, loads/stores with conversion, and one expression per IR op. Values are emitted as
// `const <ctype> v<id> = ...;` in topological order, stopping at values the template already
// provides (loaded inputs, row statistics, register-held arrays).
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "solder/fusion.h"

namespace solder {

const char* storage_type(DType t);  // element type in memory: u16 for f16/bf16, u8 for fp8/bool
const char* compute_type(DType t);  // register type: float for f16/bf16/f32/fp8, double, int, i64, bool
std::string load_convert(DType t, const std::string& raw);     // storage -> compute
std::string store_convert(DType t, const std::string& value);  // compute -> storage (exact: values are pre-rounded)
std::string literal(DType t, double v);
std::string bits_literal(DType t, double v);                  // an f16/bf16 constant's bits (hex)
// A float-register value rounded to a narrower float dtype (f16, bf16, fp8); others unchanged.
std::string rounded(DType t, const std::string& e);

// Emits the values in `targets` (and what they need) into `code`. `provided(id)` returns the
// expression for a value the template supplies, or "" to compute it from its producer.
class ExprEmitter {
 public:
  ExprEmitter(const Fusion& f, std::function<std::string(int)> provided);
  // Returns the expression naming value `id` (after emitting its computation if needed).
  std::string value(int id, std::string& code, const std::string& indent);
  // The raw bits (a u16 expression) of an f16 or bf16 input value, or "". With them, t(a OP b)
  // over operands of dtype t widened to f32 (t: f16 or bf16, OP: + - *) is one native
  // instruction instead of two widenings, the f32 op and a rounding: f32 has 24 >= 2*11 + 2
  // significand bits, so rounding the f32 result to t equals rounding the exact result (no
  // double-rounding error).
  void set_raw_bits(std::function<std::string(int)> raw) { raw_ = std::move(raw); }
  // A window's value at this element (a bool expression over the element's index), from the
  // template that knows the index: the flat template (pointwise kernels) only.
  void set_window(std::function<std::string(int)> window) { window_ = std::move(window); }
  // Every result of the kernel reaches memory as f16, bf16 or fp8: an f32 exp, sigmoid or silu
  // may then use the hardware ex2.approx (2^-22 relative error, far below those dtypes'
  // rounding) and the fast division instead of expf's exact range reduction (softmax spent a
  // third of its instructions there) and the IEEE division; an f32 division takes div_narrow.
  void set_narrow_results(bool narrow) { narrow_results_ = narrow; }
  // Checked divisions: an f32 division (and f32 reciprocal, sigmoid, silu) takes the IEEE
  // division's fast path without its per-division branch (div_checked in the device runtime),
  // setting the bool `dslow` where its operands lie outside that path's range. The template
  // declares `dslow` and recomputes the elements with this off where it is set (one branch a
  // vector instead of one a division, which also kept ptxas from interleaving the elements).
  void set_checked_divisions(bool checked) { checked_ = checked; }
  int checked_divisions() const { return checked_count_; }
  // Pairs: the raw bits are two elements in one 32-bit register (`unsigned`) and the native
  // ops work on both at once (f16x2, bf16x2). Only raw_bits() is meaningful then.
  void set_pairs(bool pairs) { pairs_ = pairs; }
  // Pairs: where(c, a, b) selects per element, so it needs c at both elements of the pair:
  // `cond(id, code, indent)` emits them and returns their names (the template knows the
  // elements' indices; raw_bits keeps the names while their code stays). Unset or empty names:
  // no where in pairs.
  using PairCondition = std::function<std::pair<std::string, std::string>(int, std::string&, const std::string&)>;
  void set_pair_condition(PairCondition cond) { pair_cond_ = std::move(cond); }
  // The bits of value `id` when they come without a rounding (an input, or a native op as
  // above), else "".
  std::string raw_bits(int id, std::string& code, const std::string& indent);

 private:
  std::string raw_bits_of(int id, std::string& code, const std::string& indent);  // raw_bits, uncached
  std::string pair_literal(DType t, double v) const;  // a constant's bits (both halves in pairs)
  std::string op_expr(const Node& n, const std::vector<std::string>& a, DType out);
  // An f32 division of two f16 values (f16_valued) that every reader rounds to f16 (and no
  // output keeps as f32): div_f16 in the device runtime, exact after that rounding.
  bool f16_valued(int id) const;
  bool f16_quotient(const Node& n) const;
  const Fusion& f_;
  std::function<std::string(int)> provided_;
  std::function<std::string(int)> raw_;
  std::function<std::string(int)> window_;
  bool narrow_results_ = false;
  bool checked_ = false;
  int checked_count_ = 0;
  bool pairs_ = false;
  PairCondition pair_cond_;
  std::map<int, std::string> raw_done_;
  std::map<int, std::string> done_;
  std::map<int, std::pair<std::string, std::string>> pair_cond_done_;  // pair_cond_'s names, by id
};

}  // namespace solder
