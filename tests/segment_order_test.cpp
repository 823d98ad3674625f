// Every segment finds what it reads in memory when it runs: a replay of the executor's pointer
// bookkeeping on the CPU. Fusion inputs have addresses from the start; a segment's outputs
// have them once it ran; a view's output has its source's address. A kernel reads its
// segment's inputs (constants are inlined), a view, cat or matmul step reads every operand of
// its node. An operand without an address is the NULL a kernel faulted on (Llama fp32's
// attention mask: a view (expand) of a constant had no buffer behind it).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ir/parser.h"
#include "programs/load_program.h"
#include "pipeline/pipeline.h"
#include "segment/segment.h"
#include "support/random_fusion.h"

using namespace solder;

namespace {

// Problems found replaying sf's segments in order; empty when every read has an address.
std::vector<std::string> replay_problems(const SegmentedFusion& sf) {
  const Fusion& f = sf.fusion;
  std::vector<std::string> out;
  std::vector<char> has(f.values().size(), 0);
  for (int v : f.inputs()) has[v] = 1;
  auto is_const = [&](int v) {
    const Value& val = f.value(v);
    // Constants and windows (a cat's pieces) are computed inline by the kernels that read them.
    return val.producer >= 0 && (f.nodes()[val.producer].op == Op::Constant || f.nodes()[val.producer].op == Op::Window);
  };
  for (size_t si = 0; si < sf.segments.size(); ++si) {
    const Segment& s = sf.segments[si];
    const std::string where = "segment " + std::to_string(si) + " (" + segment_kind_name(s.kind) + ")";
    if (s.kind == SegmentKind::Kernel) {
      std::vector<char> inside(f.values().size(), 0);
      for (int ni : s.nodes)
        for (int o : f.nodes()[ni].out) inside[o] = 1;
      for (int x : s.inputs)
        if (!has[x]) out.push_back(where + " reads " + f.value(x).name + ", which has no buffer yet");
      for (int ni : s.nodes)
        for (int x : f.nodes()[ni].in)
          if (!inside[x] && !is_const(x) && std::find(s.inputs.begin(), s.inputs.end(), x) == s.inputs.end())
            out.push_back(where + " uses " + f.value(x).name + " without reading it");
      for (int o : s.outputs) has[o] = 1;
      continue;
    }
    const Node& n = f.nodes()[s.nodes.at(0)];
    for (int x : n.in)
      if (!has[x]) out.push_back(where + " reads " + f.value(x).name + ", which has no buffer yet");
    for (int o : n.out) has[o] = 1;
  }
  for (int v : f.outputs())
    if (!has[v]) out.push_back("output " + f.value(v).name + " is never written");
  return out;
}

std::string joined(const std::vector<std::string>& xs) {
  std::string r;
  for (const auto& x : xs) r += x + "\n";
  return r;
}

}  // namespace

// The smallest form of the attention mask: a kernel reading an expanded constant.
TEST(SegmentOrder, ViewOfConstantHasABuffer) {
  const char* text = R"(fusion mask {
  input a: i64[1, 8]
  input b: i64[8, 1]
  t0 = constant(value=1, dtype=bool)
  t1 = expand(t0, shape=[8, 8])
  t2 = sub(a, b)
  t3 = constant(value=0, dtype=i64)
  t4 = le(t2, t3)
  t5 = logical_and(t1, t4)
  output t5
}
)";
  Fusion f = parse_fusion(text);
  for (const SegmentedFusion& sf : {segment_fusion(f), lower(f)}) {
    const auto p = replay_problems(sf);
    EXPECT_TRUE(p.empty()) << joined(p) << describe_segments(sf);
  }
}

// The Llama fp32 partition that failed on the H100 with CUDA_ERROR_ILLEGAL_ADDRESS.
TEST(SegmentOrder, LlamaFp32Partition) {
  Fusion f = load_program(std::string(SOLDER_SOURCE_DIR) + "/tests/data/llama_fp32_attention_mask.fusion");
  SegmentedFusion sf = lower(f);
  const auto p = replay_problems(sf);
  EXPECT_TRUE(p.empty()) << joined(p) << describe_segments(sf);
}

TEST(SegmentOrder, RandomPrograms) {
  int checked = 0;
  for (uint64_t seed = 1; seed <= 1500; ++seed) {
    Fusion f = test_support::RandomFusion(seed).make(16);
    for (bool passes : {false, true}) {
      SegmentedFusion sf = passes ? lower(f) : segment_fusion(f);
      const auto p = replay_problems(sf);
      ASSERT_TRUE(p.empty()) << "seed " << seed << (passes ? " (lowered)" : " (raw)") << "\n"
                             << joined(p) << describe_segments(sf);
      ++checked;
    }
  }
  EXPECT_EQ(checked, 3000);
}

// The segmenter's own check names the same fault.
TEST(SegmentOrder, VerifierRejectsAReadBeforeItsWrite) {
  Fusion f = parse_fusion(R"(fusion bad {
  input a: f32[4]
  t1 = neg(a)
  t2 = exp(t1)
  output t2
}
)");
  const int b = f.find("t1"), c = f.find("t2");
  SegmentedFusion sf = segment_fusion(f);
  ASSERT_EQ(sf.segments.size(), 1u);
  EXPECT_NO_THROW(verify_segments(sf));
  // Split into two kernels listed in the wrong order: exp's kernel first.
  Segment neg = sf.segments[0], exp = sf.segments[0];
  neg.nodes = {0};
  neg.outputs = {b};
  exp.nodes = {1};
  exp.inputs = {b};
  exp.outputs = {c};
  sf.segments = {exp, neg};
  EXPECT_THROW(verify_segments(sf), Error);
  sf.segments = {neg, exp};
  EXPECT_NO_THROW(verify_segments(sf));
}
