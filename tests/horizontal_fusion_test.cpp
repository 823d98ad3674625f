// Horizontal fusion (issue 26): which kernel segments the segmenter groups and why, that groups
// never introduce a cycle (members contiguous, no path between any two, every node in exactly
// one segment), the cost rule that decides which members launch together, and that the group
// kernel of W3 and of members of different sizes compiles without spills.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>
#include <string>

#include "codegen/kernel_group.h"
#include "exec/group_plan.h"
#include "ir/parser.h"
#include "ops/workloads.h"
#include "pipeline/pipeline.h"
#include "segment/horizontal.h"
#include "segment/segment.h"
#include "solder/error.h"
#include "solder/executor.h"
#include "support/flat_programs.h"

using namespace solder;
using solder::testing::tanh_of_three_shapes;

namespace {

// Every non-constant node in exactly one segment.
void expect_partition(const SegmentedFusion& sf) {
  std::map<int, int> seen;
  for (const Segment& s : sf.segments)
    for (int n : s.nodes) ++seen[n];
  for (size_t n = 0; n < sf.fusion.nodes().size(); ++n) {
    if (sf.fusion.nodes()[n].op == Op::Constant) {
      EXPECT_LE(seen[static_cast<int>(n)], 1) << "node " << n;
      continue;
    }
    EXPECT_EQ(seen[static_cast<int>(n)], 1) << "node " << n << "\n" << describe_segments(sf);
  }
}

// No path between two members of a group, on the final segment DAG.
void expect_independent_members(const SegmentedFusion& sf) {
  const auto pred = segment_predecessors(sf);
  const size_t n = sf.segments.size();
  std::vector<std::vector<char>> reach(n, std::vector<char>(n, 0));  // reach[a][b]: a path b -> a
  for (size_t s = 0; s < n; ++s)
    for (int p : pred[s]) {
      ASSERT_LT(p, static_cast<int>(s)) << "segments out of order\n" << describe_segments(sf);
      reach[s][p] = 1;
      for (size_t q = 0; q < n; ++q)
        if (reach[p][q]) reach[s][q] = 1;
    }
  for (const SegmentGroup& g : sf.groups)
    for (int a : g.members)
      for (int b : g.members) EXPECT_FALSE(reach[a][b]) << "a path " << b << " -> " << a << "\n" << describe_segments(sf);
}

int kernel_launches(const std::vector<LaunchRecord>& records) {
  int n = 0;
  for (const auto& r : records) n += r.category != "view" && r.category != "matmul";
  return n;
}

}  // namespace

TEST(HorizontalFusion, W3NormsFormOneGroup) {
  SegmentedFusion sf = lower(make_workload("w3_split_stack"));
  ASSERT_EQ(sf.groups.size(), 1u) << describe_segments(sf);
  const SegmentGroup& g = sf.groups[0];
  EXPECT_EQ(g.members.size(), 16u);
  for (int m : g.members) {
    EXPECT_EQ(sf.segments[m].category, KernelCategory::Inner);
    EXPECT_EQ(sf.segments[m].group, 0);
  }
  EXPECT_NE(g.why.find("16 inner-reduction kernels of one structure"), std::string::npos) << g.why;
  EXPECT_NE(describe_segments(sf).find("group 0: segments"), std::string::npos);
  expect_partition(sf);
  expect_independent_members(sf);
}

