#include "pipeline/compile_group.h"

#include <cstdio>

#include "codegen/kernel_group.h"
#include "runtime/cache_entry.h"
#include "runtime/compiler.h"
#include "runtime/driver.h"
#include "runtime/loaded_kernel.h"  // complete_resources

namespace solder {

PreparedGroup prepare_group_kernel(const SegmentedFusion& sf, const PreparedKernel& member, int members,
                                   const DeviceInfo& dev, KernelCache& cache) {
  PreparedGroup g;
  g.source = generate_group_kernel(member.source, members);
  char h[40];
  std::snprintf(h, sizeof h, "%016llx|src=%016llx", static_cast<unsigned long long>(sf.fusion.hash()),
                static_cast<unsigned long long>(fnv1a64(g.source.source.data(), g.source.source.size())));
  g.cache_key = std::string(h, 16) + "|" + dev.arch() + "|group" + std::to_string(members) + "|" + member.plan.key() +
                "|" + std::string(h + 17) + (kernel_line_info() ? "|lineinfo" : "");
  g.compiled = cache.get(g.cache_key, [&] {
    ++g.compiles;
    CompiledKernel k = compile_cuda(g.source.source, g.source.name, dev.arch());
    if (k.ptxas.registers < 0 && has_gpu()) complete_resources(k);
    return k;
  });
  return g;
}

int kernel_param_limit(const DeviceInfo& dev) {
  if (dev.cc_major < 7) return 4096;
  if (!has_gpu()) return 32764;
  int version = 0;
  if (driver()->cuDriverGetVersion(&version) != CUDA_SUCCESS || version < 12010) return 4096;
  return 32764;
}

}  // namespace solder
