#include "pipeline/compile_kernel.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>
#include <utility>

#include "pipeline/tuning_db.h"
#include "runtime/cache_entry.h"
#include "runtime/compiler.h"
#include "runtime/driver.h"
#include "runtime/loaded_kernel.h"  // complete_resources
#include "schedule/outer_view.h"
#include "solder/error.h"

namespace solder {

namespace {

// SOLDER_DEBUG=2 (or more): a line per stage of each kernel: the scheduler, then each
// candidate with its compile time and ptxas's verdict.
bool debug_kernels() {
  static const bool on = [] {
    const char* e = std::getenv("SOLDER_DEBUG");
    return e && std::atoi(e) >= 2;
  }();
  return on;
}

std::string hex64(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

// One plan's code and its cache key (the code's hash too: a disk entry written by another
// version of the code generator must not be taken for this one's kernel).
PreparedKernel generated(const SegmentedFusion& sf, const Segment& s, const KernelPlan& plan, const DeviceInfo& dev) {
  PreparedKernel pk;
  pk.plan = plan;
  pk.source = generate_kernel(sf.fusion, s, plan);
  pk.cache_key = hex64(sf.fusion.hash()) + "|" + dev.arch() + "|" + plan.key() +
                 "|src=" + hex64(fnv1a64(pk.source.source.data(), pk.source.source.size())) + (kernel_line_info() ? "|lineinfo" : "");
  return pk;
}

// A candidate's NVRTC compile through the caches. The task owns what it reads (the source, a
// handle on the cache), so the driver may stop waiting for it once an earlier candidate fits;
// its kernel still lands in the cache.
struct Built {
  std::shared_ptr<const CompiledKernel> kernel;
  bool compiled = false;  // not a cache hit
};
Built compile_through(KernelCache cache, const std::string& key, const std::string& source, const std::string& name,
                      const std::string& arch) {
  Built b;
  b.kernel = cache.get(key, [&] {
    b.compiled = true;
    CompiledKernel k = compile_cuda(source, name, arch);
    if (k.ptxas.registers < 0 && has_gpu()) complete_resources(k);
    return k;
  });
  return b;
}

// Compiles nobody waits for any more: the process waits for them at exit, so none is torn
// down inside NVRTC.
void leave_running(std::future<Built> f) {
  static std::mutex mu;
  static std::vector<std::future<Built>> running;
  std::lock_guard<std::mutex> lock(mu);
  running.erase(std::remove_if(running.begin(), running.end(),
                               [](std::future<Built>& r) {
                                 return r.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
                               }),
                running.end());
  running.push_back(std::move(f));
}

// The scheduler's first plan with the user's parts (CompileOptions::plan). Parts the user did
// not name but that follow from those named are derived as the inner scheduler derives them
// (rows per block, threads, the register cap's blocks, the batch that covers the row; outer
// plans: the held rows' batch at the pinned threads and cluster); the
// shared-memory parts, sized for the scheduler's shape, are dropped where the shape changed.
KernelPlan pinned_plan(const KernelPlan& first, const std::string& text, const LaunchFacts& facts) {
  std::set<std::string> given;
  KernelPlan plan = first;
  KernelParams& p = plan.params;
  p = parse_params(text, first.params, &given);
  plan.why.clear();  // the scheduler's reasons were for its own plan
  if (plan.shape.category == KernelCategory::Outer) {
    // Held rows: the batch that covers the reduced rows at the pinned threads and cluster.
    const int64_t span = int64_t{std::max(1, p.rows_per_block)} * std::max(1, p.cluster);
    const int was_batch = p.batch;
    if (p.batch > 0 && !given.count("persistent_batch")) p.batch = static_cast<int>((facts.C + span - 1) / span);
    // Held rows in shared memory: all of them where the scheduler's plan had all, at most the batch.
    if (!given.count("smem_rows") && p.smem_rows > 0 && p.smem_rows == was_batch) p.smem_rows = p.batch;
    p.smem_rows = std::min(p.smem_rows, p.batch);
    int full_in_bytes = 0;
    bool copyable = true;  // every held vector a cp.async size (a pinned vec may narrow them)
    for (size_t k = 0; k < plan.operands.size(); ++k)
      if (!plan.operands[k].is_output && plan.operands[k].access == Access::Full) {
        const int b = dtype_size(facts.operands[k].dtype), vb = p.vec * b;
        full_in_bytes += b;
        copyable &= vb == 4 || vb == 8 || vb == 16;
      }
    if (!copyable && !given.count("smem_rows")) p.smem_rows = 0;
    p.dyn_smem = static_cast<int>(outer_norm_row_smem(p, full_in_bytes));
    if (!given.count("min_blocks") && (given.count("threads") || given.count("rows_per_block")))
      p.min_blocks = std::max(1, 1024 / p.threads);
    return plan;
  }
  // Interleaved elements are a one_row plan's with phased rows: a pin without either drops it
  // unless it names it.
  if (p.interleave && !given.count("interleave") && (!p.one_row || p.col_vec != 1)) p.interleave = false;
  // full/dims operands in runs at the flat index (segments) are a one_row plan's vectors across
  // row ends: a pin that leaves that form reads them from their rows' bases again.
  if (plan.shape.category == KernelCategory::Pointwise && (!p.one_row || p.col_vec != 1 || p.interleave))
    for (OperandPlan& o : plan.operands)
      if (o.rows_by_dim) o.segments = false;
  if (plan.shape.category != KernelCategory::Inner || p.threads_per_row < 1) return plan;
  const KernelParams& was = first.params;
  if (given.count("row_split") && p.row_split > 1) {  // a split row's block takes one row: none of these
    if (!given.count("prefetch")) p.prefetch = p.prefetch_smem = p.ldg_weights = false, p.weight_ring = 0, p.dyn_smem = 0;
    if (!given.count("tickets")) p.tickets = false;
    if (!given.count("resident")) p.resident = 0;
    if (!given.count("cluster")) p.cluster = 1;
  }
  // Inputs read at their own phase (shift) are a held row's with vectors: a pin of one element
  // per thread, the looped row, phased rows or a cluster or split drops it unless it names it.
  if (p.shift && !given.count("shift") &&
      (p.vec <= 1 || p.batch == 0 || p.col_vec || p.cluster > 1 || p.row_split > 1 || p.prefetch_smem))
    p.shift = false;
  if (!given.count("rows_per_block"))
    p.rows_per_block = p.cluster > 1 || p.row_split > 1 ? 1 : std::max(1, 256 / p.threads_per_row);
  if (!given.count("threads")) p.threads = p.threads_per_row * p.rows_per_block;
  if (!given.count("min_blocks")) p.min_blocks = std::max(1, 1024 / p.threads);
  if (p.batch > 0 && !given.count("persistent_batch") && p.vec > 0) {
    const int64_t nvec = (facts.C + (p.col_vec ? p.vec - p.col_vec : 0) + p.vec - 1) / p.vec;
    const int64_t per_pass = int64_t{p.threads_per_row} * p.cluster * p.row_split;
    p.batch = static_cast<int>((nvec + per_pass - 1) / per_pass);
  }
  const bool reshaped = p.threads_per_row != was.threads_per_row || p.rows_per_block != was.rows_per_block ||
                        p.batch != was.batch || p.vec != was.vec || p.cluster != was.cluster ||
                        p.row_split != was.row_split;
  if (reshaped && !given.count("prefetch") && !given.count("dyn_smem")) {
    if (p.prefetch_smem) p.prefetch_smem = p.ldg_weights = false, p.weight_ring = 0, p.dyn_smem = 0;
    if (!given.count("resident") && p.resident) p.resident = 0, p.dyn_smem = 0;
  }
  // Resident weights kept or named at another shape: their copies sized for the pinned one (a
  // pinned plan with the prefetch named kept the scheduler's dynamic shared memory, too small
  // where the pinned shape holds more vectors per row than the scheduler's plan).
  if (p.resident && !p.prefetch_smem && !given.count("dyn_smem") && (reshaped || given.count("resident"))) {
    int64_t bytes = 0;
    int i = 0;
    for (size_t k = 0; k < plan.operands.size(); ++k)
      if (!plan.operands[k].is_output && plan.operands[k].access == Access::Col) {
        if (p.resident >> i & 1)
          bytes += int64_t{p.batch} * p.threads_per_row * p.vec * dtype_size(facts.operands[k].dtype);
        ++i;
      }
    p.dyn_smem = static_cast<int>(bytes);
  }
  if (!given.count("tickets"))
    p.tickets = p.tickets && p.prefetch && !p.prefetch_smem && p.cluster == 1 && p.threads_per_row > 32;
  // Staged operands: their tiles at the pinned shape are the dynamic shared memory.
  int64_t tiles = 0;
  for (size_t k = 0; k < plan.operands.size(); ++k)
    if (plan.operands[k].access == Access::Staged) tiles += staged_tile_bytes(p, dtype_size(facts.operands[k].dtype));
  if (tiles && !p.prefetch_smem) p.dyn_smem = static_cast<int>(tiles);
  return plan;
}

int spill_bytes(const PreparedKernel& pk) {
  return pk.compiled->ptxas.spill_store_bytes + pk.compiled->ptxas.spill_load_bytes;
}

}  // namespace

PreparedKernel prepare_kernel(const SegmentedFusion& sf, int index, const KernelShape& ks, const LaunchFacts& facts,
                              const DeviceInfo& dev, KernelCache& cache, const CompileOptions& options) {
  const Segment& s = sf.segments.at(index);
  const ScheduleContext cx{sf.fusion, s, index, ks, facts, dev, recorded_choice};
  // A pinned scheduler (`scheduler=NAME` among the plan's parts) takes the segment where it can;
  // the other parts pin its first plan.
  std::string pin, pinned_scheduler;
  {
    std::string spaced = options.plan;
    std::replace(spaced.begin(), spaced.end(), ',', ' ');
    std::istringstream in(spaced);
    for (std::string tok; in >> tok;)
      if (tok.rfind("scheduler=", 0) == 0) pinned_scheduler = tok.substr(10);
      else pin += (pin.empty() ? "" : ",") + tok;
  }
  const SchedulerChoice choice = choose_scheduler(cx, pinned_scheduler);
  std::vector<KernelPlan> plans = choice.scheduler->candidates(cx);
  if (plans.empty()) throw Error(std::string("schedule: scheduler ") + choice.scheduler->name() + " gave no plan");
  if (!pin.empty()) plans = {pinned_plan(plans.front(), pin, facts)};
  std::vector<std::string> rejected;
  PreparedKernel least;  // the candidate that spilled least, where all do
  int compiles = 0;
  // The first candidate compiles alone where cores are few (it fits, mostly); with 4 or more,
  // the scheduler's first few (Scheduler::compiles_at_once: its first fallbacks, or more where
  // first plans often spill) compile beside it, as a spill cost a whole second ptxas round
  // (first calls of programs that retried: median 416-675 ms against 124-189 ms for the rest,
  // seeds 15 and 16 on the H100's host). After a spill the next ones compile side by side, a
  // batch at a time, and are judged in order, so the plan chosen never depends on the batches:
  // a retry chain of five plans took one ptxas run after another (2.4 s for seed 6 #011's
  // first call). The driver waits for a batch's candidates in order and returns at the first
  // that fits: the later ones (often the larger, slower compiles) finish on their own.
  const int width = static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, 4u));
  const int first = width >= 4 ? std::clamp(choice.scheduler->compiles_at_once(), 1, width) : 1;
  // A rejected candidate as explain lists it: its params, and the operands it stages (which the
  // params do not show: a staged plan and its in-place fallback print alike).
  auto described = [&](const KernelPlan& plan) {
    std::string staged;
    for (const OperandPlan& o : plan.operands)
      if (o.access == Access::Staged) staged += (staged.empty() ? " (staged: " : ", ") + sf.fusion.value(o.value).name;
    return plan.params.str() + (staged.empty() ? "" : staged + ")");
  };
  // The kernel a run takes, with what explain says of the choice.
  auto chosen = [&](PreparedKernel pk) {
    pk.rejected = std::move(rejected);
    pk.compiles = compiles;
    pk.scheduler = choice.scheduler->name();
    pk.passed_over = choice.passed_over;
    pk.pinned = choice.pinned;
    return pk;
  };
  size_t next = 0;
  for (int batch = first; next < plans.size(); batch = width) {
    std::vector<const KernelPlan*> todo;
    for (; next < plans.size() && static_cast<int>(todo.size()) < batch; ++next) {
      const KernelPlan& plan = plans[next];
      if (auto bad = plan.problems(); !bad.empty()) {
        if (!pin.empty()) plan.validate();  // the user's plan: say what is wrong with it
        rejected.push_back(described(plan) + ": impossible (" + bad.front() + ")");
        continue;
      }
      todo.push_back(&plan);
    }
    std::vector<PreparedKernel> pks;
    std::vector<std::future<Built>> built;
    for (const KernelPlan* plan : todo) {
      pks.push_back(generated(sf, s, *plan, dev));
      const PreparedKernel& pk = pks.back();
      built.push_back(std::async(todo.size() > 1 ? std::launch::async : std::launch::deferred, compile_through, cache,
                                 pk.cache_key, pk.source.source, pk.source.name, dev.arch()));
    }
    for (size_t i = 0; i < built.size(); ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      const Built b = built[i].get();
      PreparedKernel& pk = pks[i];
      pk.compiled = b.kernel;
      compiles += b.compiled;
      if (debug_kernels())
        std::fprintf(stderr, "solder: kernel %s [%s] %s: %.1f ms waited, %.1f ms to compile, %d registers, %d B spilled\n",
                     pk.plan.name.c_str(), choice.scheduler->name(), pk.plan.params.str().c_str(),
                     std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(),
                     b.kernel->compile_ms, b.kernel->ptxas.registers, spill_bytes(pk));
      if (!pk.compiled->ptxas.spills()) {
        for (size_t j = i + 1; j < built.size(); ++j) leave_running(std::move(built[j]));
        return chosen(std::move(pk));
      }
      rejected.push_back(described(pk.plan) + ": " + std::to_string(pk.compiled->ptxas.spill_store_bytes) + " B spilled");
      if (!least.compiled || spill_bytes(pk) < spill_bytes(least)) least = std::move(pk);
    }
  }
  if (!least.compiled)
    throw Error("schedule: no valid plan for kernel segment " + std::to_string(index) + " of " + sf.fusion.name());
  // Every candidate spills: run the one that spills least rather than refuse the program.
  least.spills = true;
  return chosen(std::move(least));
}