TEST(HorizontalFusion, W3RunsAsOneNormLaunchPlusTheRelu) {
  Executor ex(make_workload("w3_split_stack"));
  std::vector<std::vector<int64_t>> shapes;
  Fusion f = make_workload("w3_split_stack");
  for (int v : f.inputs()) {
    std::vector<int64_t> s;
    for (const Dim& d : f.value(v).shape) s.push_back(d.is_const() ? *d.const_value() : 1024);
    shapes.push_back(s);
  }
  std::vector<KernelSourceInfo> sources;
  const auto records = ex.compile_for(shapes, &sources);
  EXPECT_EQ(kernel_launches(records), 2);  // the stacked norms and the relu (the matmul aside)
  // The members prefetch their next rows: stacked, they share one wave of blocks, each block
  // walking several of its member's row groups (1024 rows of 8 a block each).
  for (const auto& r : records)
    if (r.name.rfind("solder_group16_", 0) == 0) {
      EXPECT_NE(r.params.find("prefetch"), std::string::npos) << r.params;
      EXPECT_LE(int64_t{r.grid_x} * 8 * 2, 16 * 1024) << r.params << " grid " << r.grid_x;
    }
  bool found = false;
  for (const auto& k : sources)
    if (k.name.rfind("solder_group16_", 0) == 0) {
      found = true;
      EXPECT_EQ(k.spill_bytes, 0) << k.name;
      EXPECT_GT(k.registers, 0);
    }
  EXPECT_TRUE(found);
  const std::string text = ex.explain(shapes);
  EXPECT_NE(text.find("segments 32-47 stacked: one launch of solder_group16_"), std::string::npos) << text;
  EXPECT_NE(text.find("why: 16 launches of one kernel as one"), std::string::npos) << text;
}

// A path between two kernels of one structure (through a matmul) keeps them apart, and the
// note says which depends on which.
TEST(HorizontalFusion, DependentKernelsDoNotGroup) {
  Fusion f = parse_fusion(R"(fusion dep {
  input x: f32[M, K]
  input w: f32[K, K]
  t0 = relu(x)
  t1 = matmul(t0, w)
  t2 = relu(t1)
  output t2
}
)");
  SegmentedFusion sf = segment_fusion(f);
  EXPECT_TRUE(sf.groups.empty()) << describe_segments(sf);
  ASSERT_EQ(sf.group_notes.size(), 1u) << describe_segments(sf);
  EXPECT_NE(sf.group_notes[0].find("it depends on segment 0"), std::string::npos) << sf.group_notes[0];
}

// {A, B} and {C, D} of two structures where A -> C and D -> B: forming both would order the
// two launches both ways. The first forms, the second is refused for the cycle.
TEST(HorizontalFusion, GroupsNeverCloseACycle) {
  Fusion f = parse_fusion(R"(fusion cross {
  input x1: f32[4, 8]
  input x2: f32[6, 8]
  input w: f32[8, 5]
  a = relu(x1)
  d = exp(x2)
  ma = matmul(a, w)
  md = matmul(d, w)
  c = exp(ma)
  b = relu(md)
  output c
  output b
}
)");
  SegmentedFusion sf = segment_fusion(f);
  ASSERT_EQ(sf.groups.size(), 1u) << describe_segments(sf);
  bool cycle_note = false;
  for (const auto& n : sf.group_notes) cycle_note |= n.find("a cycle") != std::string::npos;
  EXPECT_TRUE(cycle_note) << describe_segments(sf);
  expect_partition(sf);
  expect_independent_members(sf);
}

// Members listed apart are made contiguous, and the order stays a valid one.
TEST(HorizontalFusion, MembersBecomeContiguous) {
  Fusion f = parse_fusion(R"(fusion apart {
  input x1: f32[4, 8]
  input x2: f32[6, 8]
  input w: f32[8, 8]
  a = tanh(x1)
  m = matmul(a, w)
  b = tanh(x2)
  output m
  output b
}
)");
  SegmentedFusion sf = segment_fusion(f);
  ASSERT_EQ(sf.groups.size(), 1u) << describe_segments(sf);
  EXPECT_EQ(sf.groups[0].members, (std::vector<int>{0, 1})) << describe_segments(sf);
  EXPECT_EQ(sf.segments[2].kind, SegmentKind::Matmul);
  EXPECT_NO_THROW(verify_segments(sf));
}

// Kernels of different structures (another op, another constant) are not one group.
TEST(HorizontalFusion, DifferentStructuresStayApart) {
  Fusion f = parse_fusion(R"(fusion two {
  input x1: f32[4, 8]
  input x2: f32[6, 8]
  input x3: f32[5, 8]
  k1 = constant(value=2, dtype=f32)
  k2 = constant(value=3, dtype=f32)
  a = mul(x1, k1)
  b = mul(x2, k2)
  c = mul(x3, k1)
  output a
  output b
  output c
}
)");
  SegmentedFusion sf = segment_fusion(f);
  ASSERT_EQ(sf.groups.size(), 1u) << describe_segments(sf);
  ASSERT_EQ(sf.groups[0].members.size(), 2u);
  for (int m : sf.groups[0].members) {
    const Segment& s = sf.segments[m];
    EXPECT_TRUE(std::find(s.outputs.begin(), s.outputs.end(), sf.fusion.find("b")) == s.outputs.end());
  }
}

