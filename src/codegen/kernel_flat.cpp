#include <cmath>
#include <cstring>
#include <set>

#include "codegen/kernel_writer.h"

namespace solder::codegen_detail {

// Grid reduction: warp then block combine, one atomic per block (one per warp made 8192
// atomics on one address for 2^21 elements), the last block finishes the scalar epilogue and
// resets the scratch, so no memset is needed between launches. var_mean: Welford per thread,
// Chan's merge across the block, then each block adds n, n*mean and m2 + n*mean^2 in double;
// the last block takes var = (sum of squares - n*mean^2) / (n - correction), whose cancellation
// in double costs nothing at f32 precision.
void write_grid_combine(Writer& w, const std::vector<std::string>& acc, const std::vector<int>& post_outs,
                        KernelSource& ks_out) {
  std::string& c = w.code;
  const size_t nsteps = w.sp.steps.size();
  std::vector<long long> word(nsteps);  // each step's first scratch word (even: doubles align)
  auto push_bits = [&](unsigned long long bits, int words) {
    ks_out.scratch_init.push_back(static_cast<unsigned>(bits & 0xffffffffu));
    if (words == 2) ks_out.scratch_init.push_back(static_cast<unsigned>(bits >> 32));
  };
  for (size_t i = 0; i < nsteps; ++i) {
    const ReductionStep& st = w.sp.steps[i];
    const Op kind = st.kind;
    const DType t = accumulator_dtype(w.f.value(w.f.nodes()[st.node].out[0]).dtype);
    word[i] = static_cast<long long>(ks_out.scratch_init.size());
    const std::string bred = "bred" + num(static_cast<long long>(i)), slot = "p.scratch + " + num(word[i]);
    if (st.welford) {  // shifted sums: Σd and Σd² (d = x - shift), each a float per thread
      for (const std::string& a : {acc[i], acc[i] + "q"}) {
        c += "  " + a + " = warp_reduce<RedSum, 32>(" + a + ");\n";
        c += "  __shared__ float b" + a + "[THREADS / 32];\n";
        c += "  if ((threadIdx.x & 31) == 0) b" + a + "[threadIdx.x >> 5] = " + a + ";\n  __syncthreads();\n";
        c += "  " + a + " = warp_reduce<RedSum, 32>(threadIdx.x < THREADS / 32 ? b" + a + "[threadIdx.x] : 0.f);\n";
      }
      c += "  if (threadIdx.x == 0) {\n    atomicAdd((double*)(" + slot + "), (double)" + acc[i] + ");\n";
      c += "    atomicAdd((double*)(" + slot + ") + 1, (double)" + acc[i] + "q);\n  }\n";
      for (int k = 0; k < 2; ++k) push_bits(0, 2);
      continue;
    }
    const std::string red = std::string("warp_reduce<") + red_struct(kind) + ", 32>(";
    c += "  " + acc[i] + " = " + red + acc[i] + ");\n";
    c += "  __shared__ " + std::string(compute_type(t)) + " " + bred + "[THREADS / 32];\n";
    c += "  if ((threadIdx.x & 31) == 0) " + bred + "[threadIdx.x >> 5] = " + acc[i] + ";\n  __syncthreads();\n";
    c += "  " + acc[i] + " = " + red + "threadIdx.x < THREADS / 32 ? " + bred + "[threadIdx.x] : " + red_identity(kind, t) + ");\n";
    if (!is_floating(t)) {
      // Integers (and bools) combine exactly as 64-bit values in the step's two scratch words.
      const char* fn = kind == Op::Max ? "atomicMax((long long*)(" : kind == Op::Min ? "atomicMin((long long*)(" : "atomicAdd((unsigned long long*)(";
      const char* cast = kind == Op::Max || kind == Op::Min ? "(long long)" : "(unsigned long long)(long long)";
      c += "  if (threadIdx.x == 0) " + std::string(fn) + slot + "), " + cast + acc[i] + ");\n";
      long long idv = kind == Op::Max ? (-9223372036854775807LL - 1) : kind == Op::Min ? 9223372036854775807LL : 0;
      push_bits(static_cast<unsigned long long>(idv), 2);
      continue;
    }
    if (t == DType::F64) {  // one double in the step's two scratch words
      c += "  if (threadIdx.x == 0) atomic_combine(" + std::string(red_struct(kind)) + "(), (double*)(" + slot + "), " + acc[i] + ");\n";
      double idv = kind == Op::Max ? -INFINITY : kind == Op::Min ? INFINITY : 0.0;
      unsigned long long bits;
      std::memcpy(&bits, &idv, 8);
      push_bits(bits, 2);
      continue;
    }
    // A float and its NaN flag (max/min atomics compare bit patterns: a NaN is flagged apart).
    c += "  if (threadIdx.x == 0) atomic_combine(" + std::string(red_struct(kind)) + "(), " + slot + ", (float)" + acc[i] + ");\n";
    float idv = kind == Op::Max ? -INFINITY : kind == Op::Min ? INFINITY : 0.0f;
    unsigned bits;
    std::memcpy(&bits, &idv, 4);
    push_bits(bits, 1);
    push_bits(0, 1);
  }
  const long long counter_word = static_cast<long long>(ks_out.scratch_init.size());
  ks_out.scratch_init.push_back(0);  // block counter
  const std::string counter = "((unsigned*)p.scratch)[" + num(counter_word) + "]";
  c += "  __shared__ bool last_block;\n  __threadfence();\n  __syncthreads();\n";
  c += "  if (threadIdx.x == 0) last_block = atomicAdd(&" + counter + ", 1u) == gridDim.x * gridDim.y - 1;\n";
  c += "  __syncthreads();\n  if (!last_block || threadIdx.x != 0) return;\n  __threadfence();\n";
  c += "  volatile float* s = p.scratch;\n";
  std::map<int, std::string> results;
  auto declare = [&](int v, const std::string& expr) {
    const DType t = w.f.value(v).dtype;
    const std::string name = "r" + num(v);
    c += "  const " + std::string(compute_type(t)) + " " + name + " = " + rounded(t, "(" + std::string(compute_type(t)) + ")" + expr) + ";\n";
    results[v] = name;
  };
  for (size_t i = 0; i < nsteps; ++i) {
    const ReductionStep& st = w.sp.steps[i];
    const Node& n = w.f.nodes()[st.node];
    const DType t = w.f.value(n.out[0]).dtype;
    const std::string at = num(word[i]);
    if (st.welford) {  // mean = shift + Σd / n, var = (Σd² - (Σd)² / n) / (n - correction)
      const std::string d = "wd" + num(static_cast<long long>(i)), corr = num(n.attrs.correction);
      c += "  const volatile double* " + d + " = (const volatile double*)(p.scratch + " + at + ");\n";
      c += "  const double " + d + "n = (double)R * (double)C;\n";
      c += "  const double " + d + "v = fmax(" + d + "[1] - " + d + "[0] * " + d + "[0] / " + d + "n, 0.0) / (" + d + "n - " +
           corr + " > 0 ? " + d + "n - " + corr + " : 0.0);\n";
      declare(n.out[0], d + "v");
      declare(n.out[1], "((double)" + acc[i] + "k + " + d + "[0] / " + d + "n)");
      continue;
    }
    const bool wide = accumulator_dtype(t) == DType::F64;
    std::string raw = wide                  ? "(*(volatile double*)(p.scratch + " + at + "))"
                      : !is_floating(accumulator_dtype(t)) ? "(*(volatile long long*)(p.scratch + " + at + "))"
                                                           : "(s[" + num(word[i] + 1) + "] != 0.0f ? __int_as_float(0x7fc00000) : s[" + at + "])";
    if (st.kind == Op::Mean) raw = "(" + raw + " / (float)(R * C))";  // every element: rows of a slice too
    declare(n.out[0], raw);
  }
  for (size_t i = 0; i + 1 < ks_out.scratch_init.size(); ++i)
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

std::vector<std::string> write_accumulators(Writer& w, int ind) {
  std::vector<std::string> acc;
  for (size_t i = 0; i < w.sp.steps.size(); ++i) {
    DType t = accumulator_dtype(w.f.value(w.f.nodes()[w.sp.steps[i].node].out[0]).dtype);
    acc.push_back("acc" + num(static_cast<long long>(i)));
    if (w.sp.steps[i].welford)
      w.code += I(ind) + "float " + acc.back() + " = 0.f, " + acc.back() + "q = 0.f;\n";
    else
      w.code += I(ind) + std::string(compute_type(t)) + " " + acc.back() + " = " + red_identity(w.sp.steps[i].kind, t) + ";\n";
  }
  return acc;
}

void write_fold(Writer& w, ExprEmitter& em, const std::vector<std::string>& acc, int ind) {
  std::string& c = w.code;
  for (size_t i = 0; i < w.sp.steps.size(); ++i) {
    std::string x = em.value(w.sp.steps[i].input, c, I(ind));
    DType at = accumulator_dtype(w.f.value(w.f.nodes()[w.sp.steps[i].node].out[0]).dtype);
    if (w.sp.steps[i].welford)
      c += I(ind) + "{\n" + I(ind + 1) + "const float d = (float)(" + x + ") - " + acc[i] + "k;\n" + I(ind + 1) + acc[i] +
           " += d;\n" + I(ind + 1) + acc[i] + "q += d * d;\n" + I(ind) + "}\n";
    else
      c += I(ind) + acc[i] + " = " + combine(w.sp.steps[i].kind, acc[i], std::string("(") + compute_type(at) + ")(" + x + ")") + ";\n";
  }
}

namespace {

// var_mean's shift: the reduced value at element 0, which every thread computes alike, so that
// the sums of d = x - shift and d² stay near the spread of x, not its magnitude (a shift that is
// not finite, or an empty input, takes 0).
void write_variance_shifts(Writer& w, const std::vector<int>& ins, const std::vector<std::string>& acc) {
  std::string& c = w.code;
  for (size_t i = 0; i < w.sp.steps.size(); ++i) {
    if (!w.sp.steps[i].welford) continue;
    const std::string k = acc[i] + "k";
    c += "  float " + k + " = 0.f;\n  if (R > 0 && C > 0) {\n    const i64 row = 0, col = 0;\n    (void)col;\n";
    w.scalar_loads(ins, 2, "row", "col", true);
    ExprEmitter em(w.f, [&](int v) { return w.is_input(v) ? w.elem_input(v, false) : std::string(); });
    em.set_raw_bits([&](int v) { return w.is_input(v) ? w.elem_raw(v, false) : std::string(); });
    const std::string x = em.value(w.sp.steps[i].input, c, I(2));
    c += "    " + k + " = (float)(" + x + ");\n    if (!isfinite(" + k + ")) " + k + " = 0.f;\n  }\n";
  }
}

// Flat kernels' General addressing (see Writer::split_rows): roff, a row's offset from its
// index per row dim, and coff, a column's from its index per column dim (General columns).
// The outermost dim of each part needs no remainder (its index is below its extent). With
// index32 the divisions are 32-bit (every index and offset fits: fits_index32).
void write_split_offsets(Writer& w) {
  bool rows = false, cols = false;
  for (int k = 0; k < static_cast<int>(w.plan.operands.size()); ++k) {
    rows |= w.op(k).rows_by_dim;
    cols |= w.split_rows(k) && w.op(k).access == Access::General;
  }
  // With index32 the row offsets are 32-bit too (int: strides may be negative), and so are the
  // per-row bases that hold them (write_flat's row_setup): fewer registers per operand. (Column
  // offsets stay 64-bit: 32-bit ones took strided slices from 32 to 40 registers.)
  const std::string ix = w.plan.params.index32 ? "unsigned" : "i64";
  auto part = [&](const char* name, const char* index, int lo, int hi, bool i32) {
    const std::string ot = i32 ? "int" : "i64";
    w.code += "__device__ __forceinline__ " + ot + " " + std::string(name) + "(const Params& p, int k, i64 " + index + "0) {\n";
    w.code += "  " + ix + " i = (" + ix + ")" + index + "0;\n  " + ot + " off = 0;\n";
    for (int d = hi - 1; d > lo; --d)
      w.code += "  off += (" + ot + ")(i % (" + ix + ")p.dims[" + num(d) + "]) * (" + ot + ")p.stride[k][" + num(d) + "]; i /= (" + ix +
                ")p.dims[" + num(d) + "];\n";
    if (hi > lo) w.code += "  off += (" + ot + ")i * (" + ot + ")p.stride[k][" + num(lo) + "];\n";
    w.code += "  return off;\n}\n";
  };
  const int rank = static_cast<int>(w.ks.dim_order.size());
  if (rows) part("roff", "row", 0, w.ks.split, w.plan.params.index32);
  if (cols) part("coff", "col", w.ks.split, rank, false);
}

// Shift plans (KernelParams::shift): the V elements of type E whose first byte lies `bytes` past
// the aligned vector at `aligned`, from that vector and the next (4 to 16 bytes each; see
// shift_pair).
std::string shifted_load_helper() {
  return shift_pair_helper() +
         "template <class E, int V> __device__ __forceinline__ Vec<E, V> ld_shifted(const E* aligned, unsigned bytes) {\n"
         "  return shift_pair<E, V>(ld_vec<E, V>(aligned), ld_vec<E, V>(aligned + V), bytes);\n}\n";
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
  for (const auto& st : w.sp.steps) targets.push_back(st.input);
  auto stop = [&](int) { return false; };
  std::vector<int> ins = w.element_inputs(targets, stop);
  w.flat_rows = true;
  write_split_offsets(w);
  if (P.shift) c += shifted_load_helper();

  c += "extern \"C\" __global__ void " + w.launch_bounds(0) + " " + w.plan.name + "(const Params p) {\n";
  c += "  constexpr int VEC = " + num(P.vec) + ", THREADS = " + num(P.threads) + ", UNROLL = " + num(P.unroll) + ";\n";
  w.pointers(1);
  c += "  const i64 R = p.R, C = p.C;\n";
  const std::vector<std::string> acc = write_accumulators(w, 1);
  // Scalars once per thread, row-constant inputs once per row: not once per element.
  for (int k : ins)
    if (w.op(k).access == Access::Scalar && w.window_dim(w.op(k).value) < 0) {  // pads: masked per element
      w.hoisted[k] = "hs" + num(k);
      c += "  const " + std::string(storage_type(w.dt(w.op(k).value))) + " hs" + num(k) + " = " + w.ptr(k) + "[0];\n";
    }
  write_variance_shifts(w, ins, acc);
  // Phase-shifted rows (see phased_vec): chunks start `ph` elements before the row, at the
  // aligned vector that overlaps its first element; both ends are masked.
  const bool one_row = P.one_row, phased = w.cols_by_element() && !one_row;
  int phase_operand = -1;
  for (int k = 0; k < static_cast<int>(w.plan.operands.size()) && phased && phase_operand < 0; ++k)
    if (w.op(k).access == Access::Full) phase_operand = k;
  // What a row needs once, at `ind` (per row; per vector with one_row): the row parts of split
  // offsets (General, rows by dim; not pads, masked per element) and row-constant inputs.
  // Each variable it declares, (type, name), for the rows in flight (row_unroll) to carry.
  std::vector<std::pair<std::string, std::string>> row_vars;
  auto row_setup = [&](int ind) {
    row_vars.clear();
    for (int k = 0; k < static_cast<int>(w.plan.operands.size()); ++k)
      if (w.split_rows(k) && w.window_dim(w.op(k).value) < 0 && (w.op(k).is_output || std::count(ins.begin(), ins.end(), k))) {
        c += I(ind) + (w.op(k).rows_by_dim && P.index32 ? "const int rb" : "const i64 rb") + num(k) + " = " + w.flat_row_part(k, "row") + ";\n";
        row_vars.emplace_back(w.op(k).rows_by_dim && P.index32 ? "int" : "i64", "rb" + num(k));
        w.row_base[k] = "rb" + num(k);
      }
    // Shift plans: each Full input's phase in this row (elements past an aligned vector).
    for (int k : ins)
      if (w.shifted(k))
        c += I(ind) + "const unsigned sh" + num(k) + " = (unsigned)((unsigned long long)(" + w.ptr(k) + " + " +
             w.offset(k, "row", "0") + ") / sizeof(*" + w.ptr(k) + ")) & (VEC - 1);\n";
    for (int k : ins)
      if (w.op(k).access == Access::Row && w.window_dim(w.op(k).value) < 0) {
        w.hoisted[k] = "hr" + num(k);
        c += I(ind) + "const " + std::string(storage_type(w.dt(w.op(k).value))) + " hr" + num(k) + " = " + w.ptr(k) + "[" +
             w.offset(k, "row", "0") + "];\n";
        row_vars.emplace_back(storage_type(w.dt(w.op(k).value)), "hr" + num(k));
      }
  };
  const bool rows_in_flight = P.row_unroll > 1 && !one_row;
  // Column vectors once per thread: a 2-D pointwise block takes one pass of THREADS x VEC
  // columns (launch_grid: a block per pass) down gridDim.y-strided rows, so an operand that
  // varies along the columns only ([H], [1, M, K] of [B, M, K]) is the same vector in every row
  // it takes; loaded before the row loop, not again per row (L1 or L2 traffic and load slots).
  // Not for phased rows (each row at its own phase), unrolled chunks or a pad's window.
  if (!one_row && !rows_in_flight && !phased && !full && P.unroll == 1) {
    bool any = false;
    for (int k : ins)
      if (w.vectorized(k) && w.op(k).access == Access::Col && !w.shifted(k) && w.window_dim(w.op(k).value) < 0) {
        if (!any) c += "  const i64 bcol0 = ((i64)blockIdx.x * THREADS + threadIdx.x) * VEC;\n";
        any = true;
        const std::string name = "bv" + num(k);
        c += "  " + w.in_vec_type(k) + " " + name + " = {};\n";
        c += "  if (bcol0 + VEC <= C) " + name + " = " + w.vector_load(k, "0", "bcol0") + ";\n";
        w.block_vectors[k] = name;
      }
  }
  if (!one_row && !rows_in_flight) {
    c += "  for (i64 row = blockIdx.y; row < R; row += gridDim.y) {\n";
    row_setup(2);
  }
  // The row's phase (after its row_setup: from its row base).
  auto phase_of_row = [&] {
    return "(int)((unsigned long long)(" + w.ptr(phase_operand) + " + " + w.offset(phase_operand, "row", "0") + ") / sizeof(*" +
           w.ptr(phase_operand) + ") & (VEC - 1))";
  };
  if (phased && !rows_in_flight) c += "    const int ph = " + phase_of_row() + ";\n";
  const std::string shift = phased ? " - ph" : "", in_row = phased ? "col0 >= 0 && " : "", span = phased ? "C + ph" : "C";
  // The element loop of one VEC chunk at col0: loads at `ind`, element math one level deeper.
  // `loaded`: the vector inputs were loaded ahead (inK = pfK[u]).
  // `crossing` (one_row): a vector across a row end, each element at its own row and column.
  // `pf_at`: the prefetch slot's index (the unrolled chunk's u, or the row's r).
  std::string pf_at = "u";
  // `whole` (interleaved one_row): an element path whose elements all lie in the chunk's row.
  // A vector path with `two_rows` (one_row_vectors below): the vectors load and store at the
  // chunk's first row; in the element loop each element's row parts and row-constant values are
  // `loop_bases` and `loop_hoisted`, chosen by its row.
  const std::string step = w.lane_step();
  std::map<int, std::string> loop_bases, loop_hoisted;
  // Loops of the tail chunk left rolled (see below, UNROLL > 1).
  bool rolled_tail = false;
  auto chunk_body = [&](bool vector_path, int ind, bool loaded, bool crossing = false, bool two_rows = false, bool whole = false) {
    const bool selecting = vector_path && two_rows;
    const std::map<int, std::string> chunk_bases = w.row_base, chunk_hoisted = w.hoisted;
    if (vector_path) {
      if (loaded) {
        for (int k : ins)
          if (w.vectorized(k))
            c += I(ind) + "const " + w.in_vec_type(k) + " in" + num(k) + " = pf" + num(k) + "[" + pf_at + "];\n";
      } else {
        w.vector_loads(ins, ind, "row", "col0");
      }
      w.store_decls(elem_outs, ind);
    }
    if (selecting) {
      for (const auto& [k, e] : loop_bases) w.row_base[k] = e;
      for (const auto& [k, e] : loop_hoisted) w.hoisted[k] = e;
    }
    // A vector across several row ends (rows shorter than a vector) or the domain's end is
    // rare: its loop is not unrolled, so its element-wise addressing does not set the kernel's
    // registers (seed 10 #084: 78 -> 40). One row end (`two_rows`) is unrolled like a whole
    // vector: a warp takes one most times where rows are short (rows of 333 under 256-element
    // warps), and its other lanes waited out VEC dependent round trips (seed 27 #153).
    const size_t loop_at = c.size();
    // The element loop's header, its element's row and column, and its scalar loads.
    auto loop_head = [&] {
    const bool rolled = (crossing && !two_rows) || (rolled_tail && !vector_path);
    c += std::string(rolled ? "#pragma unroll 1\n" : "#pragma unroll\n") + I(ind) + "for (int j = 0; j < VEC; ++j) {\n";
    if (two_rows) {
      c += I(ind + 1) + "const bool nx = col0 + " + step + " >= CX;\n";
      c += I(ind + 1) + "const auto row = nx ? row0 + 1 : row0, col = nx ? col0 + " + step + " - CX : col0 + " + step + ";\n";
      c += I(ind + 1) + "(void)row;\n" + I(ind + 1) + "(void)col;\n";
    } else if (crossing) {
      // The element's row and column step on from the vector's (no division: col0 < C).
      c += I(ind + 1) + "if (i0 + " + step + " >= N) break;\n";
      c += I(ind + 1) + "auto re = row, ce = col0 + " + step + ";\n" + I(ind + 1) + "while (ce >= CX) ce -= CX, ++re;\n";
      c += I(ind + 1) + "const auto row = re, col = ce;\n" + I(ind + 1) + "(void)row;\n" + I(ind + 1) + "(void)col;\n";
    } else {
      if (!vector_path && !whole) c += I(ind + 1) + "if (col0 + j >= C) break;\n";
      if (!vector_path && phased) c += I(ind + 1) + "if (col0 + j < 0) continue;\n";
      c += I(ind + 1) + "const i64 col = col0 + " + step + ";\n" + I(ind + 1) + "(void)col;\n";
    }
    w.scalar_loads(ins, ind + 1, "row", "col", !vector_path);
    };
    loop_head();
    auto element_emitter = [&] {
      ExprEmitter e(w.f, [&](int v) { return w.is_input(v) ? w.elem_input(v, vector_path) : std::string(); });
      e.set_raw_bits([&](int v) { return w.is_input(v) ? w.elem_raw(v, vector_path) : std::string(); });
      e.set_narrow_results(w.narrow_results());
      e.set_window([&](int v) { return vector_path ? w.window_of(v, "row", "col0", "j") : w.window_of(v, "row", "col"); });
      return e;
    };
    ExprEmitter em = element_emitter();
    // Vector path: pairs of elements first (PairLoop), from 16-bit vector inputs and hoisted
    // values (a RoPE's products, negation and select).
    PairLoop pl(w.f, I(ind));
    ExprEmitter& pe = pl.pe;
    // A where's condition at each element of the pair, by the element emitter in a scope
    // whose j is that element's; only from inputs at hand there (loaded as vectors, or
    // hoisted), not ones the element loop loads one by one.
    std::map<int, bool> at_hand_memo;
    std::function<bool(int)> at_hand = [&](int v) {
      if (auto it = at_hand_memo.find(v); it != at_hand_memo.end()) return it->second;
      bool ok = true;
      if (w.is_input(v)) {
        const int k = w.operand_index.at(v);
        ok = (w.hoisted.count(k) && !loop_hoisted.count(k)) || w.vectorized(k);
      } else if (const Value& val = w.f.value(v); val.producer < 0) {
        ok = false;
      } else {
        for (int x : w.f.nodes()[val.producer].in) ok = ok && at_hand(x);
      }
      return at_hand_memo[v] = ok;
    };
    if (vector_path && w.vec % 2 == 0) {
      pe.set_raw_bits([&](int v) -> std::string {
        if (!w.is_input(v)) return "";
        const int k = w.operand_index.at(v);
        if (selecting && loop_hoisted.count(k)) return "";  // an element's own row's value
        if (w.hoisted.count(k)) return "(0x10001u * (unsigned)" + w.hoisted.at(k) + ")";
        return w.in_pairs(k) ? w.vector_pair(k) : std::string();
      });
      pe.set_pair_condition([&](int id, std::string& code, const std::string& in) -> std::pair<std::string, std::string> {
        if (!at_hand(id)) return {};
        std::string name[2];
        for (int h = 0; h < 2; ++h) {
          name[h] = "c" + num(id) + "_" + num(h);
          code += in + "bool " + name[h] + ";\n" + in + "{\n" + in + "  const int j = 2 * j2 + " + num(h) + ";\n" + in +
                  "  const i64 col = col0 + j;\n" + in + "  (void)col;\n";
          ExprEmitter e = element_emitter();
          const std::string x = e.value(id, code, in + "  ");
          code += in + "  " + name[h] + " = " + x + ";\n" + in + "}\n";
        }
        return {name[0], name[1]};
      });
    }
    auto pair_bits = [&](ExprEmitter& e) {
      if (vector_path && w.vec % 2 == 0)
        e.set_raw_bits([&](int v) -> std::string {
          if (w.is_input(v)) return w.elem_raw(v, true);
          const std::string pw = pl.word(v);
          return pw.empty() ? pw : "half_of(" + pw + ", j & 1)";
        });
    };
    pair_bits(em);
    // Checked divisions (ExprEmitter::set_checked_divisions) where the loop's elements can be
    // made again: a vector path that stores only after the loop and folds nothing.
    bool checked = vector_path && acc.empty();
    for (int k : elem_outs) checked = checked && w.vectorized(k);
    em.set_checked_divisions(checked);
    std::set<int> in_pairs;
    for (int k : elem_outs) {
      // A 16-bit vector output whose pairs the pair loop makes: set a word at a time.
      if (vector_path && w.vectorized(k) && !w.staged.count(k) && w.in_pairs_dtype(k))
        if (const std::string pw = pe.raw_bits(w.op(k).value, pl.body, I(ind + 1)); !pw.empty()) {
          pl.body += I(ind + 1) + "set_pair(out" + num(k) + ", j2, " + pw + ");\n";
          in_pairs.insert(k);
          continue;
        }
      w.store_elem(k, w.stored(em, k, I(ind + 1)), ind + 1, "row", "col", vector_path);
    }
    write_fold(w, em, acc, ind + 1);
    c += I(ind) + "}\n";
    if (em.checked_divisions() > 0) {
      // Where a division's operands fell outside its fast path: the loop again, IEEE divisions.
      c.insert(loop_at, I(ind) + "{\n" + I(ind) + "bool dslow = false;\n");
      c += I(ind) + "if (dslow) {\n";
      ++ind;
      loop_head();
      ExprEmitter ieee = element_emitter();
      pair_bits(ieee);
      for (int k : elem_outs)
        if (!in_pairs.count(k)) w.store_elem(k, w.stored(ieee, k, I(ind + 1)), ind + 1, "row", "col", vector_path);
      c += I(ind) + "}\n";
      --ind;
      c += I(ind) + "}\n" + I(ind) + "}\n";
    }
    c.insert(loop_at, pl.loop());
    w.row_base = chunk_bases;
    w.hoisted = chunk_hoisted;
    if (vector_path) w.store_vectors(elem_outs, ind, "row", "col0");
  };
  if (one_row) {
    // One row of R x C elements: vector i0 finds its row and column; where it crosses a row
    // end (or the end), its elements find their own, from nothing hoisted for the row.
    // index32: the indices are 32-bit (R x C and every offset fit: fits_index32).
    // Interleaved (P.interleave): a warp's chunk is 32 x VEC elements, lane l's the l-th of each
    // 32, so its first and last lie (VEC - 1) x 32 apart.
    const std::string ix = P.index32 ? "unsigned" : "i64";
    c += "  (void)UNROLL;\n  const " + ix + " N = (" + ix + ")(R * C), CX = (" + ix + ")C;\n";
    c += "  for (" + ix + " chunk = blockIdx.x; chunk * (THREADS * VEC) < N; chunk += gridDim.x) {\n";
    if (P.interleave)
      c += "    const " + ix + " i0 = chunk * (THREADS * VEC) + (threadIdx.x & ~31u) * VEC + (threadIdx.x & 31u);\n    if (i0 >= N) continue;\n";
    else
      c += "    const " + ix + " i0 = (chunk * THREADS + threadIdx.x) * VEC;\n    if (i0 >= N) continue;\n";
    c += "    const " + ix + " row = i0 / CX, col0 = i0 - row * CX;\n";
    row_setup(2);
    // Every Full operand a vector at the flat index (dense, or full/dims in runs: segments) and
    // no window: a chunk across one row end takes the vector path too, each element's row parts
    // and row-constant values chosen by its row, so the whole vectors and those across a row end
    // run one path (no divergent element loop in the warps that hold a row end: rows of 333 f16
    // end inside 3 of 4 warps' 256 elements).
    bool one_row_vectors = !P.interleave && P.col_vec == 1;
    for (int k = 0; k < static_cast<int>(w.plan.operands.size()); ++k)
      one_row_vectors = one_row_vectors && w.window_dim(w.op(k).value) < 0 && (w.op(k).access != Access::Full || w.vectorized(k));
    // A chunk across one row end: each operand's row part and row-constant value for the next
    // row too (`guard`: computed only where the chunk crosses), and per element the choice
    // between them (into `bases`, `hoisted`).
    auto next_row = [&](const std::string& guard, std::map<int, std::string>& bases, std::map<int, std::string>& hoisted) {
      auto pick = [&](const std::string& name, const std::string& next) {
        c += "      const auto n" + name + " = " + (guard.empty() ? next : guard + " ? " + next + " : " + name) + ";\n";
        return "(nx ? n" + name + " : " + name + ")";
      };
      for (const auto& [k, name] : w.row_base) bases[k] = pick(name, w.flat_row_part(k, "(row0 + 1)"));
      for (const auto& [k, name] : w.hoisted)
        if (w.op(k).access == Access::Row)
          hoisted[k] = pick(name, w.ptr(k) + "[" + (w.row_base.count(k) ? "n" + w.row_base.at(k) : w.offset(k, "(row0 + 1)", "0")) + "]");
    };
    // The last branch, a chunk across several row ends or the domain's end (its elements one by
    // one, nothing of the row's hoisted), and the kernel's end.
    auto elements_and_end = [&] {
      const std::map<int, std::string> hoisted = w.hoisted, bases = w.row_base;
      c += "    } else {\n";
      for (const auto& [k, name] : bases) w.row_base.erase(k);
      for (const auto& [k, name] : hoisted)
        if (w.op(k).access == Access::Row) w.hoisted.erase(k);
      chunk_body(false, 3, false, true);
      w.hoisted = hoisted;
      w.row_base = bases;
      c += "    }\n  }\n";
      if (full) write_grid_combine(w, acc, post_outs, ks_out);
      c += "}\n";
    };
    if (one_row_vectors) {
      c += "    if (CX >= VEC && i0 + VEC <= N) {\n      const auto row0 = row;\n      const bool cross = col0 + VEC > CX;\n";
      next_row("cross", loop_bases, loop_hoisted);
      chunk_body(true, 3, false, false, true);
      loop_bases.clear();
      loop_hoisted.clear();
      elements_and_end();
      return;
    }
    // A chunk inside its row, then one crossing a row end (rows longer than a thread's reach,
    // not the domain's last chunk).
    const std::string in_row_test = P.interleave ? "col0 + 32 * (VEC - 1) < C" : "col0 + VEC <= C",
                      one_end_test = P.interleave ? "CX > 32 * (VEC - 1) && i0 + 32 * (VEC - 1) < N" : "CX >= VEC && i0 + VEC <= N";
    c += "    if (" + in_row_test + ") {\n";
    if (P.interleave) chunk_body(false, 3, false, false, false, true);
    else chunk_body(true, 3, false);
    c += "    } else if (" + one_end_test + ") {\n      const auto row0 = row;\n";
    const std::map<int, std::string> hoisted = w.hoisted, bases = w.row_base;
    std::map<int, std::string> next_bases, next_hoisted;
    next_row("", next_bases, next_hoisted);
    for (const auto& [k, e] : next_bases) w.row_base[k] = e;
    for (const auto& [k, e] : next_hoisted) w.hoisted[k] = e;
    chunk_body(false, 3, false, true, true);
    w.hoisted = hoisted;
    w.row_base = bases;
    elements_and_end();
    return;
  }
  if (rows_in_flight) {
    // Rows in flight (row_unroll = RU): RU consecutive rows per block step, each thread one
    // vector of each (blockIdx.x: the row's pass of THREADS x VEC elements, launch_grid). Each
    // thread first takes every row's setup (row parts, row-constant loads, phase) and issues its
    // vector loads of all RU rows, then computes and stores them: one row at a time, the
    // bounds checks and each row's stores kept the next row's loads from being issued before
    // (one vector per thread in flight). Consecutive rows: a step's RU rows lie side by side
    // (one span of dense operands, RU neighbouring elements of a [B, M, 1] operand). Rows past
    // R are skipped; a partial vector (a row's phased or tail ends) takes the element path.
    // With index32 (rows below 2^30, every offset within 31 bits) the row, its offsets at row
    // strides are 32-bit (the column is, the rows' span below 2^31: launch_grid): #053's kernel
    // took 70 registers with 64-bit ones, 48 so. The prefetch slots start zeroed: a slot a row's
    // partial vector leaves unloaded, read by nothing, made ptxas spill (4 bytes, 64 registers).
    w.rows32 = P.index32;
    w.unit_vectors = P.vec == 1;
    const std::string row_t = P.index32 ? "int" : "i64", row_at = P.index32 ? "(int)rowb + r" : "rowb + r";
    c += "  constexpr int RU = " + num(P.row_unroll) + ";\n  (void)UNROLL;\n";
    c += "  for (i64 rowb = (i64)blockIdx.y * RU; rowb < R; rowb += (i64)gridDim.y * RU) {\n";
    for (int k : ins)
      if (w.vectorized(k)) c += "    " + w.in_vec_type(k) + " pf" + num(k) + "[RU] = {};\n";
    // The loads of each row, after its setup; the setup's values carried to the compute loop.
    const size_t declared = c.size();
    c += "#pragma unroll\n    for (int r = 0; r < RU; ++r) {\n      const " + row_t + " row = " + row_at + ";\n      if (row < R) {\n";
    row_setup(4);
    if (phased) {
      c += "        const int ph = " + phase_of_row() + ";\n";
      row_vars.emplace_back("int", "ph");
    }
    std::string carried;
    for (const auto& [type, name] : row_vars) {
      carried += "    " + type + " " + name + "_r[RU];\n";
      c += "        " + name + "_r[r] = " + name + ";\n";
    }
    c.insert(declared, carried);
    c += "        const int col0 = ((int)blockIdx.x * THREADS + (int)threadIdx.x) * VEC" + shift + ";\n";
    c += "        if (" + in_row + "col0 + VEC <= C) {\n";
    for (int k : ins)
      if (w.vectorized(k)) {  // a pad's vector only inside its window (outside, its source may end)
        const std::string win = w.window_of(w.op(k).value, "row", "col0"), ld = w.vector_load(k, "row", "col0");
        c += "          pf" + num(k) + "[r] = " + (win.empty() ? ld : win + " ? " + ld + " : " + w.in_vec_type(k) + "{}") + ";\n";
      }
    c += "        }\n      }\n    }\n";
    c += "#pragma unroll\n    for (int r = 0; r < RU; ++r) {\n      const " + row_t + " row = " + row_at + ";\n      if (row >= R) break;\n";
    for (const auto& [type, name] : row_vars) c += "      const " + type + " " + name + " = " + name + "_r[r];\n";
    c += "      const int col0 = ((int)blockIdx.x * THREADS + (int)threadIdx.x) * VEC" + shift + ";\n";
    c += "      if (" + in_row + "col0 + VEC <= C) {\n";
    pf_at = "r";
    chunk_body(true, 4, true);
    c += "      } else if (col0 < C) {\n";
    chunk_body(false, 4, false);
    c += "      }\n    }\n  }\n";
    if (full) write_grid_combine(w, acc, post_outs, ks_out);
    c += "}\n";
    w.rows32 = w.unit_vectors = false;
    return;
  }
  c += "    for (i64 chunk = blockIdx.x; chunk * (THREADS * UNROLL * VEC) < " + span + "; chunk += gridDim.x) {\n";
  if (P.unroll > 1) {
    // A tile wholly in bounds issues all its loads before the first use: in the bounds-checked
    // form below, the compiler cannot hoist a load past the previous chunk's branch, so each
    // thread had one load in flight (the 2^21 W2 kernel waited on memory UNROLL times).
    c += "      const i64 tile0 = chunk * (THREADS * UNROLL * VEC)" + shift + ";\n";
    c += "      if (" + (phased ? std::string("tile0 >= 0 && ") : std::string()) + "tile0 + THREADS * UNROLL * VEC <= C) {\n";
    for (int k : ins)
      if (w.vectorized(k))
        c += "        " + w.in_vec_type(k) + " pf" + num(k) + "[UNROLL];\n";
    c += "#pragma unroll\n        for (int u = 0; u < UNROLL; ++u) {\n";
    c += "          const i64 col0 = tile0 + (u * THREADS + threadIdx.x) * VEC;\n";
    for (int k : ins)
      if (w.vectorized(k)) {  // a pad's vector only inside its window (outside, its source may end)
        const std::string win = w.window_of(w.op(k).value, "row", "col0"), ld = w.vector_load(k, "row", "col0");
        c += "          pf" + num(k) + "[u] = " + (win.empty() ? ld : win + " ? " + ld + " : " + w.in_vec_type(k) + "{}") + ";\n";
      }
    c += "        }\n";
    c += "#pragma unroll\n        for (int u = 0; u < UNROLL; ++u) {\n";
    c += "          const i64 col0 = tile0 + (u * THREADS + threadIdx.x) * VEC;\n";
    chunk_body(true, 5, true);
    c += "        }\n        continue;\n      }\n";
  }
  // With UNROLL > 1 (single rows of at least 2^20 elements) only the domain's last chunk takes
  // this form, so its loops stay rolled: the kernel holds the unrolled tile once rather than
  // twice more, and its compile takes about half the time where the element math is long
  // (perf-notes 2026-12-04 20:30). Not in full reductions (their accumulators live across the
  // rolled loop: at a 32-register cap that spilled, W2), nor beside a pad's window (its masks
  // did too: seed 51 #100, a cat).
  bool windows = false;
  for (int k = 0; k < static_cast<int>(w.plan.operands.size()); ++k) windows |= w.window_dim(w.op(k).value) >= 0;
  rolled_tail = P.unroll > 1 && !full && !windows;
  c += std::string(rolled_tail ? "#pragma unroll 1\n" : "#pragma unroll\n") + "      for (int u = 0; u < UNROLL; ++u) {\n";
  c += "        const i64 col0 = ((chunk * UNROLL + u) * THREADS + threadIdx.x) * VEC" + shift + ";\n";
  c += "        if (" + in_row + "col0 + VEC <= C) {\n";
  chunk_body(true, 5, false);
  c += "        } else if (col0 < C) {\n";
  chunk_body(false, 5, false);
  c += "        }\n      }\n    }\n  }\n";
  rolled_tail = false;
  if (full) write_grid_combine(w, acc, post_outs, ks_out);
  c += "}\n";
}

}  // namespace solder::codegen_detail
