// Runs generated transpose (and pointwise) kernels on the CPU against the reference executor,
// for checking a template's indexing without a GPU: the kernel's source (its device runtime
// replaced by mock.h) is compiled with g++ -fsanitize=address into a shared object, one block at a
// time runs a std::thread per CUDA thread (__syncthreads a barrier, __shared__ a static), vector
// accesses abort when misaligned and ASan catches any access outside the operands. Operands get
// any memory order, padding and misalignment; an operand that is a view of an input (a slice, a
// cat's pad) shares its input's memory at the view's strides and offset. `shift_` cases: the
// pointwise shift plans (inputs read at their own phase, tests/support/shift_programs.h).
// `onorm_` cases: the outer_norm template's General inputs. `onerow_` cases: one row of R x C,
// consecutive and interleaved (`_il`) elements. `inner_norm_` cases: the inner
// template's norms (W1 layer norm f32/f16/bf16, rms norm and softmax f16/bf16/f32, rows of 37,
// 130, 1001 and 4098) at the scheduler's plan and pinned ones: rows held in registers, one row
// per block and several, rows within a warp and across warps, the register prefetch with and
// without tickets (blocks capped so they walk several rows; 13 and 25 rows so tickets are
// taken), the shared-memory prefetch, weight ring, ldg weights, resident weights, phased rows,
// recompute, looped rows; `colvec_` cases: 2-D pointwise plans with column-only inputs; `group3_` cases: some of them as a group kernel of three members, each
// over fewer blocks than its rows (the stacked launch's shared wave). `innershift_` cases: the inner template's shift plans (norms of a
// column slice at an odd row stride, tests/support/inner_shift_programs.h's forms over laid-out
// inputs). `smm_` cases: small matmuls as reduction kernels (tests/support/small_matmul_programs.h),
// as laid out and with operands transposed and misaligned. `mbr_` cases: math after a reshape of
// a computed value in that value's kernel (tests/support/reshape_math_programs.h). `pads_` cases: pads of several dims read through a pad of a pad
// (tests/support/pad_programs.h), inputs also stored dims reversed. `full_` cases: full reductions (sum, amax, var_mean, an epilogue) over every dim of
// x * y with x permuted, through the transpose template's reducing tiles where both tile dims
// reach 16 and the flat template elsewhere (grid combine: atomics as plain adds, the blocks run
// in turn). Warp shuffles trade through per-warp barriers, shared memory at
// 32-bit addresses is an offset from an anchor in the kernel's object, cp.async a plain copy.
// Not run: clusters and split rows (blocks run one after another here, so a block that waits
// on another would hang): printed as `skip`; pinned plans launch_grid or validate refuses by
// name: `refused` (among them the two pins the simulator first found wrong: prefetch=smem over
// phased rows, and a looped pin keeping a phased plan's vec; both refused since).
// Not part of the build (an experiment):
//   W=$PWD; g++ -std=gnu++20 -O1 -g -DNDEBUG -DFMT_HEADER_ONLY=1 -fsanitize=address -rdynamic \
//     -DSIM_DIR=\"$W/bench/experiments/cpu_kernel_sim\" -I$W/src -I$W/include -isystem /usr/local/cuda/include \
//     $W/bench/experiments/cpu_kernel_sim/sim.cpp $W/build/libsolder.a -L/usr/local/cuda/lib64 -lnvrtc -ldl \
//     -lpthread -o /tmp/kernel_sim && ASAN_OPTIONS=detect_leaks=0 /tmp/kernel_sim
// (libsolder.a built as configured by scripts/setup.sh: the defines must match its.)
#include <dlfcn.h>
#include <barrier>
#include <cstring>
struct Dim3 { unsigned x = 0, y = 0, z = 0; };
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <thread>
#include <vector>

#include "codegen/device_runtime.h"
#include "codegen/kernel_group.h"
#include "ir/parser.h"
#include "pipeline/compile_kernel.h"
#include "pipeline/pipeline.h"
#include "programs/run_inputs.h"
#include "runtime/kernel_cache.h"
#include "solder/reference.h"
#include "schedule/launch_grid.h"
#include "exec/view_meta.h"
#include "solder/error.h"
#include "../../../tests/support/row_unroll_programs.h"
#include "../../../tests/support/flat_programs.h"
#include "../../../tests/support/outer_norm_programs.h"
#include "../../../tests/support/pad_programs.h"
#include "../../../tests/support/reshape_math_programs.h"
#include "../../../tests/support/shift_programs.h"
#include "../../../tests/support/small_matmul_programs.h"
#include "../../../tests/support/symbolic_cat_programs.h"

using namespace solder;
using namespace solder::testing;

struct Layout {
  std::vector<int> order;  // logical dims, outermost first (empty: row-major)
  int64_t pad = 0;         // extra elements on the innermost storage dim
  int64_t mis = 0;         // element offset of element 0
};

struct Buffer {
  std::vector<int64_t> shape, strides;
  int64_t offset = 0, size = 0;
  std::byte* mem = nullptr;
};

bool g_exact = false;
std::string g_expect_param;  // a part the chosen plan's params must print (the shift cases: " shift")
unsigned g_grid_cap_y = ~0u;  // gridDim.y at most this (blocks of the rows_ cases walk several steps)
int g_sm_count = 0;  // where set, the profile's SM count (the tred_ cases' few tiles are a device's worth)
// Where set, the kernel runs as the group kernel of this many members (horizontal fusion's stacked
// launch), member m over its own outputs and scratch with g_group_gx[m] blocks (or fewer: the
// member's own grid), the blocks of all members one numbering, as the executor's stacked step.
std::vector<int64_t> g_group_gx;

Buffer make_buffer(const std::vector<int64_t>& shape, const Layout& l, int es) {
  Buffer b;
  b.shape = shape;
  const int r = shape.size();
  std::vector<int> order = l.order;
  if (order.empty()) for (int d = 0; d < r; ++d) order.push_back(d);
  b.strides.assign(r, 0);
  int64_t acc = 1;
  for (int i = r - 1; i >= 0; --i) {
    b.strides[order[i]] = acc;
    acc *= (i == r - 1 ? shape[order[i]] + l.pad : shape[order[i]]);
  }
  for (int d = 0; d < r; ++d) if (shape[d] == 1) b.strides[d] = 1;  // like torch
  b.offset = l.mis;
  b.size = acc + l.mis;
  // g_exact: malloc'd at the exact size (16-byte aligned), so ASan catches a read one element past
  // the last (the outer template's phase-shifted loads).
  b.mem = g_exact ? static_cast<std::byte*>(std::malloc(std::max<int64_t>(b.size, 1) * es))
                  : static_cast<std::byte*>(std::aligned_alloc(256, (std::max<int64_t>(b.size, 1) * es + 255) / 256 * 256));
  std::memset(b.mem, 0x7f, b.size * es);
  return b;
}

int64_t offset_of(const Buffer& b, int64_t linear) {
  int64_t off = b.offset;
  for (int d = b.shape.size() - 1; d >= 0; --d) {
    off += (linear % b.shape[d]) * b.strides[d];
    linear /= b.shape[d];
  }
  return off;
}

thread_local Dim3 threadIdx, blockIdx;
Dim3 gridDim, blockDim;
std::barrier<>* g_barrier;
std::barrier<>* g_warp_barrier[32];  // each warp's (the mock's shuffles)

