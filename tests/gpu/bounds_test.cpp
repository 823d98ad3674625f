// Issue 29 on the device: slices whose bounds run past a dim clamp as torch's do (the GPU reads
// only the memory it was given, and agrees with the reference at several sizes), integer
// arithmetic wraps like the reference's, and sizes past the limits are refused before launch.
#include <gtest/gtest.h>

#include <cstring>

#include "programs/run_inputs.h"
#include "gpu_compare.h"
#include "solder/error.h"
#include "solder/reference.h"

using namespace solder;
using namespace solder::gpu_testing;

namespace {

// GPU vs reference on random inputs of the given sizes; the shapes must be the clamped ones.
void check(const Fusion& f, const Bindings& sizes, const std::string& what) {
  auto shapes = resolve_input_shapes(f, {}, sizes);
  std::vector<HostTensor> in = make_random_inputs(f, shapes, 11);
  auto want = run_reference(f, in);
  Executor ex(f);
  auto got = ex.run_host(in);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(got[i].shape, want[i].shape) << what << " output " << i;
    expect_close(got[i], want[i], what + " output " + std::to_string(i));
  }
}

}  // namespace

TEST(GpuBounds, SlicesPastTheEndClampAsTorch) {
  SKIP_WITHOUT_GPU();
  Dim b = Dim::sym("B"), h = Dim::sym("H");
  Fusion f("slices");
  Tensor x = f.input("x", DType::F32, {b});
  Tensor m = f.input("m", DType::F32, {b, h});
  f.output(slice(x, 0, 0, 100));                   // a view: x[0:100]
  f.output(neg(slice(x, 0, 2, 1000, 3)));          // in a kernel: x[2:1000:3]
  f.output(exp(slice(x, 0, 7)));                   // x[7:], empty when B <= 7
  f.output(add(slice(m, 1, 1, 64), 1.0));          // m[:, 1:64]
  f.output(sum(slice(m, 0, 3, 50), {0}));          // a reduction over m[3:50]
  for (int64_t n : {1, 4, 9, 100, 1000, 5000})
    for (int64_t k : {1, 5, 64, 300}) check(f, {{"B", n}, {"H", k}}, "B=" + std::to_string(n) + " H=" + std::to_string(k));
}

TEST(GpuBounds, ConstantSlicesPastTheEnd) {
  SKIP_WITHOUT_GPU();
  Fusion f("const_slices");
  Tensor x = f.input("x", DType::BF16, {4, 33});
  f.output(slice(x, 1, 0, 100));
  f.output(cast(slice(x, 1, 30, INT64_MAX - 1, INT64_MAX), DType::F32));  // one element per row
  f.output(slice(x, 0, int64_t{1} << 62, kSliceToEnd));                  // empty
  check(f, {}, "constant dims");
}

TEST(GpuBounds, IntegerArithmeticWrapsLikeTheReference) {
  SKIP_WITHOUT_GPU();
  Fusion f("ints");
  Tensor x = f.input("x", DType::I32, {Dim::sym("N")});
  Tensor y = f.input("y", DType::I64, {Dim::sym("N")});
  f.output(add(x, x));
  f.output(mul(x, x));
  f.output(add(y, y));
  f.output(sum(x));
  HostTensor xi = HostTensor::empty(DType::I32, {5}), yi = HostTensor::empty(DType::I64, {5});
  const int32_t xv[5] = {INT32_MAX, INT32_MIN, 65536, -7, 123456789};
  const int64_t yv[5] = {INT64_MAX, (int64_t{1} << 53) + 1, -3, 0, INT64_MIN};
  std::memcpy(xi.data(), xv, sizeof xv);
  std::memcpy(yi.data(), yv, sizeof yv);
  auto want = run_reference(f, {xi, yi});
  Executor ex(f);
  auto got = ex.run_host({xi, yi});
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(got[i].numel(), want[i].numel());
    EXPECT_EQ(std::memcmp(got[i].data(), want[i].data(), static_cast<size_t>(want[i].numel() * dtype_size(want[i].dtype))), 0)
        << "output " << i;
  }
}

TEST(GpuBounds, OversizedShapesAreRefusedBeforeLaunch) {
  SKIP_WITHOUT_GPU();
  Fusion f("big");
  Dim b = Dim::sym("B");
  Tensor x = f.input("x", DType::F32, {b});
  f.output(expand(unsqueeze(x, 0), {b, b}));
  Executor ex(f);
  // 2^20 x 2^20 floats = 4 TB: an error from binding the shapes, before any allocation or launch.
  DeviceTensor d = to_device(HostTensor::empty(DType::F32, {1}));
  d.shape = {int64_t{1} << 20};
  d.strides = {0};
  try {
    ex.run({d});
    ADD_FAILURE() << "ran";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("SOLDER_MAX_TENSOR_GB"), std::string::npos) << e.what();
  }
}
