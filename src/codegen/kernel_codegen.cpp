#include "codegen/kernel_codegen.h"

#include "codegen/kernel_writer.h"

namespace solder {

KernelSource generate_kernel(const Fusion& f, const Segment& s, const KernelPlan& plan) {
  if (plan.shape.dim_order.size() > static_cast<size_t>(kMaxKernelDims))
    throw Error("codegen: kernel " + plan.name + " has more than " + std::to_string(kMaxKernelDims) + " dims");
  codegen_detail::Writer w(f, s, plan);
  w.header();
  KernelSource out;
  out.name = plan.name;
  if (plan.shape.category == KernelCategory::Outer) codegen_detail::write_outer(w, out);
  else if (plan.shape.category == KernelCategory::Transpose) codegen_detail::write_transpose(w, out);
  else if (plan.shape.category == KernelCategory::Inner) codegen_detail::write_inner(w, out);
  else codegen_detail::write_flat(w, out);
  out.source = std::move(w.code);
  return out;
}

}  // namespace solder