bool run_case(const std::string& name, const Fusion& f0, const Bindings& sizes, const std::vector<Layout>& in_layouts,
              const std::vector<Layout>& out_layouts, int grid_cap, const std::string& expect_sched, const std::string& plan_pin = "") {
  SegmentedFusion sf = f0.name() == "simcopy" ? segment_fusion(f0) : lower(f0);
  const Fusion& f = sf.fusion;
  int si = -1;
  for (size_t i = 0; i < sf.segments.size(); ++i)
    if (sf.segments[i].kind == SegmentKind::Kernel) { if (si >= 0) throw Error("one kernel only"); si = i; }
  const Segment& s = sf.segments[si];
  KernelShape ks = analyze_kernel(f, s);
  Bindings b = bind_shapes(f0, resolve_input_shapes(f0, {}, sizes));
  std::vector<std::vector<int64_t>> shapes, strides;
  std::vector<uint64_t> addr;
  std::vector<Buffer> bufs;
  // Inputs' buffers, made once each; an operand that is a view of an input (a slice, a cat's pad)
  // shares its input's memory at the view's strides and offset (exec/view_meta.h).
  std::vector<Buffer> in_bufs(f.inputs().size());
  std::vector<char> in_made(f.inputs().size(), 0), owned;
  auto input_buffer = [&](size_t i) -> Buffer& {
    if (!in_made[i]) {
      const int v = f.inputs()[i];
      in_bufs[i] = make_buffer(eval_shape(f.value(v).shape, b), i < in_layouts.size() ? in_layouts[i] : Layout{},
                               dtype_size(f.value(v).dtype));
      in_made[i] = 1;
    }
    return in_bufs[i];
  };
  auto input_index = [&](int v) {
    for (size_t i = 0; i < f.inputs().size(); ++i) if (f.inputs()[i] == v) return static_cast<int>(i);
    return -1;
  };
  for (size_t i = 0; i < f.inputs().size(); ++i) input_buffer(i);
  for (size_t k = 0; k < ks.operands.size(); ++k) {
    int v = ks.operands[k];
    auto sh = eval_shape(f.value(v).shape, b);
    const int es = dtype_size(f.value(v).dtype);
    if (const int i = input_index(v); i >= 0) {
      bufs.push_back(input_buffer(i));
      owned.push_back(0);
    } else {
      Layout l;
      bool found = false;
      for (size_t i = 0; i < f.outputs().size(); ++i) if (f.outputs()[i] == v) { l = i < out_layouts.size() ? out_layouts[i] : Layout{}; found = true; }
      if (found) {
        bufs.push_back(make_buffer(sh, l, es));
        owned.push_back(1);
      } else {
        std::vector<int> chain;  // view nodes from the operand up to an input
        int u = v;
        const bool kernel_output = std::find(s.outputs.begin(), s.outputs.end(), v) != s.outputs.end();
        if (kernel_output) {  // read by a view (a reshape) that is the program's output: contiguous
          bufs.push_back(make_buffer(sh, Layout{}, es));
          owned.push_back(1);
          shapes.push_back(bufs.back().shape);
          strides.push_back(bufs.back().strides);
          addr.push_back(256);
          continue;
        }
        while (input_index(u) < 0) {
          const int p = f.value(u).producer;
          if (p < 0 || op_info(f.nodes()[p].op).kind != OpKind::View) throw Error("operand is neither input, output nor a view of an input");
          chain.push_back(p);
          u = f.nodes()[p].in[0];
        }
        Buffer vb = input_buffer(input_index(u));
        TensorMeta m{f.value(u).dtype, vb.shape, vb.strides};
        for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
          const Node n = bounds_at(f.nodes()[*it], b);  // symbolic pad/window bounds at these sizes
          TensorMeta out;
          int64_t o = 0;
          if (!view_meta(n, m, eval_shape(f.value(n.out[0]).shape, b), out, o)) throw Error("a view strides cannot express");
          vb.offset += o;
          m = out;
        }
        vb.shape = m.shape;
        vb.strides = m.strides;
        bufs.push_back(vb);
        owned.push_back(0);
      }
    }
    shapes.push_back(bufs.back().shape);
    strides.push_back(bufs.back().strides);
    const int64_t a = static_cast<int64_t>(reinterpret_cast<uintptr_t>(bufs.back().mem)) + bufs.back().offset * es;
    addr.push_back(((a % 256) + 256) % 256 ? ((a % 256) + 256) % 256 : 256);
  }
  // Inner reductions over several axes walk the reduced dims in the dominant input's memory
  // order, as the executor passes them (inner_reduction_order).
  {
    std::vector<int> es;
    for (int v : ks.operands) es.push_back(dtype_size(f.value(v).dtype));
    if (s.category == KernelCategory::Inner) ks = analyze_kernel(f, s, inner_reduction_order(s, shapes, strides, es));
  }
  // malloc alignment is 16: make the address classes honest (mod 16 only matters for vectors <= 16 B)
  LaunchFacts facts = kernel_facts(sf, si, ks, shapes, strides, addr, &b);
  DeviceInfo dev = h100_profile();
  if (g_sm_count) dev.sm_count = g_sm_count;
  CompileOptions co;
  co.plan = plan_pin;
  PreparedKernel pk = prepare_kernel(sf, si, ks, facts, dev, KernelCache::global(), co);
  if (!expect_sched.empty() && pk.scheduler != expect_sched) {
    std::cout << "FAIL " << name << ": scheduler " << pk.scheduler << " not " << expect_sched << "\n";
    return false;
  }
  if (!g_expect_param.empty() && pk.plan.params.str().find(g_expect_param) == std::string::npos) {
    std::cout << "FAIL " << name << ": plan " << pk.plan.params.str() << " without '" << g_expect_param << "'\n";
    return false;
  }
  // Inputs: random logical values.
  std::vector<std::vector<int64_t>> in_shapes;
  for (int v : f0.inputs()) in_shapes.push_back(eval_shape(f0.value(v).shape, b));
  auto host = make_random_inputs(f0, in_shapes, 7);
  auto want = run_reference(f0, host);
  for (size_t i = 0; i < f.inputs().size(); ++i) {
    const HostTensor c = host[i].contiguous();
    const int es = dtype_size(c.dtype);
    for (int64_t e = 0; e < c.numel(); ++e) std::memcpy(in_bufs[i].mem + offset_of(in_bufs[i], e) * es, c.data() + e * es, es);
  }
  // What blocks run one after another cannot do: clusters (distributed shared memory), rows split
  // over the grid (a block waits for the others of its row).
  if (pk.plan.params.cluster > 1 || pk.plan.params.row_split > 1) {
    std::cout << "skip " << name << " [" << pk.scheduler << "] " << pk.plan.params.str()
              << ": clusters and split rows wait on other blocks, which run one after another here" << std::endl;
    return true;
  }
  // Source: mock instead of the device runtime, plus a host entry.
  std::string src = pk.source.source;
  // Dynamic shared memory (the inner template's shared-memory prefetch, outer_norm's held rows):
  // a static array of the plan's bytes.
  for (const std::string dyn : {"extern __shared__ __align__(16) unsigned char dyn_smem[];"})
    if (const size_t at = src.find(dyn); at != std::string::npos)
      src.replace(at, dyn.size(), "static __align__(16) unsigned char dyn_smem[" + std::to_string(std::max(pk.plan.params.dyn_smem, 16)) + "];");
  const std::string rt(device_runtime_source());
  src.replace(src.find(rt), rt.size(), "#include \"" SIM_DIR "/mock.h\"\n");
  // The inner template's element-wise shared-memory helpers (inline PTX; mock.h has them).
  if (const size_t at = src.find("template <class T> __device__ __forceinline__ T ld_shared_elem("); at != std::string::npos) {
    const std::string last = "else st_shared<T>(s, v);\n}\n";
    src.erase(at, src.find(last, at) + last.size() - at);
  }
  const int M = static_cast<int>(g_group_gx.size());
  if (M > 0) {
    const KernelSource group = generate_group_kernel(KernelSource{pk.plan.name, src}, M);
    src = group.source + "\nextern \"C\" void sim_entry(const void* blob) { GroupParams g; std::memcpy(&g, blob, sizeof g); " +
          group.name + "(g); }\n";
  } else {
    src += "\nextern \"C\" void sim_entry(const void* blob) { Params p; std::memcpy(&p, blob, sizeof p); " + pk.plan.name + "(p); }\n";
  }
  src += "extern \"C\" long sim_params_words() { return sizeof(Params) / 8; }\n";
  const std::string dir = "/tmp/solder_kernel_sim";
  std::filesystem::create_directories(dir);
  const std::string cu = dir + "/" + name + ".cpp", so = dir + "/" + name + ".so";
  std::ofstream(cu) << src;
  // -fno-gnu-unique: the statics of an inline function (a group kernel's member, where
  // __shared__ is static) would otherwise be unique symbols, which keep the object loaded and
  // bind a later kernel's calls to an earlier one's function of the same name.
  const std::string cmd = "g++ -std=c++20 -O1 -g -fsanitize=address -fno-omit-frame-pointer -fno-gnu-unique -shared -fPIC -w -o " + so + " " + cu;
  if (std::system(cmd.c_str()) != 0) { std::cout << "FAIL " << name << ": compile\n"; return false; }
  void* h = dlopen(so.c_str(), RTLD_NOW);
  if (!h) { std::cout << "FAIL dlopen " << dlerror() << "\n"; return false; }
  auto entry = reinterpret_cast<void (*)(const void*)>(dlsym(h, "sim_entry"));
  std::vector<int64_t> params = pack_params(facts);
  const ParamLayout L{static_cast<int>(ks.operands.size())};
  for (size_t k = 0; k < ks.operands.size(); ++k)
    params[L.ptr(k)] = reinterpret_cast<int64_t>(bufs[k].mem + bufs[k].offset * dtype_size(f.value(ks.operands[k]).dtype));
  Grid g = launch_grid(pk.plan, facts, dev, 4);
  // Scratch (the outer grid form's counters and partials; zeroed, as the executor's).
  const GridScratch gs = grid_scratch(pk.plan, facts, g, pk.source.scratch_per_cell);
  std::vector<int64_t> scratch((std::max<int64_t>(gs.bytes, int64_t(pk.source.scratch_init.size()) * 4) + 7) / 8 + 1, 0);
  std::memcpy(scratch.data(), pk.source.scratch_init.data(), pk.source.scratch_init.size() * 4);
  params[L.scratch()] = reinterpret_cast<int64_t>(scratch.data());
  gridDim = {std::min<unsigned>(g.x, grid_cap), std::min(g.y, g_grid_cap_y), 1};
  blockDim = {g.block, 1, 1};
  // Group members: member 0 is the kernel's own operands; the others share its inputs and write
  // their own outputs (copies of the owned buffers), each with its own scratch.
  std::vector<std::vector<Buffer>> member_bufs;
  std::vector<std::vector<int64_t>> member_scratch;
  if (M > 0) {
    if (reinterpret_cast<long (*)()>(dlsym(h, "sim_params_words"))() != static_cast<long>(params.size()))
      throw Error("sim: the kernel's Params is not the packed parameters' size");
    std::vector<int64_t> blob(M + 1 + M, 0);
    member_scratch.reserve(M);
    for (int m = 0; m < M; ++m) {
      std::vector<Buffer> mb = bufs;
      std::vector<int64_t> mp = params;
      for (size_t k = 0; k < bufs.size(); ++k) {
        if (!owned[k] || m == 0) continue;
        const int es = dtype_size(f.value(ks.operands[k]).dtype);
        mb[k].mem = static_cast<std::byte*>(std::aligned_alloc(256, (std::max<int64_t>(mb[k].size, 1) * es + 255) / 256 * 256));
        std::memset(mb[k].mem, 0x7f, mb[k].size * es);
        mp[L.ptr(k)] = reinterpret_cast<int64_t>(mb[k].mem + mb[k].offset * es);
      }
      member_scratch.push_back(scratch);
      mp[L.scratch()] = reinterpret_cast<int64_t>(member_scratch.back().data());
      member_bufs.push_back(std::move(mb));
      const int64_t gx = std::min<int64_t>(g_group_gx[m], gridDim.x);
      blob[M + 1 + m] = gx;
      blob[m + 1] = blob[m] + gx * gridDim.y;
      blob.insert(blob.end(), mp.begin(), mp.end());
    }
    params = std::move(blob);
    gridDim = {static_cast<unsigned>(params[M]), 1, 1};
  }
  for (unsigned by = 0; by < gridDim.y; ++by)
    for (unsigned bx = 0; bx < gridDim.x; ++bx) {
      std::barrier<> bar(g.block);
      g_barrier = &bar;
      std::vector<std::unique_ptr<std::barrier<>>> warps;
      for (unsigned w = 0; w * 32 < g.block; ++w) {
        warps.push_back(std::make_unique<std::barrier<>>(std::min(32u, g.block - 32 * w)));
        g_warp_barrier[w] = warps.back().get();
      }
      std::vector<std::thread> th;
      for (unsigned t = 0; t < g.block; ++t)
        th.emplace_back([&, t] { threadIdx = {t, 0, 0}; blockIdx = {bx, by, 0}; entry(params.data()); });
      for (auto& x : th) x.join();
    }
  // Compare outputs (every group member's).
  int bad = 0;
  for (int m = 0; m < std::max(M, 1); ++m)
  for (size_t i = 0; i < f.outputs().size(); ++i) {
    const std::vector<Buffer>& bufs_m = M > 0 ? member_bufs[m] : bufs;
    int v = f.outputs()[i];
    size_t k = std::find(ks.operands.begin(), ks.operands.end(), v) - ks.operands.begin();
    // An output that is a reshape of a kernel output (contiguous): the same elements in order.
    while (k == ks.operands.size() && f.value(v).producer >= 0 && f.nodes()[f.value(v).producer].op == Op::Reshape) {
      v = f.nodes()[f.value(v).producer].in[0];
      k = std::find(ks.operands.begin(), ks.operands.end(), v) - ks.operands.begin();
    }
    if (k == ks.operands.size()) throw Error("an output the kernel does not write");
    const HostTensor& w = want[i];
    const int es = dtype_size(w.dtype);
    for (int64_t e = 0; e < w.numel(); ++e) {
      double got = load_element(w.dtype, bufs_m[k].mem + offset_of(bufs_m[k], e) * es);
      double exp = w.get(e);
      // (outer reductions: f32 sums of a thousand rows in another order than the reference's;
      // xred_: sums of 1850 products that cancel to under 1, in an order set by the splits; the
      // tred_ splits: of 41-70 products)
      double tol = w.dtype == DType::F32 ? (name.rfind("xred_", 0) == 0 ? 1e-4 : name.rfind("tred_", 0) == 0 && name.find("_split") != std::string::npos ? 1e-5 : name.rfind("outer_", 0) == 0 || name.rfind("full_", 0) == 0 || name.rfind("keptorder_", 0) == 0 || name.rfind("smm_", 0) == 0 || name.rfind("mbr_", 0) == 0 ? 1e-5 : 1e-6) : w.dtype == DType::BF16 ? 1e-2 : 2e-3;
      if (!(std::fabs(got - exp) <= tol * std::max(1.0, std::fabs(exp))) && !(std::isnan(got) && std::isnan(exp))) {
        if (bad < 5) std::cout << "  " << name << (M > 0 ? " member " + std::to_string(m) : std::string()) << " out " << i << " elem " << e << " got " << got << " want " << exp << "\n";
        ++bad;
      }
    }
  }
  dlclose(h);
  for (size_t k = 0; k < bufs.size(); ++k) if (owned[k]) std::free(bufs[k].mem);
  for (int m = 1; m < M; ++m)
    for (size_t k = 0; k < bufs.size(); ++k) if (owned[k]) std::free(member_bufs[m][k].mem);
  for (auto& bb : in_bufs) std::free(bb.mem);
  std::cout << (bad ? "FAIL " : "ok   ") << name << " [" << pk.scheduler << "] " << pk.plan.params.str() << " grid " << gridDim.x << (gridDim.y > 1 ? "x" + std::to_string(gridDim.y) : std::string())
            << (bad ? " mismatches " + std::to_string(bad) : std::string()) << std::endl;
  return bad == 0;
}

Fusion binary(DType t, Op op, int rank_a, int rank_b) {
  Fusion f("sim");
  const char* names[] = {"A", "B", "C", "D"};
  Shape sa, sb;
  for (int d = 0; d < rank_a; ++d) sa.push_back(Dim::sym(names[d]));
  for (int d = rank_a - rank_b; d < rank_a; ++d) sb.push_back(Dim::sym(names[d]));
  Tensor x = f.input("x", t, sa), y = f.input("y", t, sb);
  f.output(op == Op::Add ? x + y : x * y);
  return f;
}
// where(m, x, 0) * 2 and x itself over [A, B, C], m a bool [A, B, C] (its staged bytes packed by
// byte permutes where it is transposed: `tmask_` cases).
Fusion bool_masked(DType t) {
  Fusion f("sim");
  Shape sh{Dim::sym("A"), Dim::sym("B"), Dim::sym("C")};
  Tensor x = f.input("x", t, sh), m = f.input("m", DType::Bool, sh);
  f.output(where(m, x, constant(f, 0, t)) * 2.0);
  f.output(x + 1.0);
  return f;
}
Fusion unary_copy(DType t, int rank) {
  Fusion f("simcopy");
  const char* names[] = {"A", "B", "C", "D"};
  Shape sa;
  for (int d = 0; d < rank; ++d) sa.push_back(Dim::sym(names[d]));
  Tensor x = f.input("x", t, sa);
  Attrs a; a.dtype = t;
  f.output(f.add(Op::Cast, std::vector<int>{x.id()}, a)[0]);
  return f;
}

Fusion mixed() {
  Fusion f("mixed");
  Tensor x = f.input("x", DType::F16, {Dim::sym("A"), Dim::sym("B")});
  Tensor y = f.input("y", DType::F32, {Dim::sym("A"), Dim::sym("B")});
  Tensor z = f.input("z", DType::BF16, {Dim::sym("A"), Dim::sym("B")});
  f.output(cast(x, DType::F32) * y);
  f.output(cast(cast(z, DType::F32) + y, DType::BF16));
  return f;
}
Fusion mixed_out() {
  Fusion f("mixed_out");
  Tensor x = f.input("x", DType::F32, {Dim::sym("A"), Dim::sym("B")});
  Tensor y = f.input("y", DType::F32, {Dim::sym("A"), Dim::sym("B")});
  f.output(cast(x * y, DType::F16));
  f.output(x + y);
  return f;
}

// x in f32 (a cast where it is narrower).
Tensor f32_of(const Tensor& x) { return x.dtype() == DType::F32 ? x : cast(x, DType::F32); }
// The sweep's [B, M, K] programs' input x.
Tensor bmk_input(Fusion& f, const std::string& name, DType t) {
  return f.input(name, t, {Dim::sym("B"), Dim::sym("M"), Dim::sym("K")});
}