TEST(HorizontalFusion, VerifierRejectsBrokenGroups) {
  SegmentedFusion sf = lower(make_workload("w3_split_stack"));
  ASSERT_EQ(sf.groups.size(), 1u);
  SegmentedFusion gap = sf;
  gap.groups[0].members.back() += 2;  // not contiguous, and names a segment outside the group
  EXPECT_THROW(verify_groups(gap), Error);
  SegmentedFusion stray = sf;
  stray.segments[sf.groups[0].members[0] - 1].group = 0;  // a view naming the group
  EXPECT_THROW(verify_groups(stray), Error);
  EXPECT_NO_THROW(verify_groups(sf));
}

// Random DAGs of units (one of three unary ops on an input or on a matmul of an earlier unit):
// groups verify, members never have a path between them, every node is in one segment.
TEST(HorizontalFusion, RandomProgramsNeverGroupAcrossAPath) {
  const char* ops[] = {"relu", "exp", "tanh"};
  int grouped = 0;
  for (uint64_t seed = 1; seed <= 300; ++seed) {
    std::mt19937_64 rng(seed);
    std::string text = "fusion r {\n  input w: f32[8, 8]\n";
    const int inputs = 1 + static_cast<int>(rng() % 3), units = 3 + static_cast<int>(rng() % 8);
    for (int i = 0; i < inputs; ++i) text += "  input x" + std::to_string(i) + ": f32[" + std::to_string(2 + i) + ", 8]\n";
    for (int u = 0; u < units; ++u) {
      std::string src = "x" + std::to_string(rng() % inputs);
      if (u > 0 && rng() % 2) {
        text += "  m" + std::to_string(u) + " = matmul(u" + std::to_string(rng() % u) + ", w)\n";
        src = "m" + std::to_string(u);
      }
      text += "  u" + std::to_string(u) + " = " + ops[rng() % 3] + "(" + src + ")\n";
    }
    for (int u = 0; u < units; ++u) text += "  output u" + std::to_string(u) + "\n";
    text += "}\n";
    Fusion f = parse_fusion(text);
    for (bool passes : {false, true}) {
      SegmentedFusion sf = passes ? lower(f) : segment_fusion(f);
      ASSERT_NO_THROW(verify_segments(sf)) << text;
      expect_partition(sf);
      expect_independent_members(sf);
      grouped += !sf.groups.empty();
    }
  }
  EXPECT_GT(grouped, 100);  // the property was exercised
}

TEST(HorizontalFusion, CanonicalTextIgnoresNamesOnly) {
  const std::string head = "struct Welford { float n, mean, m2; };\nextern \"C\" __global__ void k(const Params p) {\n";
  const std::string a = head + "// plan: ops=36:full\nconst float v71 = expf(m36[b]) + w.m2 + 1.5f; out3 = v71;\n";
  const std::string b = head + "// plan: ops=52:full\nconst float v143 = expf(m2[b]) + w.m2 + 1.5f; out3 = v143;\n";
  const std::string c = head + "// plan: ops=52:full\nconst float v143 = expf(m52[b]) + w.m2 + 2.5f; out3 = v143;\n";
  const std::string d = head + "// plan: ops=52:full\nconst float v143 = expf(m52[b]) + w.m2 + 1.5f; out3 = m52;\n";
  const std::string e = head + "// plan: ops=52:full\nconst float v143 = logf(m52[b]) + w.m2 + 1.5f; out3 = v143;\n";
  EXPECT_EQ(canonical_kernel_text(a), canonical_kernel_text(b));  // m2 is a value here, a field after '.'
  EXPECT_NE(canonical_kernel_text(a), canonical_kernel_text(c));  // another constant
  EXPECT_NE(canonical_kernel_text(a), canonical_kernel_text(d));  // another dataflow
  EXPECT_NE(canonical_kernel_text(a), canonical_kernel_text(e));  // another function
}

