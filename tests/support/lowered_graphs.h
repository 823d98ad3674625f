#pragma once
// Checks of what the passes make of a program: its kernel count, and the reference's results of
// the program and of its lowered graph, bit for bit (rewrites that must not change a value).
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "pipeline/pipeline.h"
#include "programs/run_inputs.h"
#include "solder/reference.h"

namespace solder::testing {

inline int kernels(const SegmentedFusion& sf) {
  int n = 0;
  for (const Segment& s : sf.segments) n += s.kind == SegmentKind::Kernel;
  return n;
}

inline void expect_same_results(const Fusion& f, const std::vector<std::vector<int64_t>>& shapes, uint64_t seed,
                                const std::string& what) {
  const std::vector<HostTensor> in = make_random_inputs(f, shapes, seed);
  const auto want = run_reference(f, in);
  const auto got = run_reference(lower(f).fusion, in);
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(got[i].shape, want[i].shape) << what;
    for (int64_t e = 0; e < want[i].numel(); ++e) {
      const double a = got[i].get(e), b = want[i].get(e);
      if (!(a == b || (std::isnan(a) && std::isnan(b)))) {
        ADD_FAILURE() << what << ": output " << i << " element " << e << ": " << a << " vs " << b;
        return;
      }
    }
  }
}

}  // namespace solder::testing
