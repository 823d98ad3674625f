#include "passes/passes.h"
#include "passes/rebuild.h"

namespace solder {

namespace {
// True when every value of `narrow` is exactly representable in `wide`.
bool widens_exactly(DType narrow, DType wide) {
  if (narrow == wide) return true;
  switch (narrow) {
    case DType::F8E4M3: case DType::F8E5M2: return is_floating(wide);  // 2-3 mantissa bits fit anywhere
    case DType::F16: case DType::BF16: return wide == DType::F32 || wide == DType::F64;
    case DType::F32: return wide == DType::F64;
    case DType::Bool: return wide != DType::Bool;
    case DType::I32: return wide == DType::I64 || wide == DType::F64;
    default: return false;
  }
}
}  // namespace

Fusion fold_casts(const Fusion& f) {
  Rebuilder rb(f);
  for (const Node& n : f.nodes()) {
    if (n.op == Op::Cast) {
      int x = n.in[0];
      if (f.value(x).dtype == n.attrs.dtype) {  // cast to own type
        rb.remap[n.out[0]] = rb.mapped(x);
        continue;
      }
      const Value& xv = f.value(x);
      if (xv.producer >= 0) {
        const Node& p = f.nodes()[xv.producer];
        int orig = p.in.empty() ? -1 : p.in[0];
        if (p.op == Op::Cast && f.value(orig).dtype == n.attrs.dtype &&
            widens_exactly(f.value(orig).dtype, xv.dtype)) {
          rb.remap[n.out[0]] = rb.mapped(orig);
          continue;
        }
      }
    }
    auto outs = rb.emit(n);
    for (size_t k = 0; k < outs.size(); ++k) rb.remap[n.out[k]] = outs[k];
  }
  return rb.finish();
}

}  // namespace solder
