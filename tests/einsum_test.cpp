// The einsum lowering (src/ops/einsum.cpp) against a direct loop evaluation, on the six
// seed-003 cases (W4) run through the reference executor.
#include <gtest/gtest.h>

#include <map>

#include "ops/einsum.h"
#include "ops/workloads.h"
#include "solder/error.h"
#include "solder/reference.h"

using namespace solder;

namespace {

struct Case {
  const char* workload;
  std::string a, b, out;  // subscripts
};

// out[o] = sum over the other labels of a * b, a size-1 operand dim broadcasting.
std::vector<double> direct_einsum(const Case& c, const HostTensor& a, const HostTensor& b) {
  std::map<char, int64_t> size;
  for (size_t i = 0; i < c.a.size(); ++i) size[c.a[i]] = std::max(size[c.a[i]], a.shape[i]);
  for (size_t i = 0; i < c.b.size(); ++i) size[c.b[i]] = std::max(size[c.b[i]], b.shape[i]);
  std::string labels;
  for (auto& [l, _] : size) labels += l;
  auto offset = [&](const std::string& subs, const HostTensor& t, const std::map<char, int64_t>& at) {
    int64_t lin = 0;
    for (size_t i = 0; i < subs.size(); ++i) lin = lin * t.shape[i] + (t.shape[i] == 1 ? 0 : at.at(subs[i]));
    return lin;
  };
  int64_t out_n = 1;
  for (char l : c.out) out_n *= size[l];
  std::vector<double> out(out_n, 0.0);
  std::map<char, int64_t> at;
  for (char l : labels) at[l] = 0;
  while (true) {
    int64_t o = 0;
    for (char l : c.out) o = o * size[l] + at[l];
    out[o] += a.get(offset(c.a, a, at)) * b.get(offset(c.b, b, at));
    size_t k = labels.size();
    while (k > 0 && ++at[labels[k - 1]] == size[labels[k - 1]]) at[labels[--k]] = 0;
    if (k == 0) break;
  }
  return out;
}

}  // namespace

TEST(Einsum, SeedCasesMatchDirectEvaluation) {
  const Case cases[] = {
      {"w4_einsum_1", "bij", "jk", "bik"},  {"w4_einsum_2", "bij", "jk", "bik"},
      {"w4_einsum_3", "bij", "jk", "bik"},  {"w4_einsum_4", "bijk", "bklj", "bli"},
      {"w4_einsum_5", "bijk", "bklj", "bli"}, {"w4_einsum_6", "bijk", "bklj", "bli"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.workload);
    Fusion f = make_workload(c.workload);
    std::vector<HostTensor> in;
    for (size_t i = 0; i < f.inputs().size(); ++i) {
      std::vector<int64_t> dims;
      for (const Dim& d : f.value(f.inputs()[i]).shape) dims.push_back(*d.const_value());
      in.push_back(random_tensor(DType::F32, dims, 11 + i));
    }
    HostTensor got = run_reference(f, in).at(0);
    std::vector<double> want = direct_einsum(c, in[0], in[1]);
    ASSERT_EQ(got.numel(), static_cast<int64_t>(want.size()));
    for (size_t i = 0; i < want.size(); ++i) ASSERT_NEAR(got.get(static_cast<int64_t>(i)), want[i], 1e-4) << i;
  }
}

TEST(Einsum, LowersPlainContractionToOneMatmul) {
  Fusion f = make_workload("w4_einsum_4");
  int matmuls = 0, reductions = 0;
  for (const Node& n : f.nodes()) {
    matmuls += n.op == Op::Matmul;
    reductions += op_info(n.op).kind == OpKind::Reduction;
  }
  EXPECT_EQ(matmuls, 1);
  EXPECT_EQ(reductions, 0);
}

TEST(Einsum, RejectsMalformedEquations) {
  Fusion f;
  Tensor a = f.input("a", DType::F32, {2, 3});
  Tensor b = f.input("b", DType::F32, {3, 4});
  EXPECT_THROW(einsum("ij", a, b), Error);
  EXPECT_THROW(einsum("ijk,jk", a, b), Error);
  EXPECT_EQ(shape_str(einsum("ij,jk->ki", a, b).shape()), "[4, 2]");
}