LaunchFacts kernel_facts(const SegmentedFusion& sf, int index, KernelShape& ks,
                         const std::vector<std::vector<int64_t>>& shapes, const std::vector<std::vector<int64_t>>& strides,
                         const std::vector<uint64_t>& addresses, const Bindings* b) {
  const Segment& s = sf.segments.at(index);
  const Fusion& f = sf.fusion;
  // The domain's sizes: the largest operand shape of each domain dim (right-aligned); reduction
  // outputs without keepdim have lost the reduced dims, so they say nothing here.
  std::vector<int64_t> domain(s.domain.size(), 1);
  for (size_t k = 0; k < ks.operands.size(); ++k) {
    const Value& val = f.value(ks.operands[k]);
    const bool red_out = val.producer >= 0 && op_info(f.nodes()[val.producer].op).kind == OpKind::Reduction &&
                         !f.nodes()[val.producer].attrs.keepdim;
    if (red_out) continue;
    const auto& sh = shapes[k];
    const size_t off = domain.size() - sh.size();
    for (size_t i = 0; i < sh.size(); ++i) domain[off + i] = std::max(domain[off + i], sh[i]);
  }
  // Reduction inputs define the reduced sizes even when no other operand spans them.
  for (int ni : s.nodes) {
    const Node& n = f.nodes()[ni];
    if (op_info(n.op).kind != OpKind::Reduction) continue;
    const auto at = std::find(ks.operands.begin(), ks.operands.end(), n.in[0]);
    if (at == ks.operands.end()) continue;
    const auto& in_shape = shapes[at - ks.operands.begin()];
    if (!in_shape.empty() && in_shape.size() == domain.size())
      for (size_t i = 0; i < domain.size(); ++i) domain[i] = std::max(domain[i], in_shape[i]);
  }
  LaunchFacts facts = make_facts(f, s, ks, domain, shapes, strides, addresses);
  for (const Dim& d : symbolic_bounds(f, s)) {
    if (!b)
      throw Error("schedule: kernel segment " + std::to_string(index) + " reads a pad or window bounded by " + d.str() +
                  ": its facts need the launch's sizes");
    facts.bounds.push_back(d.eval(*b));
  }
  add_window_facts(f, s, ks, facts);
  return facts;
}

