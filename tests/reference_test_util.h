#pragma once
// Helpers shared by the reference-executor tests: build HostTensors from literal values and
// compare results element by element (NaN equals NaN; tolerance is absolute + relative).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "solder/fusion.h"
#include "solder/host_tensor.h"
#include "solder/reference.h"

namespace solder::test {

inline HostTensor tensor(DType t, std::vector<int64_t> shape, const std::vector<double>& v) {
  HostTensor r = HostTensor::empty(t, std::move(shape));
  EXPECT_EQ(static_cast<int64_t>(v.size()), r.numel()) << "literal has the wrong number of values";
  for (int64_t i = 0; i < r.numel() && i < static_cast<int64_t>(v.size()); ++i) r.set(i, v[i]);
  return r;
}

inline std::vector<double> values(const HostTensor& t) {
  std::vector<double> v;
  for (int64_t i = 0; i < t.numel(); ++i) v.push_back(t.get(i));
  return v;
}

inline void expect_tensor(const HostTensor& t, DType dtype, const std::vector<int64_t>& shape,
                          const std::vector<double>& want, double tol = 0, const std::string& what = "") {
  EXPECT_EQ(t.dtype, dtype) << what << ": got " << dtype_name(t.dtype);
  EXPECT_EQ(t.shape, shape) << what;
  EXPECT_TRUE(t.is_contiguous()) << what;
  auto got = values(t);
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << what << " [" << i << "] = " << got[i] << ", want NaN";
      continue;
    }
    double lim = tol * (1 + std::fabs(want[i]));
    EXPECT_TRUE(got[i] == want[i] || std::fabs(got[i] - want[i]) <= lim)
        << what << " [" << i << "] = " << got[i] << ", want " << want[i];
  }
}

// Runs a fusion that has exactly one output.
inline HostTensor run1(const Fusion& f, const std::vector<HostTensor>& inputs) {
  auto out = run_reference(f, inputs);
  EXPECT_EQ(out.size(), 1u);
  return out.at(0);
}

}  // namespace solder::test
