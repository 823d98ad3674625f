// Integers in the reference executor are exact and wrap as torch's do: i32 overflow wraps
// (not saturates), i64 beyond 2^53 never rounds through a double.
#include <gtest/gtest.h>

#include <cstring>

#include "reference_test_util.h"

using namespace solder;

namespace {

HostTensor i64s(const std::vector<int64_t>& v) {
  HostTensor t = HostTensor::empty(DType::I64, {static_cast<int64_t>(v.size())});
  std::memcpy(t.data(), v.data(), v.size() * sizeof(int64_t));
  return t;
}

HostTensor i32s(const std::vector<int32_t>& v) {
  HostTensor t = HostTensor::empty(DType::I32, {static_cast<int64_t>(v.size())});
  std::memcpy(t.data(), v.data(), v.size() * sizeof(int32_t));
  return t;
}

template <class T>
std::vector<T> ints(const HostTensor& t) {
  EXPECT_EQ(dtype_size(t.dtype), static_cast<int>(sizeof(T)));
  std::vector<T> v(static_cast<size_t>(t.numel()));
  std::memcpy(v.data(), t.data(), v.size() * sizeof(T));
  return v;
}

constexpr int64_t k2p53 = int64_t{1} << 53;

}  // namespace

TEST(ReferenceIntegers, I64BeyondTwoToThe53IsExact) {
  Fusion f("i64");
  Tensor x = f.input("x", DType::I64, {3});
  f.output(relu(x));
  f.output(add(x, x));
  f.output(neg(x));
  f.output(sum(x));
  f.output(max(x));
  f.output(eq(x, add(x, 1.0)));
  auto out = run_reference(f, {i64s({k2p53 + 1, INT64_MAX, -(k2p53 + 3)})});
  EXPECT_EQ(ints<int64_t>(out[0]), (std::vector<int64_t>{k2p53 + 1, INT64_MAX, 0}));
  EXPECT_EQ(ints<int64_t>(out[1]), (std::vector<int64_t>{2 * k2p53 + 2, -2, -(2 * k2p53 + 6)}));  // max+max wraps
  EXPECT_EQ(ints<int64_t>(out[2]), (std::vector<int64_t>{-(k2p53 + 1), -INT64_MAX, k2p53 + 3}));
  EXPECT_EQ(ints<int64_t>(out[3]), (std::vector<int64_t>{static_cast<int64_t>(uint64_t{k2p53 + 1} + uint64_t{INT64_MAX} - uint64_t{k2p53 + 3})}));
  EXPECT_EQ(ints<int64_t>(out[4]), (std::vector<int64_t>{INT64_MAX}));
  EXPECT_EQ(out[5].get(0), 0.0);  // 2^53+1 != 2^53+2 (a double would say equal)
}

TEST(ReferenceIntegers, I32OverflowWraps) {
  Fusion f("i32");
  Tensor x = f.input("x", DType::I32, {3});
  f.output(add(x, x));
  f.output(mul(x, x));
  f.output(neg(x));
  f.output(sum(x));
  auto out = run_reference(f, {i32s({INT32_MAX, INT32_MIN, 65536})});
  EXPECT_EQ(ints<int32_t>(out[0]), (std::vector<int32_t>{-2, 0, 131072}));
  EXPECT_EQ(ints<int32_t>(out[1]), (std::vector<int32_t>{1, 0, 0}));  // 65536^2 = 2^32 wraps to 0
  EXPECT_EQ(ints<int32_t>(out[2]), (std::vector<int32_t>{-INT32_MAX, INT32_MIN, -65536}));
  // sum promotes to i64 first (as torch's does): no wrap.
  EXPECT_EQ(ints<int64_t>(out[3]), (std::vector<int64_t>{int64_t{INT32_MAX} + INT32_MIN + 65536}));
}

TEST(ReferenceIntegers, CastsBetweenIntegersAndFloats) {
  Fusion f("casts");
  Tensor x = f.input("x", DType::I64, {3});
  f.output(cast(x, DType::I32));   // wraps to the low 32 bits
  f.output(cast(x, DType::F64));   // nearest double
  f.output(cast(cast(x, DType::F64), DType::I64));
  Tensor y = f.input("y", DType::F32, {3});
  f.output(cast(y, DType::I32));   // truncates toward zero, clamps out of range
  auto out = run_reference(f, {i64s({(int64_t{1} << 32) + 7, k2p53 + 1, -5}), test::tensor(DType::F32, {3}, {-2.7, 3e10, 1.5})});
  EXPECT_EQ(ints<int32_t>(out[0]), (std::vector<int32_t>{7, 1, -5}));
  EXPECT_EQ(out[1].get(1), static_cast<double>(k2p53));  // round to nearest even
  EXPECT_EQ(ints<int64_t>(out[2]), (std::vector<int64_t>{(int64_t{1} << 32) + 7, k2p53, -5}));
  EXPECT_EQ(ints<int32_t>(out[3]), (std::vector<int32_t>{-2, INT32_MAX, 1}));
}

TEST(ReferenceIntegers, ViewsAndWhereKeepExactValues) {
  Fusion f("views");
  Tensor x = f.input("x", DType::I64, {2, 2});
  Tensor c = f.input("c", DType::Bool, {2, 2});
  f.output(where(c, x, neg(x)));
  f.output(cat({slice(permute(x, {1, 0}), 0, 1), expand(slice(x, 0, 0, 1), {2, 2})}, 0));
  HostTensor xt = HostTensor::empty(DType::I64, {2, 2});
  std::vector<int64_t> xv{k2p53 + 1, 2, 3, k2p53 + 5};
  std::memcpy(xt.data(), xv.data(), sizeof(int64_t) * 4);
  auto out = run_reference(f, {xt, test::tensor(DType::Bool, {2, 2}, {1, 0, 0, 1})});
  EXPECT_EQ(ints<int64_t>(out[0]), (std::vector<int64_t>{k2p53 + 1, -2, -3, k2p53 + 5}));
  EXPECT_EQ(ints<int64_t>(out[1]), (std::vector<int64_t>{2, k2p53 + 5, k2p53 + 1, 2, k2p53 + 1, 2}));
}
