#include <gtest/gtest.h>

#include "solder/error.h"
#include "solder/fusion.h"

using namespace solder;

TEST(IrBuilder, BroadcastAndPromotion) {
  Fusion f("t");
  Dim B = Dim::sym("B"), H = Dim::sym("H");
  Tensor a = f.input("a", DType::F16, {B, H});
  Tensor b = f.input("b", DType::F32, {H});
  Tensor c = a + b;
  EXPECT_EQ(c.dtype(), DType::F32);
  EXPECT_EQ(shape_str(c.shape()), "[B, H]");
  Tensor d = a * 2.0;
  EXPECT_EQ(d.dtype(), DType::F16);  // wrapped number does not widen
  f.output(c);
  verify(f);
}

TEST(IrBuilder, MismatchNamesOperands) {
  Fusion f("t");
  Tensor a = f.input("a", DType::F32, {Dim::sym("B"), Dim(5)});
  Tensor b = f.input("b", DType::F32, {Dim(6)});
  try {
    add(a, b);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("add"), std::string::npos) << m;
    EXPECT_NE(m.find("5 vs 6"), std::string::npos) << m;
  }
}
