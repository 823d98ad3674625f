#pragma once
// Shared plumbing of the rewrite passes: copy a fusion node by node through Fusion::add,
// letting a pass redirect values. Keeps each pass a few lines of actual logic.
#include <functional>
#include <vector>

#include "solder/fusion.h"

namespace solder {

// Calls `visit(node, remap)` for each node of `f` in order; `visit` returns the new ids of the
// node's outputs (usually `emit(node)`), or other existing new ids to replace them.
struct Rebuilder {
  const Fusion& src;
  Fusion dst;
  std::vector<int> remap;  // old value id -> new value id
  explicit Rebuilder(const Fusion& f);
  std::vector<int> emit(const Node& n);  // copies the node with remapped operands
  int mapped(int old_id) const { return remap.at(old_id); }
  Fusion finish();  // outputs + names carried over, verified
};

}  // namespace solder
