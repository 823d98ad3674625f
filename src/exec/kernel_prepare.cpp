#include "exec/kernel_prepare.h"

#include <algorithm>
#include <cstdio>

#include "runtime/cache_entry.h"
#include "runtime/device_memory.h"
#include "runtime/driver.h"
#include "solder/error.h"

namespace solder {

PreparedKernel prepare_kernel(const SegmentedFusion& sf, int index, LaunchFacts& facts, const DeviceInfo& dev,
                              KernelCache& cache) {
  const Segment& s = sf.segments.at(index);
  KernelShape ks = analyze_kernel(sf.fusion, s);
  char hash[32];
  std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(sf.fusion.hash()));
  PreparedKernel best;
  int compiles = 0;
  std::vector<std::string> spilled;
  for (int attempt = 0;; ++attempt) {
    KernelPlan plan;
    if (!schedule_kernel(sf.fusion, s, index, ks, facts, dev, attempt, plan)) break;
    if (best.compiled)
      spilled.push_back(best.plan.params.str() + ": " + std::to_string(best.compiled->ptxas.spill_store_bytes) + " B");
    PreparedKernel pk;
    pk.plan = plan;
    pk.spilled = spilled;
    pk.source = generate_kernel(sf.fusion, s, plan);
    // The source's hash too: a disk entry written by another version of the code generator
    // must not be taken for this one's kernel (same plan, different code).
    char src_hash[24];
    std::snprintf(src_hash, sizeof src_hash, "%016llx",
                  static_cast<unsigned long long>(fnv1a64(pk.source.source.data(), pk.source.source.size())));
    pk.cache_key = std::string(hash) + "|" + dev.arch() + "|" + plan.key() + "|src=" + src_hash;
    pk.compiled = cache.get(pk.cache_key, [&] {
      ++compiles;
      CompiledKernel k = compile_cuda(pk.source.source, pk.source.name, dev.arch());
      if (k.ptxas.registers < 0 && has_gpu()) complete_resources(k);
      return k;
    });
    pk.compiles = compiles;
    best = std::move(pk);
    if (!best.compiled->ptxas.spills()) return best;
  }
  if (!best.compiled) throw Error("schedule: no plan for segment " + std::to_string(index) + " of " + sf.fusion.name());
  throw Error("schedule: every plan for kernel " + best.plan.name + " spills registers (" +
              std::to_string(best.compiled->ptxas.spill_store_bytes) + " bytes of spill stores); refusing to run it");
}

int occupancy_blocks(const DeviceInfo& dev, int threads, int registers, int smem) {
  int warps = (threads + 31) / 32;
  int by_threads = dev.max_threads_per_sm / std::max(1, threads);
  // Registers are allocated per warp in chunks of 256.
  int regs_per_warp = ((std::max(registers, 1) * 32 + 255) / 256) * 256;
  int by_regs = dev.regs_per_sm / std::max(1, regs_per_warp * warps);
  int by_smem = smem > 0 ? dev.smem_per_sm / (smem + 1024) : dev.max_blocks_per_sm;
  return std::max(0, std::min({dev.max_blocks_per_sm, by_threads, by_regs, by_smem}));
}

int resident_blocks(const DeviceInfo& dev, const PreparedKernel& pk) {
  const PtxasInfo& px = pk.compiled->ptxas;
  return occupancy_blocks(dev, pk.plan.params.threads, px.registers, px.smem_bytes + pk.plan.params.dyn_smem);
}

LaunchFacts contiguous_facts(const SegmentedFusion& sf, int index, const Bindings& b) {
  const Segment& s = sf.segments.at(index);
  KernelShape ks = analyze_kernel(sf.fusion, s);
  std::vector<std::vector<int64_t>> shapes, strides;
  std::vector<uint64_t> addr;
  for (int v : ks.operands) {
    auto sh = eval_shape(sf.fusion.value(v).shape, b);
    std::vector<int64_t> st(sh.size());
    int64_t acc = 1;
    for (int d = static_cast<int>(sh.size()) - 1; d >= 0; --d) {
      st[d] = acc;
      acc *= sh[d];
    }
    shapes.push_back(sh);
    strides.push_back(st);
    addr.push_back(256);
  }
  return make_facts(sf.fusion, s, ks, eval_shape(s.domain, b), shapes, strides, addr);
}

}  // namespace solder