// Inner reductions over several axes of permuted inputs (seed 9 #128, #038): the reduced dims
// walked in the dominant input's memory order (inner_reduction_order). x and r are [B, M, K].
Fusion red_perm(DType t, const std::string& kind) {
  Fusion f("red_perm_" + kind);
  Tensor x = bmk_input(f, "x", t);
  Tensor xf = f32_of(x);
  if (kind == "amin_abs") f.output(min(abs(x), {1, 2}));
  if (kind == "mean_mul") f.output(sqrt(abs(mean(xf * f32_of(bmk_input(f, "y", t)), {1, 2}))));
  if (kind == "var_keep") {
    VarMean vm = var_mean(xf, {1, 2}, 1, true);
    f.output(vm.var);
    f.output(vm.mean);
  }
  if (kind == "sum_02") f.output(sum(xf, {0, 2}));
  if (kind == "norm") {  // (x + r) less its mean over [1, 2]: an element output
    Tensor h = xf + f32_of(bmk_input(f, "r", t));
    Tensor c = h - mean(h, {1, 2}, true);
    f.output(t == DType::F32 ? c : cast(c, t));
  }
  return f;
}
Fusion red_perm4(DType t) {
  Fusion f("red_perm4");
  Tensor x = f.input("x", t, {Dim::sym("A"), Dim::sym("B"), Dim::sym("C"), Dim::sym("D")});
  f.output(sum(t == DType::F32 ? x : cast(x, DType::F32), {1, 2, 3}));
  return f;
}

// Norms over the middle axis of [B, M, K] (seed 9 #047: softmax of a transposed x into a
// contiguous output): with x stored [B, K, M] the rows run along M at unit stride, and an
// output or input stored [B, M, K] is unit-stride along the rows (K), staged through shared
// memory (inner scheduler's stageable_operands).
Fusion norm_mid(DType t, const std::string& kind) {
  Fusion f("norm_mid_" + kind);
  Tensor xf = f32_of(bmk_input(f, "x", t));
  Tensor y;
  if (kind == "softmax") y = softmax(xf, 1);
  if (kind == "ln_res") {  // (x + r) normalized over M, r in another layout
    Tensor h = xf + f32_of(bmk_input(f, "r", t));
    VarMean vm = var_mean(h, {1}, 0, true);
    y = (h - vm.mean) * rsqrt(vm.var + 1e-5);
  }
  f.output(t == DType::F32 ? y : cast(y, t));
  return f;
}

// Full reductions over every dim of x * y (seed 11 #129: var_mean of a product whose inputs
// disagree on their fastest dim): the transpose template's reducing tiles (transpose_reduces),
// or the flat template where the view does not pay. x and y are [B, M, K].
Fusion full_red(DType t, const std::string& kind) {
  Fusion f("full_red_" + kind);
  Tensor x = bmk_input(f, "x", t), y = bmk_input(f, "y", t);
  Tensor p = f32_of(x) * f32_of(y);
  if (kind == "sum") f.output(sum(p, {0, 1, 2}));
  if (kind == "amax") f.output(amax(x * y, {0, 1, 2}));
  if (kind == "var_mean") {
    VarMean vm = var_mean(p, {0, 1, 2}, 1, false);
    f.output(vm.var);
    f.output(vm.mean);
  }
  if (kind == "post") {  // an epilogue after the reductions, into the input dtype
    VarMean vm = var_mean(p, {0, 1, 2}, 0, false);
    Tensor r = sqrt(vm.var) + vm.mean * 2.0;
    f.output(t == DType::F32 ? r : cast(r, t));
    f.output(mean(p, {0, 1, 2}));
  }
  return f;
}

// Partial reductions of x * y over dim 0 with x permuted (seed 14 #136): the transpose
// template's tiles of the kept dims [M, K], looping over B inside each tile. x and y are [B, M, K].
// var_mean through shifted sums per element (seed 16 #007).
Fusion part_red(DType t, const std::string& kind) {
  Fusion f("part_red_" + kind);
  Tensor x = bmk_input(f, "x", t), y = bmk_input(f, "y", t);
  Tensor p = f32_of(x) * f32_of(y);
  if (kind == "sum") f.output(sum(p, {0}, true));
  if (kind == "mean_sqrt") {  // an epilogue after the reduction, into the input dtype
    Tensor r = sqrt(abs(mean(p, {0})));
    f.output(t == DType::F32 ? r : cast(r, t));
  }
  if (kind == "amax_amin") {  // two reductions, one output each
    f.output(amax(x * y, {0}));
    f.output(min(p, {0}, true));
  }
  if (kind == "var_mean") {  // shifted sums per element (seed 16 #007)
    VarMean vm = var_mean(p, {0}, 1, false);
    f.output(vm.var);
    f.output(vm.mean);
  }
  if (kind == "std") {  // population variance, an epilogue into the input dtype
    Tensor r = sqrt(var_mean(p, {0}, 0, true).var);
    f.output(t == DType::F32 ? r : cast(r, t));
  }
  return f;
}

// Partial reductions whose tiles reduce their columns (tile_reduces_cols): x fast along a kept
// dim, y along a reduced one. `dims`: the reduced dims of x * y ([B, M, K] each).
Fusion cross_red(DType t, const std::string& kind, const std::vector<int64_t>& dims) {
  Fusion f("cross_red_" + kind);
  Tensor x = bmk_input(f, "x", t), y = bmk_input(f, "y", t);
  Tensor p = f32_of(x) * f32_of(y);
  if (kind == "sum") f.output(sum(p, dims, true));
  if (kind == "mean_sqrt") {  // an epilogue after the reduction, into the input dtype
    Tensor r = sqrt(abs(mean(p, dims)));
    f.output(t == DType::F32 ? r : cast(r, t));
  }
  if (kind == "amax_amin") {
    f.output(amax(x * y, dims));
    f.output(min(p, dims, true));
  }
  if (kind == "var_mean") {
    VarMean vm = var_mean(p, dims, 1, false);
    f.output(vm.var);
    f.output(vm.mean);
  }
  return f;
}

