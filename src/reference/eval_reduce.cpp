// Reductions in double. Each input element is routed to its output slot by dropping the
// reduced dims from its index; var_mean is two-pass (mean first, then squared deviations),
// which is exact enough in double and simpler to trust than a streaming formula.
#include <algorithm>
#include <cmath>
#include <limits>

#include "ir/limits.h"
#include "reference/eval.h"
#include "reference/parallel.h"
#include "solder/error.h"
#include "solder/host_tensor.h"

namespace solder::ref {

namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// For each input element (row-major), the index of its output slot.
std::vector<int64_t> output_slots(const Sizes& shape, const std::vector<bool>& reduced, int64_t& slots) {
  Sizes kept_strides(shape.size(), 0);
  slots = 1;
  for (size_t d = shape.size(); d-- > 0;)
    if (!reduced[d]) {
      kept_strides[d] = slots;
      slots = checked_mul(slots, shape[d], "the reduction's kept elements");
    }
  const int64_t n = numel(shape);
  std::vector<int64_t> map(static_cast<size_t>(n));
  Sizes idx(shape.size(), 0);
  int64_t pos = 0;
  for (int64_t i = 0; i < n; ++i) {
    map[i] = pos;
    for (size_t d = shape.size(); d-- > 0;) {
      pos += kept_strides[d];
      if (++idx[d] < shape[d]) break;
      pos -= kept_strides[d] * idx[d];
      idx[d] = 0;
    }
  }
  return map;
}
}  // namespace

std::vector<Buf> eval_reduce(const Node& n, const Buf& in, const std::vector<OutSpec>& out) {
  const int r = static_cast<int>(in.shape.size());
  std::vector<bool> reduced(r, false);
  int64_t count = 1;  // elements per output slot
  for (auto a : n.attrs.axes) {
    if (a < 0 || a >= r) throw Error(std::string("reference: ") + op_name(n.op) + ": bad axis");
    reduced[a] = true;
    count *= in.shape[a];
  }
  int64_t slots = 0;
  // Reductions over trailing dims (rows: layer norm, softmax) sum each slot's contiguous run in
  // order, slots in parallel (reference/parallel.h); the same sums the general path adds.
  bool suffix = true;
  for (int d = 1; d < r; ++d) suffix = suffix && (reduced[d - 1] <= reduced[d]);
  std::vector<int64_t> map;
  if (suffix) slots = count ? numel(in.shape) / count : numel(out.at(0).shape);
  else map = output_slots(in.shape, reduced, slots);
  auto for_each_slot = [&](auto&& add) {  // add(slot, input index), every input index once
    if (!suffix) {
      for (size_t i = 0; i < map.size(); ++i) add(map[i], static_cast<int64_t>(i));
      return;
    }
    parallel_for(slots, [&](int64_t begin, int64_t end) {
      for (int64_t s = begin; s < end; ++s)
        for (int64_t i = s * count; i < (s + 1) * count; ++i) add(s, i);
    });
  };
  if (slots != numel(out.at(0).shape))
    throw Error(std::string("reference: ") + op_name(n.op) + ": output has " + std::to_string(numel(out[0].shape)) +
                " elements, expected " + std::to_string(slots));
  if ((n.op == Op::Max || n.op == Op::Min) && count == 0)
    throw Error(std::string(op_name(n.op)) + ": reduction over an empty set of elements (input " +
                sizes_str(in.shape) + ") has no identity");

  if (holds_int(out.at(0).dtype)) {  // sum to i64 (wrapping), max/min of integers: exact
    std::vector<int64_t> iacc(static_cast<size_t>(slots), n.op == Op::Max ? INT64_MIN : n.op == Op::Min ? INT64_MAX : 0);
    for_each_slot([&](int64_t s, int64_t i) {
      int64_t x = int_at(in, i);
      if (n.op == Op::Sum) iacc[s] = static_cast<int64_t>(static_cast<uint64_t>(iacc[s]) + static_cast<uint64_t>(x));
      else if (n.op == Op::Max) iacc[s] = std::max(iacc[s], x);
      else if (n.op == Op::Min) iacc[s] = std::min(iacc[s], x);
      else throw Error(std::string("reference: ") + op_name(n.op) + " on integers");
    });
    Buf b{out[0].shape, Doubles(static_cast<size_t>(slots))};
    for (int64_t k = 0; k < slots; ++k) b.data[k] = int_bits(wrap_int(out[0].dtype, static_cast<uint64_t>(iacc[k])));
    return {b};
  }
  Doubles acc(static_cast<size_t>(slots), 0.0);
  switch (n.op) {
    case Op::Sum:
    case Op::Mean:
    case Op::VarMean:
      for_each_slot([&](int64_t s, int64_t i) { acc[s] += in.data[i]; });
      break;
    case Op::Max:
    case Op::Min: {
      bool is_max = n.op == Op::Max;
      std::fill(acc.begin(), acc.end(), is_max ? -INFINITY : INFINITY);
      for_each_slot([&](int64_t s, int64_t i) {
        double x = in.data[i], &a = acc[s];
        if (std::isnan(a)) return;  // NaN is sticky
        if (std::isnan(x) || (is_max ? x > a : x < a)) a = x;
      });
      break;
    }
    default: throw Error(std::string("reference: ") + op_name(n.op) + " is not a reduction");
  }

  if (n.op == Op::Mean || n.op == Op::VarMean)
    for (auto& a : acc) a = count ? a / static_cast<double>(count) : kNaN;  // empty mean: NaN
  if (n.op != Op::VarMean) {
    Buf b{out[0].shape, std::move(acc)};
    round_all(b.data, out[0].dtype);
    return {b};
  }
  // var = sum((x - mean)^2) / (N - correction); a non-positive divisor gives Inf/NaN as in PyTorch.
  Doubles m2(static_cast<size_t>(slots), 0.0);
  for_each_slot([&](int64_t s, int64_t i) {
    double d = in.data[i] - acc[s];
    m2[s] += d * d;
  });
  double divisor = static_cast<double>(std::max<int64_t>(0, count - n.attrs.correction));
  for (auto& v : m2) v /= divisor;
  Buf var{out.at(0).shape, std::move(m2)}, mean{out.at(1).shape, std::move(acc)};
  round_all(var.data, out[0].dtype);
  round_all(mean.data, out[1].dtype);
  return {var, mean};
}

}  // namespace solder::ref
