#include "passes/rebuild.h"

namespace solder {

Rebuilder::Rebuilder(const Fusion& f) : src(f), dst(f.name()), remap(f.values().size(), -1) {
  for (int id : f.inputs()) {
    const Value& v = f.value(id);
    remap[id] = dst.input(v.name, v.dtype, v.shape).id();
  }
}

std::vector<int> Rebuilder::emit(const Node& n) {
  std::vector<int> in;
  for (int i : n.in) in.push_back(remap.at(i));
  return dst.add(n.op, in, n.attrs);
}

Fusion Rebuilder::finish() {
  // Keep the source's names on values that survive, so IR dumps stay readable across passes.
  for (size_t old = 0; old < remap.size(); ++old) {
    int nid = remap[old];
    if (nid < 0) continue;
    const std::string& want = src.value(static_cast<int>(old)).name;
    if (dst.value(nid).name != want && dst.find(want) < 0) dst.rename(nid, want);
  }
  for (int o : src.outputs()) dst.output(remap.at(o));
  verify(dst);
  return dst;
}

}  // namespace solder