LaunchFacts contiguous_facts(const SegmentedFusion& sf, int index, const Bindings& b) {
  KernelShape ks = analyze_kernel(sf.fusion, sf.segments.at(index));
  std::vector<std::vector<int64_t>> shapes, strides;
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
  }
  return kernel_facts(sf, index, ks, shapes, strides, std::vector<uint64_t>(ks.operands.size(), kAlignClass), &b);
}

int resident_blocks(const DeviceInfo& dev, const PreparedKernel& pk) {
  const PtxasInfo& px = pk.compiled->ptxas;
  return occupancy_blocks(dev, pk.plan.params.threads, px.registers, px.smem_bytes + pk.plan.params.dyn_smem);
}

std::vector<int64_t> pack_params(const LaunchFacts& facts) {
  const int n = static_cast<int>(facts.operands.size());
  const ParamLayout L{n, static_cast<int>(facts.bounds.size())};
  std::vector<int64_t> params(L.size(), 0);
  for (size_t i = 0; i < facts.bounds.size(); ++i) params[L.bound(static_cast<int>(i))] = facts.bounds[i];
  params[ParamLayout::kRows] = facts.R;
  params[ParamLayout::kCols] = facts.C;
  for (size_t d = 0; d < facts.dims.size(); ++d) params[ParamLayout::dim(static_cast<int>(d))] = facts.dims[d];
  for (int k = 0; k < n; ++k) {
    params[L.ld(k)] = facts.operands[k].ld;
    for (size_t d = 0; d < facts.dims.size(); ++d) params[L.stride(k, static_cast<int>(d))] = facts.operands[k].strides[d];
  }
  return params;
}

}  // namespace solder