namespace {
GroupMember member(int seg, int64_t blocks, int64_t bytes, const std::string& code = "k") {
  GroupMember m;
  m.segment = seg;
  m.code = code;
  m.blocks = blocks;
  m.wave = 660;
  m.bytes = bytes;
  m.threads = 256;
  m.param_words = 51;
  return m;
}
}  // namespace

TEST(HorizontalFusion, CostRule) {
  // W3: sixteen members of 128 blocks (a wave is 660) stack into one launch.
  std::vector<GroupMember> w3;
  for (int i = 0; i < 16; ++i) w3.push_back(member(32 + i, 128, 2 << 20));
  GroupLaunches a = plan_group_launches(w3, 32764);
  ASSERT_EQ(a.launches.size(), 1u);
  EXPECT_EQ(a.launches[0].size(), 16u);
  EXPECT_TRUE(a.alone.empty());
  // The 4 KB parameter block of older drivers: nine members per launch, then seven.
  GroupLaunches b = plan_group_launches(w3, 4096);
  ASSERT_EQ(b.launches.size(), 2u);
  EXPECT_EQ(b.launches[0].size(), 9u);
  EXPECT_EQ(b.launches[1].size(), 7u);
  // A member that fills waves and moves many bytes runs alone; small ones of another kernel
  // stack among themselves; a cluster plan runs alone.
  std::vector<GroupMember> mixed{member(0, 660 * 3, 64 << 20), member(1, 100, 1 << 20, "x"), member(2, 100, 1 << 20, "y"),
                                 member(3, 90, 1 << 20, "x"), member(4, 2000, 3 << 20, "x")};
  mixed.push_back(member(5, 50, 1 << 20, "x"));
  mixed.back().cluster = 2;
  GroupLaunches c = plan_group_launches(mixed, 32764);
  ASSERT_EQ(c.launches.size(), 1u);
  EXPECT_EQ(c.launches[0], (std::vector<int>{1, 3, 4}));  // member 4: many blocks but few bytes
  EXPECT_EQ(c.alone, (std::vector<int>{0, 5, 2}));
  EXPECT_EQ(c.notes.size(), 3u);
  EXPECT_NE(c.notes[0].find("stacking would save only a launch gap"), std::string::npos) << c.notes[0];
}

// Members of different sizes and offsets share one group kernel, which compiles without spills.
TEST(HorizontalFusion, GroupKernelOfMembersOfDifferentSizesCompiles) {
  Fusion f = parse_fusion(R"(fusion sizes {
  input x: f32[B, 5, 77]
  t0 = slice(x, axis=1, start=0, end=2, step=1)
  t1 = slice(x, axis=1, start=2, end=5, step=1)
  m0 = max(t0, axes=[2], keepdim=true)
  m1 = max(t1, axes=[2], keepdim=true)
  s0 = sub(t0, m0)
  s1 = sub(t1, m1)
  e0 = exp(s0)
  e1 = exp(s1)
  output e0
  output e1
}
)");
  Executor ex(f);
  std::vector<KernelSourceInfo> sources;
  const auto records = ex.compile_for({{37, 5, 77}}, &sources);
  EXPECT_EQ(kernel_launches(records), 1) << ex.explain({{37, 5, 77}});
  for (const auto& k : sources) EXPECT_EQ(k.spill_bytes, 0) << k.name;
}

// Small pointwise kernels over inputs of different shapes plan one thread count, so they stack
// (the GPU test of the same program caught single rows taking their own thread counts).
TEST(HorizontalFusion, SmallPointwiseKernelsOfDifferentShapesStack) {
  const Fusion f = tanh_of_three_shapes();
  Executor ex(f);
  const std::vector<std::vector<int64_t>> shapes = {{1000, 33}, {7, 1}, {1, 513}};
  const auto records = ex.compile_for(shapes);
  ASSERT_EQ(kernel_launches(records), 1) << ex.explain(shapes);
  EXPECT_EQ(records.front().name.rfind("solder_group3_", 0), 0u) << records.front().name;
}
