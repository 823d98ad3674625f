#include "schedule/kernel_plan.h"

#include <algorithm>

namespace solder {

const char* access_name(Access a) {
  switch (a) {
    case Access::Scalar: return "scalar";
    case Access::Row: return "row";
    case Access::Col: return "col";
    case Access::Full: return "full";
    case Access::General: return "general";
  }
  return "?";
}

std::string KernelParams::str() const {
  std::string s = "vec=" + std::to_string(vec) + " threads=" + std::to_string(threads);
  if (threads_per_row)
    s += " threads_per_row=" + std::to_string(threads_per_row) + " rows_per_block=" + std::to_string(rows_per_block) +
         (batch ? " persistent_batch=" + std::to_string(batch) : std::string(" looped")) +
         (cluster > 1 ? " cluster=" + std::to_string(cluster) : std::string()) +
         " min_blocks=" + std::to_string(min_blocks) + (prefetch ? (prefetch_smem ? " prefetch=smem:" + std::to_string(dyn_smem) : " prefetch") : "") +
         (ldg_weights ? " ldg_weights" : "") +
         (weight_ring ? " weight_ring=" + std::to_string(weight_ring) : std::string()) +
         (tickets ? " tickets" : "") + (resident ? " resident=" + std::to_string(resident) : std::string()) + (recompute ? " recompute" : "") +
         (col_vec ? " phased col_vec=" + std::to_string(col_vec) : std::string());
  else
    s += " unroll=" + std::to_string(unroll);
  return s;
}

namespace {
// Which domain dims (original order) a value of shape `vs` varies along, right-aligned.
uint32_t domain_span(const Shape& vs, const Shape& domain) {
  uint32_t m = 0;
  size_t off = domain.size() - std::min(domain.size(), vs.size());
  for (size_t i = 0; i < vs.size() && off + i < domain.size(); ++i)
    if (!vs[i].is_one()) m |= 1u << (off + i);
  return m;
}
}  // namespace

KernelShape analyze_kernel(const Fusion& f, const Segment& s) {
  KernelShape k;
  k.category = s.category;
  const int rank = static_cast<int>(s.domain.size());
  // Rows first (kept dims, in order), then the reduced dims: an inner reduction over any axes
  // becomes a reduction over the trailing kernel dims.
  std::vector<char> red(rank, 0);
  if (s.category == KernelCategory::Inner)
    for (auto a : s.reduce_axes) red[a] = 1;
  for (int d = 0; d < rank; ++d)
    if (!red[d]) k.dim_order.push_back(d);
  for (int d = 0; d < rank; ++d)
    if (red[d]) k.dim_order.push_back(d);
  k.split = s.category == KernelCategory::Inner ? rank - static_cast<int>(s.reduce_axes.size())
            : s.category == KernelCategory::Full ? 0
                                                 : rank;  // pointwise: refined below
  k.operands = s.inputs;
  k.num_inputs = static_cast<int>(s.inputs.size());
  k.operands.insert(k.operands.end(), s.outputs.begin(), s.outputs.end());

  // Spans in original dims; reduction outputs map onto their kept dims.
  std::vector<uint32_t> orig(f.values().size(), 0);
  auto span_of = [&](int id) {
    const Value& v = f.value(id);
    if (v.producer >= 0) {
      const Node& p = f.nodes()[v.producer];
      if (op_info(p.op).kind == OpKind::Reduction && !p.attrs.keepdim) {
        uint32_t m = 0;
        int j = 0;
        for (int d = 0; d < rank; ++d) {
          bool r = std::binary_search(p.attrs.axes.begin(), p.attrs.axes.end(), d);
          if (r) continue;
          if (j < v.rank() && !v.shape[j].is_one()) m |= 1u << d;
          ++j;
        }
        return m;
      }
    }
    return domain_span(v.shape, s.domain);
  };
  k.span.assign(f.values().size(), 0);
  for (size_t id = 0; id < f.values().size(); ++id) {
    uint32_t o = span_of(static_cast<int>(id));
    uint32_t m = 0;
    for (int pos = 0; pos < rank; ++pos)
      if (o & (1u << k.dim_order[pos])) m |= 1u << pos;
    k.span[id] = m;
  }
  if (s.category == KernelCategory::Pointwise) {
    // Largest column block on which every operand either varies along all dims or none:
    // that is what lets a bias [H] be a Col operand of a [B, H] kernel.
    int split = rank;
    for (int cand = rank - 1; cand >= 0; --cand) {
      bool uniform = true;
      for (int id : k.operands) {
        uint32_t cols = k.span[id] >> cand;
        uint32_t full = (1u << (rank - cand)) - 1;
        // size-1 domain dims do not matter
        uint32_t care = 0;
        for (int pos = cand; pos < rank; ++pos)
          if (!s.domain[k.dim_order[pos]].is_one()) care |= 1u << (pos - cand);
        if ((cols & care) != 0 && (cols & care) != (full & care)) uniform = false;
      }
      if (!uniform) break;
      split = cand;
    }
    if (split == rank && rank > 0) split = rank - 1;
    k.split = split;
  }
  return k;
}

std::string KernelPlan::key() const {
  std::string s = name + "|" + kernel_category_name(shape.category) + "|split=" + std::to_string(shape.split) + "|order=";
  for (int d : shape.dim_order) s += std::to_string(d) + ",";
  s += "|ops=";
  for (const auto& o : operands) s += std::to_string(o.value) + ":" + access_name(o.access) + ",";
  return s + "|" + params.str();
}

std::string KernelPlan::describe(const Fusion& f) const {
  std::string s = name + " (" + kernel_category_name(shape.category) + ")\n    params: " + params.str() + "\n    operands:";
  for (const auto& o : operands)
    s += " " + f.value(o.value).name + (o.is_output ? "(out," : "(in,") + access_name(o.access) + ")";
  return s;
}

}  // namespace solder
