#pragma once
// Horizontal fusion, the cost rule: which members of a segment group (segment/horizontal.h)
// launch together at one launch signature. Members are described by what their own launch
// would be; the rule (docs/architecture.md, "Horizontal fusion"):
//  * a member stacks only when it is small: alone it leaves SMs idle (fewer blocks than one
//    wave of resident blocks) or it moves at most kSmallBytes (its launch gap and tail are a
//    large share of its time). Larger members gain only a launch gap and run alone;
//  * members stack only with members whose kernel is the same code (canonical text), launch
//    shape (threads, dynamic shared memory) and no clusters (a cluster's blocks are numbered
//    by the hardware, not by the group) nor split rows (their blocks wait on each other);
//  * a launch takes as many members as its parameter block holds (`param_limit` bytes), in
//    order; a launch of one member is its own kernel.
// A stacked launch has exactly the members' blocks, no more: block b runs member m's block
// b - start[m].
#include <cstdint>
#include <string>
#include <vector>

namespace solder {

struct GroupMember {
  int segment = -1;
  std::string code;  // canonical_kernel_text of its kernel
  int64_t blocks = 0;
  int64_t wave = 0;  // resident blocks of its kernel on the whole device
  int64_t bytes = 0;
  unsigned threads = 0, smem = 0, cluster = 1;
  bool row_split = false;  // an inner plan's rows split over blocks (KernelParams::row_split)
  int param_words = 0;
};

struct GroupLaunches {
  std::vector<std::vector<int>> launches;  // indices into the members, each of two or more
  std::vector<int> alone;                  // members launched by themselves
  std::vector<std::string> why;            // per launch: why it pays
  std::vector<std::string> notes;          // per member left alone: why
};

constexpr int64_t kSmallBytes = int64_t{4} << 20;

GroupLaunches plan_group_launches(const std::vector<GroupMember>& members, int param_limit);

}  // namespace solder