int main(int argc, char** argv) {
  int fails = 0;
  // An argument: only the cases whose names contain it (`/tmp/kernel_sim outer_`).
  const std::string only = argc > 1 ? argv[1] : "";
  auto run = [&](const std::string& name, auto&&... a) { if (name.find(only) == std::string::npos) return;
    try { if (!run_case(name, a...)) ++fails; } catch (const std::exception& e) {
      // A pinned plan that launch_grid refuses by name (a batch that cannot cover phased rows):
      // the clear error the contract asks for, not a failure.
      if (const std::string w = e.what(); w.find("cannot cover rows") != std::string::npos || w.find("is impossible") != std::string::npos || w.find("are not whole vectors") != std::string::npos) { std::cout << "refused " << name << ": " << e.what() << "\n"; return; }
      std::cout << "FAIL exception " << e.what() << "\n"; ++fails; } };
  const Layout T2{{1, 0}}, C{};
  for (DType t : {DType::F32, DType::F16, DType::BF16}) {
    std::string tn(dtype_name(t));
    // fp8 transposes (byte tiles packed by permutes): a 3-d permute copy, NCHW -> NHWC.
    if (t == DType::F32)
      for (DType b : {DType::F8E4M3, DType::F8E5M2}) {
        const std::string bn(dtype_name(b));
        run("tbytes_copy3_" + bn, unary_copy(b, 3), Bindings{{"A", 3}, {"B", 40}, {"C", 130}}, std::vector<Layout>{Layout{{0, 2, 1}}},
            std::vector<Layout>{C}, 1 << 30, "transpose");
        run("tbytes_nhwc_" + bn, unary_copy(b, 4), Bindings{{"A", 2}, {"B", 28}, {"C", 28}, {"D", 64}}, std::vector<Layout>{Layout{{0, 3, 1, 2}}},
            std::vector<Layout>{C}, 1 << 30, "transpose");
        run("tbytes_copy3_odd_" + bn, unary_copy(b, 3), Bindings{{"A", 2}, {"B", 37}, {"C", 67}}, std::vector<Layout>{Layout{{0, 2, 1}}},
            std::vector<Layout>{C}, 3, "transpose");
      }
    // Bool masks transposed against x (the byte tiles packed by permutes), odd and whole tiles,
    // a misaligned mask, a grid of 3 blocks.
    for (const Bindings& sz : std::vector<Bindings>{{{"A", 2}, {"B", 64}, {"C", 128}}, {{"A", 3}, {"B", 37}, {"C", 130}},
                                                    {{"A", 1}, {"B", 200}, {"C", 72}}})
      for (const Layout& ml : {Layout{{0, 2, 1}}, Layout{{0, 2, 1}, 0, 1}})
        for (int cap : {1 << 30, 3})
          run("tmask_A" + std::to_string(sz.at("A")) + "B" + std::to_string(sz.at("B")) + "C" + std::to_string(sz.at("C")) + "_mis" +
                  std::to_string(ml.mis) + "_" + tn + (cap == 3 ? "_grid3" : ""),
              bool_masked(t), sz, std::vector<Layout>{C, ml}, std::vector<Layout>{C, C}, cap, "transpose");
    run("add_T_" + tn, binary(t, Op::Add, 2, 2), Bindings{{"A", 100}, {"B", 130}}, std::vector<Layout>{T2, C}, std::vector<Layout>{C}, 1 << 30, "transpose");
    run("add_T_small_grid_" + tn, binary(t, Op::Add, 2, 2), Bindings{{"A", 100}, {"B", 130}}, std::vector<Layout>{T2, C}, std::vector<Layout>{C}, 3, "transpose");
    run("add_T_odd_" + tn, binary(t, Op::Add, 2, 2), Bindings{{"A", 37}, {"B", 67}}, std::vector<Layout>{T2, C}, std::vector<Layout>{C}, 1 << 30, "transpose");
    run("add_T_mis_" + tn, binary(t, Op::Add, 2, 2), Bindings{{"A", 64}, {"B", 128}}, std::vector<Layout>{Layout{{1, 0}, 0, 1}, C}, std::vector<Layout>{C}, 1 << 30, "transpose");
    run("add_T_pad_" + tn, binary(t, Op::Add, 2, 2), Bindings{{"A", 64}, {"B", 128}}, std::vector<Layout>{Layout{{1, 0}, 3, 0}, Layout{{}, 5, 0}}, std::vector<Layout>{C}, 1 << 30, "transpose");
    run("out_T_" + tn, binary(t, Op::Add, 2, 2), Bindings{{"A", 96}, {"B", 70}}, std::vector<Layout>{C, C}, std::vector<Layout>{T2}, 1 << 30, "transpose");
    run("out_T_mis_" + tn, binary(t, Op::Add, 2, 2), Bindings{{"A", 96}, {"B", 70}}, std::vector<Layout>{C, C}, std::vector<Layout>{Layout{{1, 0}, 0, 1}}, 1 << 30, "transpose");
    run("bias_T_" + tn, binary(t, Op::Add, 2, 1), Bindings{{"A", 80}, {"B", 100}}, std::vector<Layout>{T2, C}, std::vector<Layout>{C}, 1 << 30, "transpose");
    run("copy3_" + tn, unary_copy(t, 3), Bindings{{"A", 3}, {"B", 40}, {"C", 50}}, std::vector<Layout>{Layout{{0, 2, 1}}}, std::vector<Layout>{C}, 1 << 30, "transpose");
    run("copy3_210_" + tn, unary_copy(t, 3), Bindings{{"A", 20}, {"B", 3}, {"C", 33}}, std::vector<Layout>{Layout{{2, 1, 0}}}, std::vector<Layout>{C}, 1 << 30, "transpose");
    run("nhwc_" + tn, unary_copy(t, 4), Bindings{{"A", 2}, {"B", 5}, {"C", 7}, {"D", 40}}, std::vector<Layout>{Layout{{0, 3, 1, 2}}}, std::vector<Layout>{C}, 1 << 30, "transpose");
    run("size1_" + tn, unary_copy(t, 3), Bindings{{"A", 50}, {"B", 1}, {"C", 33}}, std::vector<Layout>{Layout{{2, 1, 0}}}, std::vector<Layout>{C}, 1 << 30, "transpose");
    run("nhwc_big_" + tn, unary_copy(t, 4), Bindings{{"A", 2}, {"B", 28}, {"C", 28}, {"D", 64}}, std::vector<Layout>{Layout{{0, 3, 1, 2}}}, std::vector<Layout>{C}, 1 << 30, "transpose");
    run("nchw_" + tn, unary_copy(t, 4), Bindings{{"A", 2}, {"B", 64}, {"C", 9}, {"D", 9}}, std::vector<Layout>{Layout{{0, 2, 3, 1}}}, std::vector<Layout>{C}, 1 << 30, "transpose");
    run("two_T_in_" + tn, binary(t, Op::Mul, 2, 2), Bindings{{"A", 70}, {"B", 90}}, std::vector<Layout>{T2, T2}, std::vector<Layout>{C}, 1 << 30, "transpose");
    run("i64_add_T_" + tn, binary(t, Op::Add, 2, 2), Bindings{{"A", 100}, {"B", 130}}, std::vector<Layout>{T2, C}, std::vector<Layout>{C}, 3, "transpose", "index32=0");
    run("i64_out_T_" + tn, binary(t, Op::Add, 2, 2), Bindings{{"A", 96}, {"B", 70}}, std::vector<Layout>{C, C}, std::vector<Layout>{T2}, 1 << 30, "transpose", "index32=0");
    run("i64_nhwc_" + tn, unary_copy(t, 4), Bindings{{"A", 2}, {"B", 5}, {"C", 7}, {"D", 40}}, std::vector<Layout>{Layout{{0, 3, 1, 2}}}, std::vector<Layout>{C}, 1 << 30, "transpose", "index32=0");
    // Rows of more than 32 slots (the swizzle's groups): wide and tall pinned tiles, odd edges.
    run("wide_T_" + tn, binary(t, Op::Add, 2, 2), Bindings{{"A", 100}, {"B", 300}}, std::vector<Layout>{T2, C}, std::vector<Layout>{C}, 1 << 30, "transpose", "tile_cols=128,threads=512,min_blocks=2");
    run("wider_out_T_" + tn, binary(t, Op::Add, 2, 2), Bindings{{"A", 70}, {"B", 530}}, std::vector<Layout>{C, C}, std::vector<Layout>{T2}, 1 << 30, "transpose", "tile_cols=256,threads=512,min_blocks=1");
    run("tall_T_" + tn, binary(t, Op::Add, 2, 2), Bindings{{"A", 300}, {"B", 100}}, std::vector<Layout>{T2, C}, std::vector<Layout>{C}, 1 << 30, "transpose", "tile_rows=128,threads=512,min_blocks=2");
    run("wide_mis_T_" + tn, binary(t, Op::Add, 2, 2), Bindings{{"A", 97}, {"B", 130}}, std::vector<Layout>{Layout{{1, 0}, 0, 1}, Layout{{}, 3, 0}}, std::vector<Layout>{C}, 1 << 30, "transpose", "tile_cols=128,threads=256,min_blocks=2");
    run("conservative_" + tn, binary(t, Op::Add, 2, 2), Bindings{{"A", 100}, {"B", 130}}, std::vector<Layout>{T2, C}, std::vector<Layout>{C}, 1 << 30, "transpose", "vec=1,tile_vec=1,tile_rows=32,min_blocks=1");
  }
  // 2-D pointwise plans with column-only inputs (a bias [H], RoPE's c and s of [M, 128], y [M, K]
  // of x [B, M, K]): the scheduler's plan and a pinned 2-D one, blocks walking one row and
  // several (gridDim.y capped at 2).
  {
    std::ifstream in(SIM_DIR "/../../programs/rope_rotate_half_bf16.fusion");
    std::stringstream text;
    text << in.rdbuf();
    std::vector<std::pair<std::string, Fusion>> progs;
    for (const std::string tn : {"bf16", "f32"}) {
      std::string src = text.str();
      for (size_t at; tn != "bf16" && (at = src.find("bf16[")) != std::string::npos;) src.replace(at, 5, tn + "[");
      progs.push_back({"rope_" + tn, parse_fusion(src)});
    }
    const std::vector<Bindings> rope_sizes{{{"B", 5}, {"M", 7}}, {{"B", 9}, {"M", 3}}};
    for (const std::string pin : {"", "one_row=0,unroll=1,row_unroll=1"})
      for (unsigned cap : {~0u, 2u}) {
        g_grid_cap_y = cap;
        const std::string tag = (pin.empty() ? std::string("default") : pin) + (cap == 2 ? "_gy2" : "");
        for (const auto& [name, f] : progs)
          for (const Bindings& b : rope_sizes)
            run("colvec_" + name + "_B" + std::to_string(b.at("B")) + "M" + std::to_string(b.at("M")) + "_" + tag, f, b,
                std::vector<Layout>{}, std::vector<Layout>{C}, 1 << 30, "pointwise", pin);
        for (DType t : {DType::F32, DType::BF16})
          for (int64_t h : {1000, 37, 5000})
            run("colvec_bias_" + std::string(dtype_name(t)) + "_H" + std::to_string(h) + "_" + tag, mul_add_bias(t),
                Bindings{{"B", 9}, {"H", h}}, std::vector<Layout>{C, C, C}, std::vector<Layout>{C, C}, 1 << 30, "pointwise", pin);
        for (DType t : {DType::F32, DType::F16})
          for (int64_t c : {77, 64})
            run("colvec_mk_" + std::string(dtype_name(t)) + "_C" + std::to_string(c) + "_" + tag, binary(t, Op::Mul, 3, 2),
                Bindings{{"A", 6}, {"B", 5}, {"C", c}}, std::vector<Layout>{C, C}, std::vector<Layout>{C}, 1 << 30, "pointwise", pin);
      }
    g_grid_cap_y = ~0u;
  }
  // The outer_norm template with a General input (seed 7 #068: a layer norm of x + r + pb, x
  // transposed, the residual r along the rows, read element by element; rows too long for the
  // inner scheduler's staged tiles): held and re-read pins without a cluster (not mocked), f16
  // (held in pairs) and f32, r padded and misaligned; and the roles swapped.
  {
    std::ifstream in(SIM_DIR "/../../programs/layer_norm_T_res_pb_f16.fusion");
    std::stringstream text;
    text << in.rdbuf();
    for (const std::string tn : {"f16", "f32"}) {
      std::string src = text.str();
      if (tn == "f32")
        for (size_t at; (at = src.find("f16[")) != std::string::npos;) src.replace(at, 4, "f32[");
      const Fusion f = parse_fusion(src);
      const Bindings sz{{"B", 16}, {"H", 15001}};
      for (const Layout& rl : {C, Layout{{}, 3, 1}})
        for (const std::string pin : {std::string("vec=8,threads=256,rows_per_block=256,unroll=2,persistent_batch=0,min_blocks=1,cluster=1,staged=0"),
                                      std::string("vec=8,threads=1024,rows_per_block=1024,persistent_batch=15,min_blocks=1,cluster=1,staged=0"),
                                      std::string("vec=4,threads=1024,rows_per_block=512,persistent_batch=30,min_blocks=1,cluster=1,staged=0"),
                                      std::string("vec=1,threads=128,rows_per_block=4,unroll=1,persistent_batch=0,min_blocks=1,cluster=1,staged=0")}) {
          if (tn == "f32" && rl.pad == 0) continue;  // keep it quick
          const std::string name = "onorm_general_" + tn + "_pad" + std::to_string(rl.pad) + "_" + pin;
          run(name, f, sz, std::vector<Layout>{C, rl, C}, std::vector<Layout>{C}, 1 << 30, "outer_norm", pin + ",scheduler=outer_norm");
        }
      // The roles swapped: x stored along the rows (General), r transposed (Full).
      run("onorm_general_swapped_" + tn, f, sz, std::vector<Layout>{T2, T2, C}, std::vector<Layout>{C}, 1 << 30, "outer_norm",
          "vec=8,threads=1024,rows_per_block=1024,persistent_batch=15,min_blocks=1,cluster=1,staged=0,scheduler=outer_norm");
    }
  }
  // Held cuts (`onormcut_` cases): the outer_norm template's held rows hold the scaled, rounded
  // and masked input of a softmax over a transposed view (seed 42 #036), not the input: f16 and
  // bf16 (pairs; vec 1 without), f32 (floats); registers, shared memory (smem_rows) and staged
  // outputs; a mask of 0s and 1s (a masked row is all -inf: NaN, as the reference's).
  for (DType t : {DType::F16, DType::BF16, DType::F32})
    for (const std::string pin : {std::string("vec=8,threads=256,rows_per_block=64,persistent_batch=16,min_blocks=1,cluster=1,staged=0"),
                                  std::string("vec=8,threads=256,rows_per_block=64,persistent_batch=16,smem_rows=10,min_blocks=1,cluster=1,staged=0"),
                                  std::string("vec=8,threads=256,rows_per_block=64,persistent_batch=16,min_blocks=1,cluster=1,staged=1"),
                                  std::string("vec=1,threads=128,rows_per_block=64,persistent_batch=16,min_blocks=1,cluster=1,staged=0")}) {
      if (t == DType::F32 && pin.find("smem_rows") != std::string::npos) continue;  // 32-byte vectors: no cp.async size
      run("onormcut_" + std::string(dtype_name(t)) + "_" + pin, solder::testing::softmax_of_transposed(t, false, true),
          Bindings{{"B", 40}, {"H", 1000}}, std::vector<Layout>{C, C}, std::vector<Layout>{C}, 1 << 30, "outer_norm",
          pin + ",scheduler=outer_norm");
    }
  // The outer template (phase-shifted kept columns and the aligned form; block and grid form):
  // exact allocations, misaligned and padded inputs, odd runs.
  g_exact = true;
  for (DType t : {DType::F32, DType::BF16}) {
    const std::string tn(dtype_name(t));
    for (Op op : {Op::Max, Op::Sum, Op::VarMean}) {
      Fusion f("outer_sim");
      Tensor x = f.input("x", t, {Dim::sym("A"), Dim::sym("B"), Dim::sym("C")});
      Tensor xf = t == DType::F32 ? x : cast(x, DType::F32);
      if (op == Op::Max) f.output(cast(mul(cast(max(x, {1}, true), DType::F32), constant(f, 0.5, DType::F32)), t));
      if (op == Op::Sum) f.output(sum(xf, {1}));
      if (op == Op::VarMean) {
        VarMean vm = var_mean(xf, {1}, 1, true);
        f.output(vm.var);
        f.output(vm.mean);
      }
      const std::string on(op_name(op));
      for (const Layout& l : {Layout{}, Layout{{}, 0, 1}, Layout{{}, 3, 0}, Layout{{}, 1, 3}}) {
        const std::string ln = "_pad" + std::to_string(l.pad) + "_mis" + std::to_string(l.mis) + "_" + tn;
        run("outer_" + on + "_odd" + ln, f, Bindings{{"A", 3}, {"B", 21}, {"C", 97}}, std::vector<Layout>{l}, std::vector<Layout>{C}, 1 << 30, "outer");
        run("outer_" + on + "_wide" + ln, f, Bindings{{"A", 2}, {"B", 9}, {"C", 300}}, std::vector<Layout>{l}, std::vector<Layout>{C}, 1 << 30, "outer");
        run("outer_" + on + "_grid" + ln, f, Bindings{{"A", 1}, {"B", 1100}, {"C", 45}}, std::vector<Layout>{l}, std::vector<Layout>{C}, 1 << 30, "outer",
            "grid_split=1,rows_per_block=16,unroll=2");
        // Few reduced rows: more threads along the columns (TX up to 256; a reduction over one
        // row is the inner scheduler's).
        run("outer_" + on + "_few4" + ln, f, Bindings{{"A", 3}, {"B", 4}, {"C", 1000}}, std::vector<Layout>{l}, std::vector<Layout>{C}, 1 << 30, "outer");
        run("outer_" + on + "_few9" + ln, f, Bindings{{"A", 2}, {"B", 9}, {"C", 333}}, std::vector<Layout>{l}, std::vector<Layout>{C}, 1 << 30, "outer");
        // One thread row (no block combine); the column outputs' vector stores where aligned, and
        // element stores into padded or misaligned outputs.
        const std::vector<Layout> outs(op == Op::VarMean ? 2 : 1, l);
        run("outer_" + on + "_few2" + ln, f, Bindings{{"A", 2}, {"B", 2}, {"C", 1000}}, std::vector<Layout>{l}, outs, 1 << 30, "outer",
            "rows_per_block=1");
      }
    }
  }
  // Reductions over dim 0 of an input whose unit-stride dim is a kept dim other than the declared
  // innermost ([A, B, C] laid out [A, C, B] or [C, A, B]): the kept dims walk its memory order,
  // the outer template reads B as vectors and stores the outputs' columns C-major, one by one
  // (`keptorder_` cases; seed 13 #134, #122).
  for (DType t : {DType::F32, DType::F16, DType::BF16}) {
    const std::string tn(dtype_name(t));
    for (Op op : {Op::Max, Op::Sum, Op::VarMean})
      for (bool keep : {false, true}) {
        Fusion f("keptorder_sim");
        Tensor x = f.input("x", t, {Dim::sym("A"), Dim::sym("B"), Dim::sym("C")});
        Tensor xf = t == DType::F32 ? x : cast(x, DType::F32);
        if (op == Op::Max) f.output(cast(mul(cast(max(x, {0}, keep), DType::F32), constant(f, 0.5, DType::F32)), t));
        if (op == Op::Sum) f.output(sum(xf, {0}, keep));
        if (op == Op::VarMean) {
          VarMean vm = var_mean(xf, {0}, 1, keep);
          f.output(vm.var);
          f.output(vm.mean);
        }
        const std::string on = std::string(op_name(op)) + (keep ? "_keep" : "");
        for (const Layout& l : {Layout{{0, 2, 1}}, Layout{{2, 0, 1}}, Layout{{0, 2, 1}, 3, 1}}) {
          const std::string ln = "_" + std::to_string(l.order[0]) + std::to_string(l.order[1]) + std::to_string(l.order[2]) +
                                 "_pad" + std::to_string(l.pad) + "_mis" + std::to_string(l.mis) + "_" + tn;
          run("keptorder_" + on + "_odd" + ln, f, Bindings{{"A", 5}, {"B", 37}, {"C", 45}}, std::vector<Layout>{l}, std::vector<Layout>{C}, 1 << 30, "outer");
          run("keptorder_" + on + "_wide" + ln, f, Bindings{{"A", 64}, {"B", 16}, {"C", 30}}, std::vector<Layout>{l}, std::vector<Layout>{C}, 1 << 30, "outer");
          run("keptorder_" + on + "_tall" + ln, f, Bindings{{"A", 700}, {"B", 8}, {"C", 3}}, std::vector<Layout>{l}, std::vector<Layout>{C}, 1 << 30, "outer");
        }
      }
  }
  // Shift plans (pointwise inputs read at their own phase): exact allocations, so a shifted pair
  // that left a row or a pad's window would be caught; rope halves at every phase, the halves of
  // views at every offset, padded and misaligned rows, size-1 dims.
  for (DType t : {DType::F32, DType::F16, DType::BF16}) {
    const std::string tn(dtype_name(t));
    g_expect_param = t == DType::F32 ? "" : " shift";
    // Halves of 2049, 65, 9, 17 (phase 1), 10 (2), 11 (3), 4 (4), 13 (5), 6 (6), 15 (7).
    for (int64_t k : {4098, 130, 18, 34, 20, 22, 8, 26, 12, 30}) {
      const std::string kn = "shift_rope_K" + std::to_string(k) + "_";
      for (const Layout& l : {Layout{}, Layout{{}, 0, 1}, Layout{{}, 3, 0}, Layout{{}, 1, 3}}) {
        // Padded x: other splits, not asserted; halves of 4 at phase 0 keep vectors of 4 unshifted.
        g_expect_param = t == DType::F32 || l.pad || (k == 8 && l.mis == 0) ? "" : " shift";
        run(kn + "pad" + std::to_string(l.pad) + "_mis" + std::to_string(l.mis) + "_" + tn, rope_halves(t, k),
            Bindings{{"B", 2}, {"M", 4}}, std::vector<Layout>{l, C, C}, std::vector<Layout>{C}, 1 << 30, "pointwise");
      }
    }
    // Symbolic pieces (pads' bounds as kernel parameters) under shift plans: halves of a
    // symbolic head dim at odd lengths.
    g_expect_param = "";
    for (auto [h, k] : std::vector<std::pair<int64_t, int64_t>>{{65, 130}, {65, 131}, {2049, 4098}, {9, 17}})
      for (const Layout& l : {Layout{}, Layout{{}, 0, 1}})
        run("symshift_rope_H" + std::to_string(h) + "_K" + std::to_string(k) + "_mis" + std::to_string(l.mis) + "_" + tn,
            rope_sym(tn, h), Bindings{{"B", 2}, {"M", 40}, {"K", k}}, std::vector<Layout>{l, C, C}, std::vector<Layout>{C}, 1 << 30,
            "pointwise");
    run("shift_rope_size1_" + tn, rope_halves(t, 4098), Bindings{{"B", 1}, {"M", 1}}, std::vector<Layout>{C, C, C},
        std::vector<Layout>{C}, 1 << 30, "pointwise");
    g_expect_param = t == DType::F32 ? "" : " shift";
    for (int64_t off : {1, 2, 3, 5, 7})
      for (int64_t h : {336, 333, 40}) {
        g_expect_param = t == DType::F32 || h % 8 ? "" : " shift";  // odd halves: the output's rows are not aligned
        const std::string hn = "shift_halves_h" + std::to_string(h) + "_off" + std::to_string(off) + "_" + tn;
        run(hn, gated_halves(t, h, off, off % 2 == 1, off >= 3), Bindings{{"B", 4}, {"W", 2 * h + off + 3}},
            std::vector<Layout>{C}, std::vector<Layout>{C}, 1 << 30, "pointwise");
      }
    g_expect_param = "";
    run("shift_halves_one_row_" + tn, gated_halves(t, 40, 1, true, false), Bindings{{"B", 1}, {"W", 84}},
        std::vector<Layout>{C}, std::vector<Layout>{C}, 1 << 30, "pointwise");
    g_expect_param = " shift";
    for (int64_t hcols : {1000, 64, 8})
      run("shift_padded_H" + std::to_string(hcols) + "_" + tn, padded_product(t), Bindings{{"B", 5}, {"H", hcols}},
          std::vector<Layout>{Layout{{}, 3, 0}, Layout{{}, 1, 1}}, std::vector<Layout>{C}, 1 << 30, "pointwise",
          t == DType::F32 ? "vec=4,shift=1" : "");
    // Pinned where every row is aligned (the one-vector branch) and where the pieces are.
    const std::string v = t == DType::F32 ? "vec=4" : "vec=8";
    run("shift_pinned_aligned_" + tn, padded_product(t), Bindings{{"B", 3}, {"H", 1024}}, std::vector<Layout>{C, C},
        std::vector<Layout>{C}, 1 << 30, "pointwise", v + ",unroll=1,one_row=0,col_vec=0,shift=1");
    run("shift_pinned_rope4096_" + tn, rope_halves(t, 4096), Bindings{{"B", 2}, {"M", 2}}, std::vector<Layout>{C, C, C},
        std::vector<Layout>{C}, 1 << 30, "pointwise", v + ",unroll=1,one_row=0,col_vec=0,shift=1");
    g_expect_param = "";
  }
  // 2-D pointwise plans whose rows fit one pass: blocks as wide as the row's vectors (seed 8
  // #012, #142, #127 at small sizes): phased rows of odd lengths with [1, M, 1], [1, M, K],
  // [1, 1, K] and expanded operands, aligned rows with a [B, 1, K] one; a grid of 3 rows at a
  // time (the row loop), misaligned and padded inputs; the pinned 256-thread plans beside.
  for (DType t : {DType::F32, DType::F16, DType::BF16}) {
    const std::string tn(dtype_name(t));
    Fusion fe("fit_expand");
    {
      Tensor x0 = fe.input("x0", t, {Dim(1), Dim::sym("M"), Dim::sym("K")});
      Tensor y0 = fe.input("y0", t, {Dim(1), Dim::sym("M"), Dim(1)});
      fe.output(maximum(expand(x0, {Dim(3), Dim::sym("M"), Dim::sym("K")}), y0) + constant(fe, -3, t));  // B: no input binds it
    }
    Fusion fb("fit_bcast");
    {
      Tensor x = fb.input("x", t, {Dim::sym("B"), Dim::sym("M"), Dim::sym("K")});
      Tensor y0 = fb.input("y0", t, {Dim(1), Dim::sym("M"), Dim(1)});
      Tensor y1 = fb.input("y1", t, {Dim(1), Dim::sym("M"), Dim::sym("K")});
      Tensor y2 = fb.input("y2", t, {Dim(1), Dim(1), Dim::sym("K")});
      fb.output((y0 - x) * y1 + y2);
    }
    Fusion fd("fit_div");
    {
      Tensor x = fd.input("x", t, {Dim::sym("B"), Dim::sym("M"), Dim::sym("K")});
      Tensor y4 = fd.input("y4", t, {Dim::sym("B"), Dim(1), Dim::sym("K")});
      Tensor a = constant(fd, 2, t) - clamp(silu(x * constant(fd, -3, t)), -1.5, 2);
      fd.output(a / (abs(y4) + constant(fd, 1, t)));
    }
    for (int64_t k : {333, 37, 1024, 130}) {
      const std::string kn = "_K" + std::to_string(k) + "_" + tn;
      const Bindings sz{{"B", 3}, {"M", 5}, {"K", k}};
      for (const Layout& l : {Layout{}, Layout{{}, 0, 1}, Layout{{}, 3, 0}}) {
        const std::string ln = "_pad" + std::to_string(l.pad) + "_mis" + std::to_string(l.mis);
        run("fit_expand" + kn + ln, fe, sz, std::vector<Layout>{l, C}, std::vector<Layout>{C}, 1 << 30, "pointwise");
        run("fit_bcast" + kn + ln, fb, sz, std::vector<Layout>{l, C, l, C}, std::vector<Layout>{C}, 3, "pointwise");
        run("fit_div" + kn + ln, fd, sz, std::vector<Layout>{l, l}, std::vector<Layout>{C}, 3, "pointwise");
      }
      run("fit_bcast_pinned256" + kn, fb, sz, std::vector<Layout>{C, C, C, C}, std::vector<Layout>{C}, 3, "pointwise", "threads=256");
      run("fit_div_pinned64" + kn, fd, sz, std::vector<Layout>{C, C}, std::vector<Layout>{C}, 3, "pointwise", "threads=64");
      // The 2-D plan (small R takes one row of R x C) at widths that cover the row in one pass or
      // not, over misaligned inputs too.
      // M = 8: the [1, M, K] operands' rows at the output's phase (M * K a multiple of 8), as at
      // the sweep's sizes, so the phased 2-D plan fits (a [B, 1, K] operand's rows are at K's
      // phase: fit_div has no phased 2-D plan at these K, launch_grid refuses the pin).
      if (k == 1024) continue;
      const Bindings sz8{{"B", 3}, {"M", 8}, {"K", k}};
      for (const char* th : {"64", "96"}) {
        const std::string pin = std::string("one_row=0,threads=") + th, pn = std::string("fit2d_") + th;
        run(pn + "_expand" + kn, fe, sz8, std::vector<Layout>{C, C}, std::vector<Layout>{C}, 5, "pointwise", pin);
        run(pn + "_bcast" + kn, fb, sz8, std::vector<Layout>{C, C, C, C}, std::vector<Layout>{C}, 5, "pointwise", pin);
      }
    }
  }
  // Rows in flight (`rowunroll_`, tests/support/row_unroll_programs.h): pinned 2, 3 and 4 rows per
  // block step over rows of 333, 65 and 7 (phased at both ends; rows of 7 inside two vectors)
  // and of several passes (1100 and 3000: a block per pass),
  // #053's [1, M, K] mask (full/dims) and [B, M, 1] operand, #142's [1, M, 1], [1, M, K] and [K]
  // (element by element in phased rows), aligned rows with a weight in vectors; R not a multiple
  // of the rows, size-1 dims, padded and misaligned inputs; grids of 1 and 2 blocks along the
  // rows, so blocks walk several steps.
  for (DType t : {DType::F16, DType::F32, DType::BF16}) {
    const std::string tn(dtype_name(t));
    for (int64_t k : {333, 65, 7, 1100})
      // (M * K a multiple of 8, or B = 1: the [1, M, K] operands' rows at x's phase, as at the
      // sweep's sizes, so the phased 2-D plan fits; padded and misaligned layouts apply to the
      // output too, for the same reason.)
      for (const Bindings& sz : std::vector<Bindings>{{{"B", 3}, {"M", 8}, {"K", k}}, {{"B", 1}, {"M", 9}, {"K", k}},
                                                      {{"B", 5}, {"M", 8}, {"K", k}}})
        for (int n : {2, 3, 4}) {
          if (t == DType::BF16 && n != 3) continue;
          const std::string pin = "row_unroll=" + std::to_string(n) + ",one_row=0" + (n == 2 ? ",index32=0" : "");
          const std::string zn = "_B" + std::to_string(sz.at("B")) + "M" + std::to_string(sz.at("M")) + "K" + std::to_string(k) + "_" +
                                 tn + "_" + pin;
          for (const Layout& l : {Layout{}, Layout{{}, 3, 0}, Layout{{}, 0, 1}}) {
            if ((l.pad || l.mis) && (n != 3 || sz.at("B") == 1)) continue;
            const std::string ln = "_pad" + std::to_string(l.pad) + "_mis" + std::to_string(l.mis);
            g_expect_param = " row_unroll=" + std::to_string(n);
            for (unsigned cap : {~0u, 2u, 1u}) {
              if (cap != ~0u && (l.pad || l.mis || n == 2)) continue;
              g_grid_cap_y = cap;
              const std::string cn = cap == ~0u ? "" : "_gy" + std::to_string(cap);
              run("rowunroll_where" + zn + ln + cn, where_clamp_silu_add(t), sz, std::vector<Layout>{l, l, C}, std::vector<Layout>{l}, 1 << 30,
                  "pointwise", pin);
              run("rowunroll_bcast" + zn + ln + cn, sub_mul_add_bcast(t), sz, std::vector<Layout>{l, C, l, C}, std::vector<Layout>{l}, 1 << 30,
                  "pointwise", pin);
            }
            g_grid_cap_y = ~0u;
          }
        }
    // One row of R x C (one_row): vectors across one row end (rows of at least a vector: each
    // element picks its row's part and row-constant value) and across several (rows shorter
    // than a vector), beside full/dims and row operands; a grid of 3 blocks strides. M = 8: the
    // [1, M, K] operands' vectors lie in runs of them at the flat index (full/dims/seg), so
    // every vector, across a row end or not, takes the vector path.
    g_expect_param = " one_row";
    for (int64_t k : {333, 65, 9, 8, 5, 3, 1})
      for (const Bindings& sz : std::vector<Bindings>{{{"B", 3}, {"M", 7}, {"K", k}}, {{"B", 2}, {"M", 9}, {"K", k}}, {{"B", 3}, {"M", 8}, {"K", k}}})
        for (int cap : {1 << 30, 3}) {
          const std::string on = "onerow_B" + std::to_string(sz.at("B")) + "M" + std::to_string(sz.at("M")) + "K" + std::to_string(k) + "_" +
                                 tn + (cap == 3 ? "_grid3" : "");
          run(on + "_where", where_clamp_silu_add(t), sz, std::vector<Layout>{C, C, C}, std::vector<Layout>{C}, cap, "pointwise", "one_row=1");
          run(on + "_bcast", sub_mul_add_bcast(t), sz, std::vector<Layout>{C, C, C, C}, std::vector<Layout>{C}, cap, "pointwise", "one_row=1");
          run(on + "_div", div_rows(t), sz, std::vector<Layout>{C, C, C, C, C}, std::vector<Layout>{C}, cap, "pointwise", "one_row=1");
          // Interleaved (a thread's elements 32 apart): rows not vec-aligned only (refused else).
          const std::string il = "one_row=1,col_vec=1,interleave=1";
          run(on + "_where_il", where_clamp_silu_add(t), sz, std::vector<Layout>{C, C, C}, std::vector<Layout>{C}, cap, "pointwise", il);
          run(on + "_bcast_il", sub_mul_add_bcast(t), sz, std::vector<Layout>{C, C, C, C}, std::vector<Layout>{C}, cap, "pointwise", il);
        }
    // One row of R x C over operands at another row stride (rows by dim): the halves of a gated
    // input in wide rows (aligned offsets: no shift), products of inputs and outputs with padded
    // rows (aligned and odd pads); a grid of 3 strides.
    for (int cap : {1 << 30, 3}) {
      const std::string gn = cap == 3 ? "_grid3" : "";
      g_expect_param = " one_row";
      for (int64_t h : {64, 48, 40, 24, 8})
        for (int64_t off : {0, 8, 16}) {
          const std::string hn = "onerow_strided_halves_h" + std::to_string(h) + "_off" + std::to_string(off) + "_" + tn + gn;
          run(hn, gated_halves(t, h, off, off == 8, off == 16), Bindings{{"B", 37}, {"W", 2 * h + off + 8}},
              std::vector<Layout>{C}, std::vector<Layout>{C}, cap, "pointwise");
        }
      g_expect_param = "";
      for (int64_t hcols : {64, 40, 8, 33})
        for (const Layout& l : {Layout{{}, 8, 0}, Layout{{}, 16, 0}, Layout{{}, 3, 0}, Layout{{}, 8, 1}}) {
          const std::string pn = "onerow_strided_padded_H" + std::to_string(hcols) + "_pad" + std::to_string(l.pad) + "_mis" +
                                 std::to_string(l.mis) + "_" + tn + gn;
          run(pn, padded_product(t), Bindings{{"B", 29}, {"H", hcols}}, std::vector<Layout>{l, C}, std::vector<Layout>{l}, cap,
              "pointwise");
        }
    }
    g_expect_param = "";
    // (index32=0: the 64-bit rows and row offsets, as over tensors past 2^31 elements.)
    // (vec=1: the elements loaded ahead as vectors of one.)
    for (int n : {2, 3, 4})
      for (const std::string vec : {"", ",vec=1"})
        for (const Bindings& sz : std::vector<Bindings>{{{"B", 7}, {"H", 512}}, {{"B", 10}, {"H", 40}}, {{"B", 5}, {"H", 1}}, {{"B", 5}, {"H", 3000}}}) {
          const std::string pin = "row_unroll=" + std::to_string(n) + ",one_row=0" + (n == 3 ? ",index32=0" : "") + vec;
          g_expect_param = sz.at("H") == 1 ? "" : " row_unroll=" + std::to_string(n);
          for (unsigned cap : {~0u, 2u}) {
            g_grid_cap_y = cap;
            run("rowunroll_bias_B" + std::to_string(sz.at("B")) + "H" + std::to_string(sz.at("H")) + "_" + tn + "_" + pin +
                    (cap == 2 ? "_gy2" : ""),
                mul_add_bias(t), sz, std::vector<Layout>{C, C, C}, std::vector<Layout>{C, C}, 1 << 30, "pointwise", pin);
          }
          g_grid_cap_y = ~0u;
        }
    g_expect_param = "";
  }
  // The inner template's norms (rows reduced along their memory-innermost dim): layer norm (W1),
  // rms norm and softmax (W5) at small odd sizes, f32 and f16/bf16 (held in pairs), pinned plans
  // (one row per block and several, rows held in registers, the register prefetch with and
  // without tickets, the looped row).
  {
    auto load = [](const std::string& file, const std::string& from, const std::string& to) {
      std::ifstream in(SIM_DIR "/../../../examples/" + file + ".fusion");
      std::stringstream text;
      text << in.rdbuf();
      std::string src = text.str();
      if (!from.empty())
        for (size_t at; (at = src.find(from)) != std::string::npos;) src.replace(at, from.size(), to);
      return parse_fusion(src);
    };
    struct Prog { std::string name; Fusion f; };
    std::vector<Prog> progs;
    progs.push_back({"ln_f32", load("w1_layer_norm_fused_f32", "", "")});
    progs.push_back({"ln_f16", load("w1_layer_norm_fused", "", "")});
    progs.push_back({"ln_bf16", load("w1_layer_norm_fused_bf16", "", "")});
    progs.push_back({"rms_bf16", load("w5_rms_norm_bf16", "", "")});
    progs.push_back({"rms_f16", load("w5_rms_norm_bf16", "bf16", "f16")});
    progs.push_back({"rms_f32", load("w5_rms_norm_bf16", "bf16", "f32")});
    progs.push_back({"softmax_bf16", load("w5_softmax_bf16", "", "")});
    progs.push_back({"softmax_f32", load("w5_softmax_bf16", "bf16", "f32")});
    // B rows over a grid of at most `cap` blocks, so blocks walk several rows (tickets: the
    // kernel takes rows by ticket only where R >= 6 x grid x RPB, hence 13 and 25 rows).
    struct Pin { std::string pin; int64_t rows; int cap; };
    const std::vector<Pin> pins = {
        {"", 5, 1 << 30},
        {"threads_per_row=32,rows_per_block=1,prefetch=0", 5, 2},
        {"threads_per_row=32,rows_per_block=4,prefetch=0", 5, 1},
        {"threads_per_row=8,rows_per_block=8,prefetch=0", 5, 1},
        {"threads_per_row=64,rows_per_block=2,prefetch=0", 5, 2},
        {"threads_per_row=128,rows_per_block=1,prefetch=0", 5, 2},
        {"threads_per_row=32,rows_per_block=1,prefetch,tickets=0", 5, 2},
        {"threads_per_row=16,rows_per_block=4,prefetch,tickets=0", 5, 1},
        {"threads_per_row=64,rows_per_block=2,prefetch,tickets=0", 5, 2},
        {"threads_per_row=64,rows_per_block=1,prefetch,tickets", 13, 2},
        {"threads_per_row=128,rows_per_block=2,prefetch,tickets", 25, 2},
        {"threads_per_row=256,rows_per_block=1,prefetch,tickets", 7, 1},
        {"threads_per_row=64,rows_per_block=1,prefetch=smem:65536,resident=0", 5, 2},
        {"threads_per_row=32,rows_per_block=2,prefetch=smem:65536,resident=0,ldg_weights", 5, 2},
        {"threads_per_row=64,rows_per_block=1,prefetch=smem:65536,resident=0,weight_ring=2", 5, 2},
        {"threads_per_row=64,rows_per_block=1,prefetch,tickets=0,resident=1", 5, 2},
        {"threads_per_row=32,rows_per_block=2,prefetch=0,recompute", 5, 2},
        {"vec=4,col_vec=1,threads_per_row=16,rows_per_block=2,prefetch=0,resident=0", 5, 2},
        {"vec=4,col_vec=1,threads_per_row=64,rows_per_block=2,prefetch,tickets=0,resident=0", 5, 2},
        {"threads_per_row=32,looped,prefetch=0,tickets=0,resident=0,col_vec=0,recompute=0", 5, 2},
        {"threads_per_row=64,rows_per_block=2,looped,prefetch=0,tickets=0,resident=0,col_vec=0,recompute=0", 5, 2},
    };
    for (const Prog& pr : progs)
      for (int64_t h : {37, 130, 333, 1001, 4098})
        for (const Pin& pin : pins) {
          // The scheduler's plan only: registers, clusters; rows of 333, half a warp each.
          if ((h == 4098 || h == 333) && !pin.pin.empty()) continue;
          // Phased rows of 130 at vec 4: no batch leaves the last one alone partial (launch_grid refuses it).
          if (h == 130 && pin.pin.find("col_vec=1,threads_per_row=16") != std::string::npos) continue;
          // Softmax has no weights to keep resident.
          if (pr.name.rfind("softmax", 0) == 0 && pin.pin.find("resident=1") != std::string::npos) continue;
          run("inner_norm_" + pr.name + "_H" + std::to_string(h) + "_B" + std::to_string(pin.rows) + "_" +
                  (pin.pin.empty() ? "default" : pin.pin),
              pr.f, Bindings{{"B", pin.rows}, {"H", h}}, std::vector<Layout>{}, std::vector<Layout>{C}, pin.cap, "inner", pin.pin);
        }
    // Rows of 333 over a one-SM profile (80 rows, more than its warps: the scheduler's own plan,
    // 16-bit rows at half a warp, 3 vectors a thread), and pinned half-warp rows with and
    // without the prefetch.
    g_sm_count = 1;
    for (const Prog& pr : progs)
      for (const Pin& pin : std::vector<Pin>{{"", 80, 1 << 30},
                                             {"threads_per_row=16,rows_per_block=4,prefetch,tickets=0", 13, 2},
                                             {"threads_per_row=16,rows_per_block=16,prefetch=0", 40, 1}})
        run("inner_norm_" + pr.name + "_H333_B" + std::to_string(pin.rows) + "_1sm_" + (pin.pin.empty() ? "default" : pin.pin),
            pr.f, Bindings{{"B", pin.rows}, {"H", 333}}, std::vector<Layout>{}, std::vector<Layout>{C}, pin.cap, "inner", pin.pin);
    g_sm_count = 0;
    // The same kernels stacked as a group kernel of three members (horizontal fusion), each
    // member over fewer blocks than its rows need (the stacked launch's shared wave): 2, 1 and 3
    // blocks walking 5, 13 and 25 rows, by ticket where rows are many for the blocks.
    g_group_gx = {2, 1, 3};
    for (const Prog& pr : progs)
      for (int64_t h : {130, 1001})
        for (const Pin& pin : std::vector<Pin>{{"", 5, 1 << 30},
                                               {"threads_per_row=32,rows_per_block=1,prefetch,tickets=0", 5, 1 << 30},
                                               {"threads_per_row=64,rows_per_block=1,prefetch,tickets", 13, 1 << 30},
                                               {"threads_per_row=128,rows_per_block=2,prefetch,tickets", 25, 1 << 30}})
          run("group3_" + pr.name + "_H" + std::to_string(h) + "_B" + std::to_string(pin.rows) + "_" + (pin.pin.empty() ? "default" : pin.pin),
              pr.f, Bindings{{"B", pin.rows}, {"H", h}}, std::vector<Layout>{}, std::vector<Layout>{C}, pin.cap, "inner", pin.pin);
    // W3's member (layer norm + tanh of one of 16 slices of x [B, 16, 256]) at W3's plan.
    {
      Fusion f("w3_member");
      Tensor x = f.input("x", DType::F32, {Dim::sym("B"), 16, 256});
      f.output(tanh(layer_norm(select(x, 1, 5), 1, f.input("w", DType::F32, {256}), f.input("b", DType::F32, {256}))));
      for (int64_t rows : {50, 203})
        for (const std::string pin : {"", "vec=4,threads_per_row=32,rows_per_block=8,persistent_batch=2,prefetch"})
          run("group3_w3_member_B" + std::to_string(rows) + "_" + (pin.empty() ? "default" : pin), f, Bindings{{"B", rows}},
              std::vector<Layout>{}, std::vector<Layout>{C}, 1 << 30, "inner", pin);
    }
    g_group_gx.clear();
  }
  // Norms over the middle axis with staged outputs (x transposed, output contiguous) and staged
  // inputs (x contiguous beside a transposed one): odd sizes, rows of a block across K's end
  // (K = 17), size-1 dims, misaligned.
  for (DType t : {DType::F32, DType::BF16}) {
    const std::string tn(dtype_name(t));
    const Layout Tm{{0, 2, 1}}, Tmis{{0, 2, 1}, 0, 1}, Cmis{{}, 0, 1};
    for (const Bindings& sz : std::vector<Bindings>{{{"B", 3}, {"M", 37}, {"K", 16}}, {{"B", 2}, {"M", 130}, {"K", 17}},
                                                    {{"B", 1}, {"M", 33}, {"K", 40}}, {{"B", 5}, {"M", 7}, {"K", 1}}}) {
      const std::string zn = "_B" + std::to_string(sz.at("B")) + "M" + std::to_string(sz.at("M")) + "K" + std::to_string(sz.at("K")) + "_" + tn;
      run("normmid_softmax_outC" + zn, norm_mid(t, "softmax"), sz, std::vector<Layout>{Tm}, std::vector<Layout>{C}, 1 << 30, "");
      run("normmid_softmax_outC_mis" + zn, norm_mid(t, "softmax"), sz, std::vector<Layout>{Tmis}, std::vector<Layout>{Cmis}, 1 << 30, "");
      run("normmid_softmax_small_grid" + zn, norm_mid(t, "softmax"), sz, std::vector<Layout>{Tm}, std::vector<Layout>{C}, 2, "");
      run("normmid_ln_res_TC_outC" + zn, norm_mid(t, "ln_res"), sz, std::vector<Layout>{Tm, C}, std::vector<Layout>{C}, 1 << 30, "");
      run("normmid_ln_res_TC_outT" + zn, norm_mid(t, "ln_res"), sz, std::vector<Layout>{Tm, C}, std::vector<Layout>{Tm}, 1 << 30, "");
      run("normmid_ln_res_TT_outC_mis" + zn, norm_mid(t, "ln_res"), sz, std::vector<Layout>{Tmis, Tm}, std::vector<Layout>{Cmis}, 1 << 30, "");
    }
  }
  // Inner reductions over several axes of permuted inputs: x stored [K, B, M] (the sweep's perm
  // layout), misaligned, with size-1 dims; streamed split rows pinned; Welford with keepdim; a
  // norm's element output contiguous and permuted; four dims. Exact allocations.
  for (DType t : {DType::F32, DType::BF16}) {
    const std::string tn(dtype_name(t));
    const Layout P{{2, 0, 1}}, Pmis{{2, 0, 1}, 0, 1};
    for (const Bindings& sz : std::vector<Bindings>{{{"B", 3}, {"M", 8}, {"K", 7}}, {{"B", 5}, {"M", 5}, {"K", 9}},
                                                    {{"B", 1}, {"M", 16}, {"K", 3}}, {{"B", 2}, {"M", 1}, {"K", 33}}}) {
      // Size-1 reduced dims leave one reduced dim (M = 1: a kept dim innermost, the outer schedulers').
      const std::string sched = sz.at("M") == 1 ? "" : "inner";
      const std::string zn = "_B" + std::to_string(sz.at("B")) + "M" + std::to_string(sz.at("M")) + "K" + std::to_string(sz.at("K")) + "_" + tn;
      for (const Layout& l : {P, Pmis}) {
        const std::string ln = l.mis ? "_mis" : "";
        run("redperm_amin" + zn + ln, red_perm(t, "amin_abs"), sz, std::vector<Layout>{l}, std::vector<Layout>{C}, 1 << 30, sched);
        run("redperm_mean_mul_pp" + zn + ln, red_perm(t, "mean_mul"), sz, std::vector<Layout>{l, P}, std::vector<Layout>{C}, 1 << 30, sched);
        if (!sched.empty())  // (M = 1: the outer template's shared-memory staging, not mocked)
          run("redperm_mean_mul_pc" + zn + ln, red_perm(t, "mean_mul"), sz, std::vector<Layout>{l, C}, std::vector<Layout>{C}, 1 << 30, sched);
        run("redperm_var_keep" + zn + ln, red_perm(t, "var_keep"), sz, std::vector<Layout>{l}, std::vector<Layout>{C, C}, 1 << 30, sched);
        run("redperm_norm_out_c" + zn + ln, red_perm(t, "norm"), sz, std::vector<Layout>{l, P}, std::vector<Layout>{C}, 1 << 30, sched);
        run("redperm_norm_out_p" + zn + ln, red_perm(t, "norm"), sz, std::vector<Layout>{l, P}, std::vector<Layout>{P}, 1 << 30, sched);
      }
      // A looped row (the few-rows plans stream it so; rows split over blocks wait on each other,
      // which blocks run one after another here cannot: the GPU tier runs those).
      if (sched.empty()) continue;
      const std::string pin = "threads=32,threads_per_row=32,rows_per_block=1,looped=1,row_split=1,min_blocks=1,prefetch=0";
      run("redperm_amin_looped" + zn, red_perm(t, "amin_abs"), sz, std::vector<Layout>{P}, std::vector<Layout>{C}, 1 << 30, "inner", pin);
      run("redperm_mean_mul_pp_looped" + zn, red_perm(t, "mean_mul"), sz, std::vector<Layout>{P, P}, std::vector<Layout>{C}, 1 << 30, "inner", pin);
      run("redperm_var_keep_looped" + zn, red_perm(t, "var_keep"), sz, std::vector<Layout>{P}, std::vector<Layout>{C, C}, 1 << 30, "inner", pin);
    }
    // Reductions over dims apart in memory (seed 31 #109: amin over [0, 2] of a contiguous
    // [B, M, K] x*x, keepdim): General x, runs of K (odd: one element at a time through goff's
    // multiply-high divisions; a multiple of the vector: general/seg).
    for (const Bindings& sz : std::vector<Bindings>{{{"B", 3}, {"M", 5}, {"K", 33}}, {{"B", 4}, {"M", 3}, {"K", 16}},
                                                    {{"B", 7}, {"M", 2}, {"K", 1}}, {{"B", 2}, {"M", 4}, {"K", 333}}}) {
      const std::string zn = "_B" + std::to_string(sz.at("B")) + "M" + std::to_string(sz.at("M")) + "K" + std::to_string(sz.at("K")) + "_" + tn;
      Fusion f02("red02_amin_sq");
      Tensor x02 = bmk_input(f02, "x", t);
      f02.output(min(x02 * x02, {0, 2}, true));
      run("red02_amin_sq" + zn, f02, sz, std::vector<Layout>{C}, std::vector<Layout>{C}, 1 << 30, "");
      if (sz.at("K") > 1)  // (K = 1: the kept dim innermost, outer)
        run("red02_amin_sq_looped" + zn, f02, sz, std::vector<Layout>{C}, std::vector<Layout>{C}, 1 << 30, "inner",
          "threads=32,threads_per_row=32,rows_per_block=1,looped=1,row_split=1,min_blocks=1,prefetch=0");
    }
    // Four dims: x [A, B, C, D] stored [D, A, C, B], reduced over [1, 2, 3].
    run("redperm4_" + tn, red_perm4(t), Bindings{{"A", 3}, {"B", 8}, {"C", 3}, {"D", 5}}, std::vector<Layout>{Layout{{3, 0, 2, 1}}},
        std::vector<Layout>{C}, 1 << 30, "inner");
  }
  // Inner shift plans (seed 9 #144, seed 10 #067: norms of a column slice x = big[:, :H], rows
  // at an odd stride, so every row at another phase): each Full input read at its own phase, the
  // output and the weights with the plan's vectors. Exact allocations, so a pair that left the
  // tensor at the first or last row's ends would be caught; slices at every phase (pad 1, 3 and
  // the sweep's [:, 1:1 + H] of rows of H + 3), a misaligned base, one row, rows shorter than a
  // warp's vectors and longer, the scheduler's plan and pinned ones (several rows per block, the
  // register prefetch with and without tickets, no prefetch, the old one-element plan).
  {
    auto text = [](const std::string& file) {
      std::ifstream in(SIM_DIR "/../../../examples/" + file + ".fusion");
      std::stringstream t;
      t << in.rdbuf();
      return t.str();
    };
    auto retype = [](std::string src, const std::string& from, const std::string& to) {
      for (size_t at; (at = src.find(from)) != std::string::npos;) src.replace(at, from.size(), to);
      return src;
    };
    const std::string rms_now = "fusion rms_now {\n  input x: bf16[B, H]\n  t1 = cast(x, dtype=f32)\n  t2 = mul(t1, t1)\n"
                                "  t3 = mean(t2, axes=[1], keepdim=true)\n  t4 = constant(value=1e-06, dtype=f32)\n  t5 = add(t3, t4)\n"
                                "  t6 = rsqrt(t5)\n  t7 = mul(t1, t6)\n  t8 = cast(t7, dtype=bf16)\n  output t8\n}\n";
    const std::string ln_res = "fusion ln_res {\n  input x: bf16[B, H]\n  input r: bf16[B, H]\n  input w: bf16[H]\n  input bb: bf16[H]\n"
                               "  t1 = cast(x, dtype=f32)\n  t2 = cast(r, dtype=f32)\n  t3 = add(t1, t2)\n"
                               "  t4, t5 = var_mean(t3, axes=[1], correction=0, keepdim=true)\n  t6 = constant(value=1e-05, dtype=f32)\n"
                               "  t7 = add(t4, t6)\n  t8 = rsqrt(t7)\n  t9 = sub(t3, t5)\n  t10 = mul(t9, t8)\n  t11 = cast(w, dtype=f32)\n"
                               "  t12 = mul(t10, t11)\n  t13 = cast(bb, dtype=f32)\n  t14 = add(t12, t13)\n  t15 = cast(t14, dtype=bf16)\n"
                               "  output t15\n}\n";
    struct SProg { std::string name; Fusion f; int x; int n_in; };  // x: the sliced input's index
    std::vector<SProg> progs;
    progs.push_back({"rms_now_bf16", parse_fusion(rms_now), 0, 1});
    progs.push_back({"rms_now_f16", parse_fusion(retype(rms_now, "bf16", "f16")), 0, 1});
    progs.push_back({"rms_now_f32", parse_fusion(retype(rms_now, "bf16", "f32")), 0, 1});
    progs.push_back({"rms_w_bf16", parse_fusion(text("w5_rms_norm_bf16")), 0, 2});
    progs.push_back({"rms_w_f32", parse_fusion(retype(text("w5_rms_norm_bf16"), "bf16", "f32")), 0, 2});
    progs.push_back({"ln_w1_f32", parse_fusion(text("w1_layer_norm_fused_f32")), 1, 5});
    progs.push_back({"ln_w1_bf16", parse_fusion(text("w1_layer_norm_fused_bf16")), 1, 5});
    progs.push_back({"ln_res_bf16", parse_fusion(ln_res), 0, 4});
    progs.push_back({"ln_res_f32", parse_fusion(retype(ln_res, "bf16", "f32")), 0, 4});
    progs.push_back({"softmax_bf16", parse_fusion(text("w5_softmax_bf16")), 0, 1});
    progs.push_back({"softmax_f16", parse_fusion(retype(text("w5_softmax_bf16"), "bf16", "f16")), 0, 1});
    progs.push_back({"softmax_f32", parse_fusion(retype(text("w5_softmax_bf16"), "bf16", "f32")), 0, 1});
    // where(m, x, 0) over 16-bit x: the selected bits (codegen's raw where), a bool mask along H.
    const std::string masked = "fusion masked_bf16 {\n  input x: bf16[B, H]\n  input m: bool[H]\n"
                               "  t2 = constant(value=0, dtype=bf16)\n  t3 = where(m, x, t2)\n  t4 = cast(t3, dtype=f32)\n"
                               "  t5 = max(t4, axes=[1], keepdim=true)\n  t6 = sub(t4, t5)\n  t7 = exp(t6)\n"
                               "  t8 = sum(t7, axes=[1], keepdim=true)\n  t9 = div(t7, t8)\n  t10 = cast(t9, dtype=bf16)\n"
                               "  output t10\n}\n";
    progs.push_back({"masked_bf16", parse_fusion(masked), 0, 2});
    progs.push_back({"masked_f16", parse_fusion(retype(masked, "bf16", "f16")), 0, 2});
    struct SPin { std::string pin; int64_t rows; int cap; };
    const std::vector<SPin> pins = {
        {"", 5, 1 << 30},
        {"", 1, 1 << 30},
        {"threads_per_row=32,rows_per_block=2,prefetch=0", 5, 2},
        {"threads_per_row=8,rows_per_block=8,prefetch=0", 5, 1},
        {"threads_per_row=32,rows_per_block=1,prefetch,tickets=0", 5, 2},
        {"threads_per_row=16,rows_per_block=4,prefetch,tickets=0", 7, 1},
        {"threads_per_row=64,rows_per_block=1,prefetch,tickets", 13, 2},
        {"vec=1,shift=0,threads_per_row=32,rows_per_block=2,prefetch=0,resident=0", 5, 2},
    };
    for (const SProg& pr : progs)
      for (int64_t h : {8, 40, 1000, 4096})
        for (const Layout& xl : {Layout{{}, 1, 0}, Layout{{}, 3, 1}, Layout{{}, 1, 3}, Layout{{}, 5, 2}})
          for (const SPin& pin : pins) {
            // Pinned plans at two of the layouts and two row lengths; the scheduler's at all.
            if (!pin.pin.empty() && (h == 4096 || h == 8 || xl.pad == 5 || xl.mis == 3)) continue;
            const int es = dtype_size(pr.f.value(pr.f.inputs()[pr.x]).dtype);
            // Vectors of 16 bytes at these H; the pinned one-element plan keeps none. One row: x's
            // row dim has size 1, so x is read as a weight is (Col, no shift), and so is the output.
            // Few rows of 4096 may split over blocks (a cluster: skipped here), which keep aligned vectors.
            g_expect_param = pin.pin.find("shift=0") != std::string::npos || h % (16 / es) || pin.rows == 1 || h == 4096 ? "" : " shift";
            std::vector<Layout> ins(pr.n_in, C);
            ins[pr.x] = xl;
            // ln_res: the residual sliced too at another phase (pad 1, base 1 element in).
            if (pr.name.rfind("ln_res", 0) == 0) ins[1] = Layout{{}, 1, 1};
            run("innershift_" + pr.name + "_H" + std::to_string(h) + "_pad" + std::to_string(xl.pad) + "_mis" +
                    std::to_string(xl.mis) + "_B" + std::to_string(pin.rows) + "_" + (pin.pin.empty() ? "default" : pin.pin),
                pr.f, Bindings{{"B", pin.rows}, {"H", h}}, ins, std::vector<Layout>{C}, pin.cap, "inner", pin.pin);
          }
    g_expect_param = "";
  }
  g_exact = false;
  {
    // Full reductions of x * y with x permuted: staged tiles (both tile dims of 16 or more),
    // odd sizes, size-1 dims, misaligned and padded inputs, a grid smaller than the tiles.
    struct FCase { std::string name; Bindings sz; Layout xl, yl; int cap; std::string sched; };
    const std::vector<FCase> fcases{
        {"021_3x17x33", {{"B", 3}, {"M", 17}, {"K", 33}}, Layout{{0, 2, 1}}, Layout{}, 1 << 30, "transpose"},
        {"021_2x64x65", {{"B", 2}, {"M", 64}, {"K", 65}}, Layout{{0, 2, 1}}, Layout{}, 1 << 30, "transpose"},
        {"021_2x64x65_cap3", {{"B", 2}, {"M", 64}, {"K", 65}}, Layout{{0, 2, 1}}, Layout{}, 3, "transpose"},
        {"021_2x64x65_mis", {{"B", 2}, {"M", 64}, {"K", 65}}, Layout{{0, 2, 1}, 0, 1}, Layout{{}, 3, 1}, 1 << 30, "transpose"},
        {"210_20x3x33", {{"B", 20}, {"M", 3}, {"K", 33}}, Layout{{2, 1, 0}}, Layout{}, 1 << 30, "transpose"},
        {"120_40x2x70_mis", {{"B", 40}, {"M", 2}, {"K", 70}}, Layout{{1, 2, 0}, 0, 3}, Layout{{}, 0, 1}, 1 << 30, "transpose"},
        {"021_1x40x70", {{"B", 1}, {"M", 40}, {"K", 70}}, Layout{{0, 2, 1}}, Layout{}, 1 << 30, "transpose"},
        {"021_4x1x50", {{"B", 4}, {"M", 1}, {"K", 50}}, Layout{{0, 2, 1}}, Layout{}, 1 << 30, "full_reduction"},
        {"021_3x5x33", {{"B", 3}, {"M", 5}, {"K", 33}}, Layout{{0, 2, 1}}, Layout{}, 1 << 30, "full_reduction"},
        {"agree_2x64x65", {{"B", 2}, {"M", 64}, {"K", 65}}, Layout{{0, 2, 1}}, Layout{{0, 2, 1}}, 1 << 30, "full_reduction"},
    };
    for (DType t : {DType::F32, DType::F16, DType::BF16})
      for (const std::string kind : {"sum", "amax", "var_mean", "post"})
        for (const FCase& fc : fcases)
          run("full_" + kind + "_" + fc.name + "_" + std::string(dtype_name(t)), full_red(t, kind), fc.sz,
              std::vector<Layout>{fc.xl, fc.yl}, std::vector<Layout>{Layout{}, Layout{}}, fc.cap, fc.sched);
  }
  {
    // Full reductions over padded, misaligned rows (a slice of a wider tensor): the flat
    // template's phased rows with rows in flight, one pass and two, at even-pass thread counts
    // (on a profile of one SM, so these rows are enough for rows in flight).
    struct FCase { std::string name; Bindings sz; };
    g_sm_count = 1;
    const std::vector<FCase> scases{{"slice_4x128x333", {{"B", 4}, {"M", 128}, {"K", 333}}},
                                    {"slice_2x64x2100", {{"B", 2}, {"M", 64}, {"K", 2100}}}};
    // x and y at one phase per row (phased vectors), and at two (element by element).
    for (DType t : {DType::F32, DType::F16, DType::BF16})
      for (const std::string kind : {"sum", "amax", "var_mean", "post"})
        for (const FCase& fc : scases)
          for (int ypad : {3, 5})
            run("full_" + kind + "_" + fc.name + "_pad" + std::to_string(ypad) + "_" + std::string(dtype_name(t)),
                full_red(t, kind), fc.sz, std::vector<Layout>{Layout{{}, 3, 1}, Layout{{}, ypad, 1}},
                std::vector<Layout>{Layout{}, Layout{}}, 1 << 30, "full_reduction");
    g_sm_count = 0;
  }
  {
    // Partial reductions through tiles: whole and edge tiles, a batch of 1, misaligned inputs
    // (on a profile of one SM, so these few tiles take the tiles); then the split form: as many
    // tiles as SMs (8) at least, but under a wave of resident blocks (4 an SM): the reduced
    // indices (70, 41: at least 16 a split) over 2-4 splits; edge tiles, misaligned inputs.
    struct PCase { std::string name; Bindings sz; Layout xl, yl; int sms; };
    const std::vector<PCase> pcases{
        {"201_5x37x70", {{"B", 5}, {"M", 37}, {"K", 70}}, Layout{{2, 0, 1}}, Layout{}, 1},
        {"021_3x64x64", {{"B", 3}, {"M", 64}, {"K", 64}}, Layout{{0, 2, 1}}, Layout{}, 1},
        {"201_1x40x33", {{"B", 1}, {"M", 40}, {"K", 33}}, Layout{{2, 0, 1}}, Layout{}, 1},
        {"021_4x65x17_mis", {{"B", 4}, {"M", 65}, {"K", 17}}, Layout{{0, 2, 1}, 0, 1}, Layout{{}, 3, 1}, 1},
        {"201_70x37x200_split", {{"B", 70}, {"M", 37}, {"K", 200}}, Layout{{2, 0, 1}}, Layout{}, 8},
        {"021_41x65x140_mis_split", {{"B", 41}, {"M", 65}, {"K", 140}}, Layout{{0, 2, 1}, 0, 1}, Layout{{}, 3, 1}, 8},
    };
    for (DType t : {DType::F32, DType::F16, DType::BF16})
      for (const std::string kind : {"sum", "mean_sqrt", "amax_amin", "var_mean", "std"})
        for (const PCase& pc : pcases) {
          g_sm_count = pc.sms;
          std::vector<Layout> outs{Layout{}};
          if (kind == "amax_amin" || kind == "var_mean") outs.push_back(Layout{});
          run("tred_" + kind + "_" + pc.name + "_" + std::string(dtype_name(t)), part_red(t, kind), pc.sz,
              std::vector<Layout>{pc.xl, pc.yl}, outs, 1 << 30, "transpose");
        }
    g_sm_count = 0;
  }
  {
    // Tiles that reduce their columns: x stored [M, K, B] (fast along the kept B), y contiguous
    // (fast along the reduced K); edge tiles along both, misaligned inputs; the split form
    // (sm 16: a few kept tiles take many splits) and the single one (sm 1).
    struct CCase { std::string name; Bindings sz; std::vector<int64_t> dims; Layout xl, yl; int sms; };
    const std::vector<CCase> ccases{
        {"12_70x5x370_split", {{"B", 70}, {"M", 5}, {"K", 370}}, {1, 2}, Layout{{1, 2, 0}}, Layout{}, 16},
        {"12_70x5x370", {{"B", 70}, {"M", 5}, {"K", 370}}, {1, 2}, Layout{{1, 2, 0}}, Layout{}, 1},
        {"2_33x3x100", {{"B", 33}, {"M", 3}, {"K", 100}}, {2}, Layout{{1, 2, 0}}, Layout{}, 16},
        {"12_40x9x64_mis", {{"B", 40}, {"M", 9}, {"K", 64}}, {1, 2}, Layout{{1, 2, 0}, 0, 1}, Layout{{}, 4, 2}, 16},
        // both tile dims reduced (tile_reduces_all): x stored [K, B, M] (fast along the reduced M)
        {"all12_5x40x70_split", {{"B", 5}, {"M", 40}, {"K", 70}}, {1, 2}, Layout{{2, 0, 1}}, Layout{}, 16},
        {"all12_3x33x100", {{"B", 3}, {"M", 33}, {"K", 100}}, {1, 2}, Layout{{2, 0, 1}}, Layout{}, 1},
        {"all12_2x64x66_mis_split", {{"B", 2}, {"M", 64}, {"K", 66}}, {1, 2}, Layout{{2, 0, 1}, 0, 1}, Layout{{}, 2, 2}, 16},
        // y's rows of odd length: vectors of one element, so 16-bit rows of 64 lanes (two warps)
        {"12_40x3x37_split", {{"B", 40}, {"M", 3}, {"K", 37}}, {1, 2}, Layout{{1, 2, 0}}, Layout{}, 16},
        {"2_70x2x101", {{"B", 70}, {"M", 2}, {"K", 101}}, {2}, Layout{{1, 2, 0}}, Layout{}, 1},
    };
    for (DType t : {DType::F32, DType::F16, DType::BF16})
      for (const std::string kind : {"sum", "mean_sqrt", "amax_amin", "var_mean"})
        for (const CCase& cc : ccases) {
          g_sm_count = cc.sms;
          std::vector<Layout> outs{Layout{}};
          if (kind == "amax_amin" || kind == "var_mean") outs.push_back(Layout{});
          run("xred_" + kind + "_" + cc.name + "_" + std::string(dtype_name(t)), cross_red(t, kind, cc.dims), cc.sz,
              std::vector<Layout>{cc.xl, cc.yl}, outs, 1 << 30, "transpose");
        }
    g_sm_count = 0;
  }
  // Small matmuls as reductions (passes/small_matmuls.h): each form as laid out, and with
  // every operand of rank 2 or more stored transposed and misaligned by an element.
  for (const solder::testing::SmallMatmulProgram& p : solder::testing::small_matmul_programs()) {
    const Fusion f = parse_fusion(p.text);
    std::vector<Layout> plain(f.inputs().size()), odd;
    for (int v : f.inputs()) {
      Layout l{{}, 0, 1};
      const int r = static_cast<int>(f.value(v).shape.size());
      for (int d = r - 1; r >= 2 && d >= 0; --d) l.order.push_back(d);
      odd.push_back(l);
    }
    run("smm_" + p.name, f, Bindings{}, plain, std::vector<Layout>{Layout{}}, 1 << 30, "");
    // (merged_k_matvec's reshape of a transposed a is a copy step there: not one kernel.)
    if (p.name.rfind("merged_k_matvec", 0) != 0)
      run("smm_" + p.name + "_T_mis", f, Bindings{}, odd, std::vector<Layout>{Layout{}}, 1 << 30, "");
  }
  // Math after a reshape of a computed value, in the value's kernel
  // (passes/math_before_reshapes.h): as laid out, and every input misaligned by an element.
  for (const solder::testing::ReshapeMathProgram& p : solder::testing::reshape_math_programs()) {
    const Fusion f = parse_fusion(p.text);
    const Bindings b = p.name.rfind("group_norm", 0) == 0 ? Bindings{{"N", 2}, {"H", 5}, {"W", 7}} : Bindings{{"B", 3}, {"C", 37}};
    const std::vector<Layout> plain(f.inputs().size()), mis(f.inputs().size(), Layout{{}, 0, 1});
    run("mbr_" + p.name, f, b, plain, std::vector<Layout>{Layout{}}, 1 << 30, "");
    run("mbr_" + p.name + "_mis", f, b, mis, std::vector<Layout>{Layout{}}, 1 << 30, "");
  }
  // Pads of several dims (tests/support/pad_programs.h): as laid out, misaligned, with the
  // innermost storage dim padded, and every input's dims stored in reverse (read per element).
  for (const solder::testing::PadProgram& p : solder::testing::pad_programs()) {
    const Fusion f = parse_fusion(p.text);
    std::vector<Layout> reversed;
    for (int v : f.inputs()) {
      Layout l;
      for (int d = f.value(v).rank() - 1; d >= 0; --d) l.order.push_back(d);
      reversed.push_back(l);
    }
    for (const auto& [ln, ls] : {std::pair{"", std::vector<Layout>(f.inputs().size())},
                                 std::pair{"_mis", std::vector<Layout>(f.inputs().size(), Layout{{}, 0, 1})},
                                 std::pair{"_pad3", std::vector<Layout>(f.inputs().size(), Layout{{}, 3, 0})}, std::pair{"_T", reversed}})
      for (const Bindings& b : {Bindings{{"N", 2}, {"C", 3}, {"H", 5}, {"W", 7}, {"B", 6}}, Bindings{{"N", 1}, {"C", 2}, {"H", 9}, {"W", 64}, {"B", 33}}})
        run("pads_" + p.name + ln + "_W" + std::to_string(b.at("W")), f, b, ls, std::vector<Layout>{Layout{}}, 1 << 30, "");
  }
  const Layout T2m{{1, 0}}, Cm{};
  run("mixed_staged_in", mixed(), Bindings{{"A", 100}, {"B", 130}}, std::vector<Layout>{T2m, T2m, T2m}, std::vector<Layout>{Cm, Cm}, 1 << 30, "transpose");
  run("mixed_staged_out", mixed_out(), Bindings{{"A", 100}, {"B", 130}}, std::vector<Layout>{Cm, Cm}, std::vector<Layout>{T2m, Cm}, 1 << 30, "transpose");
  run("mixed_staged_out2", mixed_out(), Bindings{{"A", 64}, {"B", 128}}, std::vector<Layout>{Cm, Cm}, std::vector<Layout>{T2m, T2m}, 1 << 30, "transpose");
  std::cout << (fails ? "FAILURES: " + std::to_string(fails) : std::string("all ok")) << "\n";
  return fails != 0;
}
