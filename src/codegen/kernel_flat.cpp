#include <cmath>
#include <cstring>

#include "codegen/kernel_writer.h"

namespace solder::codegen_detail {

namespace {

// Grid reduction: warp then block combine, one atomic per block (one per warp made 8192
// atomics on one address for 2^21 elements), the last block finishes the scalar epilogue and
// resets the scratch, so no memset is needed between launches.
void write_grid_combine(Writer& w, const std::vector<std::string>& acc, const std::vector<int>& post_outs,
                        KernelSource& ks_out) {
  std::string& c = w.code;
  const size_t nsteps = w.sp.steps.size();
  std::vector<bool> integral(nsteps);
  for (size_t i = 0; i < nsteps; ++i) {
    Op kind = w.sp.steps[i].kind;
    DType t = accumulator_dtype(w.f.value(w.f.nodes()[w.sp.steps[i].node].out[0]).dtype);
    integral[i] = !is_floating(t);
    const std::string red = std::string("warp_reduce<") + red_struct(kind) + ", 32>(", bred = "bred" + num(static_cast<long long>(i));
    c += "  " + acc[i] + " = " + red + acc[i] + ");\n";
    c += "  __shared__ " + std::string(compute_type(t)) + " " + bred + "[THREADS / 32];\n";
    c += "  if ((threadIdx.x & 31) == 0) " + bred + "[threadIdx.x >> 5] = " + acc[i] + ";\n  __syncthreads();\n";
    c += "  " + acc[i] + " = " + red + "threadIdx.x < THREADS / 32 ? " + bred + "[threadIdx.x] : " + red_identity(kind, t) + ");\n";
    const std::string slot = "p.scratch + " + num(2 * static_cast<long long>(i));
    if (integral[i]) {
      // Integers (and bools) combine exactly as 64-bit values in the step's two scratch words.
      const char* fn = kind == Op::Max ? "atomicMax((long long*)(" : kind == Op::Min ? "atomicMin((long long*)(" : "atomicAdd((unsigned long long*)(";
      const char* cast = kind == Op::Max || kind == Op::Min ? "(long long)" : "(unsigned long long)(long long)";
      c += "  if (threadIdx.x == 0) " + std::string(fn) + slot + "), " + cast + acc[i] + ");\n";
      long long idv = kind == Op::Max ? (-9223372036854775807LL - 1) : kind == Op::Min ? 9223372036854775807LL : 0;
      ks_out.scratch_init.push_back(static_cast<unsigned>(static_cast<unsigned long long>(idv) & 0xffffffffu));
      ks_out.scratch_init.push_back(static_cast<unsigned>(static_cast<unsigned long long>(idv) >> 32));
      continue;
    }
    if (t == DType::F64) {  // one double in the step's two scratch words
      c += "  if (threadIdx.x == 0) atomic_combine(" + std::string(red_struct(kind)) + "(), (double*)(" + slot + "), " + acc[i] + ");\n";
      double idv = kind == Op::Max ? -INFINITY : kind == Op::Min ? INFINITY : 0.0;
      unsigned long long bits;
      std::memcpy(&bits, &idv, 8);
      ks_out.scratch_init.push_back(static_cast<unsigned>(bits & 0xffffffffu));
      ks_out.scratch_init.push_back(static_cast<unsigned>(bits >> 32));
      continue;
    }
    c += "  if (threadIdx.x == 0) atomic_combine(" + std::string(red_struct(kind)) + "(), " + slot + ", (float)" + acc[i] + ");\n";
    float idv = kind == Op::Max ? -INFINITY : kind == Op::Min ? INFINITY : 0.0f;
    unsigned bits;
    std::memcpy(&bits, &idv, 4);
    ks_out.scratch_init.push_back(bits);
    ks_out.scratch_init.push_back(0);
  }
  ks_out.scratch_init.push_back(0);  // block counter
  const std::string counter = "((unsigned*)p.scratch)[" + num(2 * static_cast<long long>(nsteps)) + "]";
  c += "  __shared__ bool last_block;\n  __threadfence();\n  __syncthreads();\n";
  c += "  if (threadIdx.x == 0) last_block = atomicAdd(&" + counter + ", 1u) == gridDim.x * gridDim.y - 1;\n";
  c += "  __syncthreads();\n  if (!last_block || threadIdx.x != 0) return;\n  __threadfence();\n";
  c += "  volatile float* s = p.scratch;\n";
  std::map<int, std::string> results;
  for (size_t i = 0; i < nsteps; ++i) {
    const auto& st = w.sp.steps[i];
    int out = w.f.nodes()[st.node].out[0];
    DType t = w.f.value(out).dtype;
    const bool wide = accumulator_dtype(t) == DType::F64;
    std::string raw = wide ? "(*(volatile double*)(p.scratch + " + num(2 * static_cast<long long>(i)) + "))"
                      : integral[i] ? "(*(volatile long long*)(p.scratch + " + num(2 * static_cast<long long>(i)) + "))"
                                  : "(s[" + num(2 * static_cast<long long>(i) + 1) + "] != 0.0f ? __int_as_float(0x7fc00000) : s[" +
                                        num(2 * static_cast<long long>(i)) + "])";
    if (st.kind == Op::Mean) raw = "(" + raw + " / (float)C)";
    std::string name = "r" + num(out);
    c += "  const " + std::string(compute_type(t)) + " " + name + " = (" + compute_type(t) + ")" + raw + ";\n";
    results[out] = name;
  }
  for (size_t i = 0; i < ks_out.scratch_init.size() - 1; ++i)
    c += "  ((volatile unsigned*)p.scratch)[" + num(static_cast<long long>(i)) + "] = " + num(ks_out.scratch_init[i]) + "u;\n";
  c += "  " + counter + " = 0u;\n";
  ExprEmitter em(w.f, [&](int v) {
    if (results.count(v)) return results[v];
    if (w.is_input(v)) return load_convert(w.dt(v), w.ptr(w.operand_index.at(v)) + "[0]");
    return std::string();
  });
  for (int k : post_outs)
    c += "  " + w.ptr(k) + "[0] = " + store_convert(w.dt(w.op(k).value), em.value(w.op(k).value, c, "  ")) + ";\n";
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Pointwise and full reduction: a grid-stride loop over [R, C], VEC elements per access.
void write_flat(Writer& w, KernelSource& ks_out) {
  const auto& P = w.plan.params;
  const bool full = w.ks.category == KernelCategory::Full;
  std::string& c = w.code;
  std::vector<int> outs = w.output_slots();
  // Full reductions: element outputs are written in the loop, scalar results at the end.
  std::vector<int> elem_outs, post_outs;
  for (int k : outs) (full && w.sp.stage[w.op(k).value] > 0 ? post_outs : elem_outs).push_back(k);
  std::vector<int> targets;
  for (int k : elem_outs) targets.push_back(w.op(k).value);
  for (const auto& st : w.sp.steps) {
    if (st.var_step || st.kind == Op::VarMean)
      throw Error("codegen: var_mean over every dim is not supported on the GPU yet (" + w.plan.name + ")");
    targets.push_back(st.input);
  }
  auto stop = [&](int) { return false; };
  std::vector<int> ins = w.element_inputs(targets, stop);

  c += "extern \"C\" __global__ void " + w.launch_bounds(0) + " " + w.plan.name + "(const Params p) {\n";
  c += "  constexpr int VEC = " + num(P.vec) + ", THREADS = " + num(P.threads) + ", UNROLL = " + num(P.unroll) + ";\n";
  w.pointers(1);
  c += "  const i64 R = p.R, C = p.C;\n";
  std::vector<std::string> acc;
  for (size_t i = 0; i < w.sp.steps.size(); ++i) {
    DType t = accumulator_dtype(w.f.value(w.f.nodes()[w.sp.steps[i].node].out[0]).dtype);
    acc.push_back("acc" + num(static_cast<long long>(i)));
    c += "  " + std::string(compute_type(t)) + " " + acc.back() + " = " + red_identity(w.sp.steps[i].kind, t) + ";\n";
  }
  // Scalars once per thread, row-constant inputs once per row: not once per element.
  for (int k : ins)
    if (w.op(k).access == Access::Scalar) {
      w.hoisted[k] = "hs" + num(k);
      c += "  const " + std::string(storage_type(w.dt(w.op(k).value))) + " hs" + num(k) + " = " + w.ptr(k) + "[0];\n";
    }
  c += "  for (i64 row = blockIdx.y; row < R; row += gridDim.y) {\n";
  for (int k : ins)
    if (w.op(k).access == Access::Row) {
      w.hoisted[k] = "hr" + num(k);
      c += "    const " + std::string(storage_type(w.dt(w.op(k).value))) + " hr" + num(k) + " = " + w.ptr(k) + "[" +
           w.offset(k, "row", "0") + "];\n";
    }
  // The element loop of one VEC chunk at col0: loads at `ind`, element math one level deeper.
  // `loaded`: the vector inputs were loaded ahead (inK = pfK[u]).
  auto chunk_body = [&](bool vector_path, int ind, bool loaded) {
    if (vector_path) {
      if (loaded) {
        for (int k : ins)
          if (w.vectorized(k))
            c += I(ind) + "const " + w.in_vec_type(k) + " in" + num(k) + " = pf" + num(k) + "[u];\n";
      } else {
        w.vector_loads(ins, ind, "row", "col0");
      }
      w.store_decls(elem_outs, ind);
    }
    c += "#pragma unroll\n" + I(ind) + "for (int j = 0; j < VEC; ++j) {\n";
    if (!vector_path) c += I(ind + 1) + "if (col0 + j >= C) break;\n";
    c += I(ind + 1) + "const i64 col = col0 + j;\n" + I(ind + 1) + "(void)col;\n";
    w.scalar_loads(ins, ind + 1, "row", "col", !vector_path);
    ExprEmitter em(w.f, [&](int v) { return w.is_input(v) ? w.elem_input(v, vector_path) : std::string(); });
    em.set_raw_bits([&](int v) { return w.is_input(v) ? w.elem_raw(v, vector_path) : std::string(); });
    em.set_narrow_results(w.narrow_results());
    for (int k : elem_outs) w.store_elem(k, w.stored_value(em, k, I(ind + 1)), ind + 1, "row", "col", vector_path);
    for (size_t i = 0; i < w.sp.steps.size(); ++i) {
      std::string x = em.value(w.sp.steps[i].input, c, I(ind + 1));
      DType at = accumulator_dtype(w.f.value(w.f.nodes()[w.sp.steps[i].node].out[0]).dtype);
      c += I(ind + 1) + acc[i] + " = " + combine(w.sp.steps[i].kind, acc[i], std::string("(") + compute_type(at) + ")(" + x + ")") + ";\n";
    }
    c += I(ind) + "}\n";
    if (vector_path) w.store_vectors(elem_outs, ind, "row", "col0");
  };
  c += "    for (i64 chunk = blockIdx.x; chunk * (THREADS * UNROLL * VEC) < C; chunk += gridDim.x) {\n";
  if (P.unroll > 1) {
    // A tile wholly in bounds issues all its loads before the first use: in the bounds-checked
    // form below, the compiler cannot hoist a load past the previous chunk's branch, so each
    // thread had one load in flight (the 2^21 W2 kernel waited on memory UNROLL times).
    c += "      const i64 tile0 = chunk * (THREADS * UNROLL * VEC);\n";
    c += "      if (tile0 + THREADS * UNROLL * VEC <= C) {\n";
    for (int k : ins)
      if (w.vectorized(k))
        c += "        " + w.in_vec_type(k) + " pf" + num(k) + "[UNROLL];\n";
    c += "#pragma unroll\n        for (int u = 0; u < UNROLL; ++u) {\n";
    c += "          const i64 col0 = tile0 + (u * THREADS + threadIdx.x) * VEC;\n";
    for (int k : ins)
      if (w.vectorized(k)) c += "          pf" + num(k) + "[u] = " + w.vector_load(k, "row", "col0") + ";\n";
    c += "        }\n";
    c += "#pragma unroll\n        for (int u = 0; u < UNROLL; ++u) {\n";
    c += "          const i64 col0 = tile0 + (u * THREADS + threadIdx.x) * VEC;\n";
    chunk_body(true, 5, true);
    c += "        }\n        continue;\n      }\n";
  }
  c += "#pragma unroll\n      for (int u = 0; u < UNROLL; ++u) {\n";
  c += "        const i64 col0 = ((chunk * UNROLL + u) * THREADS + threadIdx.x) * VEC;\n";
  c += "        if (col0 + VEC <= C) {\n";
  chunk_body(true, 5, false);
  c += "        } else if (col0 < C) {\n";
  chunk_body(false, 5, false);
  c += "        }\n      }\n    }\n  }\n";
  if (full) write_grid_combine(w, acc, post_outs, ks_out);
  c += "}\n";
}

}  // namespace solder::codegen_detail
