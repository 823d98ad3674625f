#include "exec/group_plan.h"

#include <map>
#include <tuple>

#include "codegen/kernel_group.h"

namespace solder {

namespace {
std::string mb(int64_t bytes) {
  char b[32];
  std::snprintf(b, sizeof b, "%.1f MB", static_cast<double>(bytes) / 1e6);
  return b;
}
}  // namespace

GroupLaunches plan_group_launches(const std::vector<GroupMember>& members, int param_limit) {
  GroupLaunches out;
  // Classes of members that can share one kernel, in order of their first member.
  std::map<std::tuple<std::string, unsigned, unsigned>, std::vector<int>> classes;
  std::vector<std::vector<int>*> order;
  for (size_t i = 0; i < members.size(); ++i) {
    const GroupMember& m = members[i];
    const std::string seg = "segment " + std::to_string(m.segment) + " launches alone: ";
    if (m.cluster > 1) {
      out.alone.push_back(static_cast<int>(i));
      out.notes.push_back(seg + "its plan takes thread-block clusters");
      continue;
    }
    if (m.row_split) {
      out.alone.push_back(static_cast<int>(i));
      out.notes.push_back(seg + "its plan splits rows over blocks that wait on each other");
      continue;
    }
    if (m.blocks >= m.wave && m.bytes > kSmallBytes) {
      out.alone.push_back(static_cast<int>(i));
      out.notes.push_back(seg + "it fills " + std::to_string(m.blocks) + " blocks (a wave is " + std::to_string(m.wave) +
                          ") and moves " + mb(m.bytes) + ": stacking would save only a launch gap");
      continue;
    }
    auto [it, fresh] = classes.try_emplace({m.code, m.threads, m.smem});
    if (fresh) order.push_back(&it->second);
    it->second.push_back(static_cast<int>(i));
  }
  for (std::vector<int>* cls : order) {
    const int per_launch = GroupLayout::max_members(members[cls->front()].param_words, param_limit);
    if (cls->size() < 2 || per_launch < 2) {
      for (int i : *cls) {
        out.alone.push_back(i);
        out.notes.push_back("segment " + std::to_string(members[i].segment) + " launches alone: " +
                            (cls->size() < 2 ? "no other small member generates the same kernel (its plan or layout differs)"
                                             : "two members' parameters exceed the launch's parameter block"));
      }
      continue;
    }
    for (size_t at = 0; at < cls->size(); at += per_launch) {
      std::vector<int> launch(cls->begin() + at, cls->begin() + std::min(cls->size(), at + per_launch));
      if (launch.size() < 2) {
        out.alone.push_back(launch[0]);
        out.notes.push_back("segment " + std::to_string(members[launch[0]].segment) +
                            " launches alone: the parameter block of the launch before it is full");
        continue;
      }
      int64_t blocks = 0, wave = members[launch[0]].wave, under = 0;
      for (int i : launch) {
        blocks += members[i].blocks;
        under += members[i].blocks < members[i].wave;
      }
      out.why.push_back(std::to_string(launch.size()) + " launches of one kernel as one: " + std::to_string(under) + " of them alone fill under a wave (" +
                        std::to_string(members[launch[0]].blocks) + " of " + std::to_string(wave) + " resident blocks for the first), together " +
                        std::to_string(blocks) + " blocks");
      out.launches.push_back(std::move(launch));
    }
  }
  return out;
}

}  // namespace solder
