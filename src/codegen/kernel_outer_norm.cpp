// Outer persistent normalizations (see schedule/outer_norm_scheduler.cpp): the domain seen as
// [RR reduced rows, K kept columns], kept innermost; the kernel order stays [kept | reduced]
// (p.R = K, p.C = RR). A block is TX threads along the kept columns, each owning VEC contiguous
// columns (16-byte loads), times TY threads along the rows. Pass q computes what the level-q+1
// reductions read, row by row of the thread, and accumulates VEC partials each; the block
// combines them (shuffles between the lanes of a column, then the warps' partials through
// shared memory in warp order: the same bits every run) and every thread takes its columns'
// statistics. The last pass computes the element outputs and stores them; kept-level outputs
// are stored by thread row 0. Element math is recomputed in every pass from the inputs: with
// `batch` > 0 those are held in registers, read from memory once (or, where an input reaches the
// passes through one value of its size, that value: held_cuts); with batch 0 each pass reads
// them again (rows too long to hold); with `smem_rows` = S the first S held slots are in dynamic
// shared memory (cp.async), the rest in registers. General inputs (their reduced rows
// unit-stride, their kept columns not: a contiguous residual beside a transposed input) are
// read element by element, VEC loads a row, held like a Full input's vector (never in shared
// memory); a warp's TY = 32 / TX lanes of a column read contiguous rows, whole sectors at TX
// <= 2 for 16-bit types. Inputs that vary along the rows only (weights) are read
// where used. var_mean is one Welford step (Chan's merge across threads), so a layer norm takes
// two passes.
//
// Rows come in chunks of TY: chunk q holds rows q TY .. q TY + TY - 1, thread row ty its row
// q TY + ty. A block takes chunks crank, crank + CL, ...: with `cluster` = CL > 1 (Hopper) the
// reduced rows of a kept tile are split over the CL blocks of a thread-block cluster, each
// combining its own rows as above; then every block pushes its totals into every block's
// exchange slots (st.async into distributed shared memory, counted on the receiver's mbarrier,
// one per step) and each combines the CL totals in rank order, so all blocks of the cluster
// have the same bits. One split cluster barrier orders the mbarriers' set-up before the first
// push (arrive after the set-up, wait before the push, so the loads are already in flight), and
// one keeps every block alive until no other can push into it (arrive after the last exchange,
// wait before leaving).
//
// Staged outputs (`staged`): an output whose kept columns are not unit-stride (the contiguous
// output of a norm over a transposed view: General in the view) is written chunk by chunk into a
// shared-memory tile [TX VEC columns][TY rows] (rows contiguous, 16-byte pieces XOR-swizzled
// by the writing thread's tx, so a warp's writes and reads are free of bank conflicts), and
// after a barrier the block stores each column's rows as 16-byte vectors along the output's
// own fastest dim (element by element where the rows are not unit-stride or aligned, or at
// the rows' end). Two tiles alternate: one barrier per chunk.
#include <algorithm>

#include "codegen/kernel_writer.h"
#include "solder/error.h"
#include "schedule/outer_view.h"

namespace solder::codegen_detail {

namespace {

class OuterNormWriter {
 public:
  OuterNormWriter(Writer& w) : w_(w), P_(w.plan.params), c_(w.code), sp_(plan_stages(w.f, w.seg, w.ks, false, false)) {
    ty_n_ = P_.rows_per_block;
    tx_n_ = P_.threads / P_.rows_per_block;
    // The block combine pairs the lanes of one column inside a warp (TY = 32 / TX of them): a
    // tile wider than a warp computed wrong values on the H100 (TX 64 over 3 rows).
    if (tx_n_ > 32)
      throw Error("plan for kernel " + w.plan.name + " (" + P_.str() + "): an outer normalization takes at most 32 threads along the kept columns (threads / rows_per_block = " +
                  std::to_string(tx_n_) + ")");
    cl_ = P_.cluster;
    for (int k = 0; k < static_cast<int>(w.plan.operands.size()); ++k) {
      if (!w.op(k).is_output) continue;
      (is(k, Access::Full) || is(k, Access::General) ? elem_outs_ : kept_outs_).push_back(k);
      if (P_.staged && is(k, Access::General)) staged_.push_back(k);
    }
    std::vector<int> all;
    for (const auto& st : sp_.steps) all.push_back(st.input);
    for (int k : elem_outs_) all.push_back(w.op(k).value);
    for (int k : kept_outs_) all.push_back(w.op(k).value);
    ins_ = w.element_inputs(all, [](int) { return false; });
    for (const auto& st : sp_.steps) {
      const int b = accumulator_bytes(acc_t(st)), planes = st.welford ? 3 : 1;
      nb_.planes = std::max(nb_.planes, planes);
      nb_.plane_bytes = std::max(nb_.plane_bytes, b);
      nb_.exchange_per_column += planes * b;
      ++nb_.steps;
    }
    for (int k : staged_) nb_.staged_elem_bytes += dtype_size(w.dt(w.op(k).value));
    if (P_.batch > 0) {
      std::vector<int> held;
      for (int k : ins_)
        if (is(k, Access::Full) || is(k, Access::General)) held.push_back(w.op(k).value);
      for (const HeldCut& c : held_cuts(w.f, w.seg, sp_, held)) cut_[w.operand_index.at(c.input)] = c.value;
    }
    if (P_.staged && staged_.empty()) throw Error("codegen: " + w.plan.name + ": staged, but no output is addressed General");
    if (P_.staged && int64_t{ty_n_} * dtype_size(w.dt(w.op(staged_.front()).value)) % 16)
      throw Error("codegen: " + w.plan.name + ": staged outputs need 16 bytes of rows per column (TY = " + num(ty_n_) + ")");
  }

  void write() {
    c_ += outer_device_helpers(P_.kept_run);
    prologue();
    if (P_.batch > 0) {
      held_loads();
      held_cut_values();
    }
    for (int level = 1; level <= sp_.max_level; ++level) reduction_pass(level);
    output_pass();
    if (cl_ > 1) c_ += "  cluster_wait();  // no block of the cluster pushes into this one any more\n";
    c_ += "}\n";
  }

 private:
  bool is(int k, Access a) const { return w_.op(k).access == a; }
  // A General input of 16-bit elements held in pairs (VEC even).
  bool general_pairs(int k) const { return is(k, Access::General) && P_.vec % 2 == 0 && t_of(k) == "u16"; }
  std::string t_of(int k) const { return storage_type(w_.dt(w_.op(k).value)); }
  // Operand k's offset of this thread's column kc0 + j (VEC divides HK: one outer kept index).
  std::string kept_off(int k, const std::string& j) const {
    if (is(k, Access::Scalar) || is(k, Access::Row)) return "0";
    return "ka * sa" + num(k) + " + " + (is(k, Access::Full) ? "kr + " + j : "(kr + " + j + ") * si" + num(k));
  }
  // The row of thread row ty in chunk `q` (an expression), and of held slot i.
  std::string chunk_row(const std::string& q) const { return "(" + q + ") * TY + ty"; }
  // Held rows fit in registers, so RR < 2^31: 32-bit rows (RH = RR).
  std::string held_row() const { return cl_ > 1 ? "ry + i * RS" : "ty + i * TY"; }

  void prologue() {
    const int rank = static_cast<int>(w_.ks.dim_order.size()), split = w_.ks.split;
    c_ += "extern \"C\" __global__ void " + w_.launch_bounds(P_.min_blocks) + " " + w_.plan.name + "(const Params p) {\n";
    c_ += "  constexpr int VEC = " + num(P_.vec) + ", TX = " + num(tx_n_) + ", TY = " + num(ty_n_) + ", THREADS = " +
          num(P_.threads) + ", W = THREADS / 32" + (cl_ > 1 ? ", CL = " + num(cl_) + ", RS = CL * TY" : std::string()) + ";\n";
    w_.pointers(1);
    c_ += "  const i64 K = p.R, RR = p.C;  // kept columns, reduced rows\n";
    c_ += "  const int tx = threadIdx.x % TX, ty = threadIdx.x / TX;\n";
    if (cl_ > 1) {
      c_ += "  // The cluster's blocks share a kept tile: block crank takes row chunks crank, crank + CL, ...\n";
      c_ += "  const unsigned crank = cluster_rank();\n  const i64 tile = blockIdx.x / CL;\n";
      if (P_.batch > 0) c_ += "  const int ry = (int)crank * TY + ty;  // the thread's first row\n";
    } else {
      c_ += "  const i64 tile = blockIdx.x;\n";
    }
    c_ += "  const i64 kc = (tile * TX + tx) * VEC;\n";
    c_ += "  const bool act = kc < K;  // VEC divides K: a thread's vector is whole or out of range\n";
    c_ += "  const i64 kc0 = act ? kc : 0;  // out-of-range threads load column 0 and store nothing\n";
    int first_full = -1;
    for (int k : ins_)
      if (is(k, Access::Full) && first_full < 0) first_full = k;
    if (first_full < 0) throw Error("codegen: " + w_.plan.name + ": an outer normalization without a column input");
    c_ += P_.kept_run ? "  i64 HK;\n  const int KI = outer_kept_split<" + num(static_cast<int>(w_.plan.operands.size())) + ", " +
                            num(split) + ">(p, " + num(first_full) + ", HK);\n"
                      : "  i64 HK;\n  const int KI = outer_kept_split(p, " + num(first_full) + ", " + num(split) + ", HK);\n";
    for (int k = 0; k < static_cast<int>(w_.plan.operands.size()); ++k) {
      const std::string n = num(k);
      const bool rows = is(k, Access::Full) || is(k, Access::Row) || is(k, Access::General);
      const bool kept = is(k, Access::Full) || is(k, Access::Col) || is(k, Access::General);
      if (rows) c_ += "  const i64 rs" + n + " = outer_stride(p, " + n + ", " + num(split) + ", " + num(rank) + ");\n";
      if (kept) c_ += "  const i64 sa" + n + " = outer_stride(p, " + n + ", 0, KI);\n";
      if (is(k, Access::Col) || is(k, Access::General))
        c_ += "  const i64 si" + n + " = outer_stride(p, " + n + ", KI, " + num(split) + ");\n";
    }
    c_ += "  const i64 ka = kc0 / HK, kr = kc0 % HK;\n";
    for (int k = 0; k < static_cast<int>(w_.plan.operands.size()); ++k)
      if (is(k, Access::Full)) c_ += "  const i64 kb" + num(k) + " = ka * sa" + num(k) + " + kr;\n";
    // A General input's column kc0 (its elements j at j * si: VEC divides HK).
    for (int k : ins_)
      if (is(k, Access::General))
        c_ += "  const " + t_of(k) + "* const gb" + num(k) + " = " + w_.ptr(k) + " + ka * sa" + num(k) + " + kr * si" + num(k) + ";\n";
    // The block combine: per plane, the warps' partials [W][VEC][TX] then the totals [VEC][TX];
    // the staged outputs' tiles alias it (outer_norm_smem).
    const OuterNormSmem sm = outer_norm_smem(P_, nb_);
    c_ += "  __shared__ __align__(16) unsigned char osm[" + num(std::max(sm.combine, sm.staging)) + "];\n";
    if (cl_ > 1) cluster_setup(sm);
    for (int k : ins_) {
      const std::string t = t_of(k);
      if (is(k, Access::Scalar)) c_ += "  const " + t + " hs" + num(k) + " = " + w_.ptr(k) + "[0];\n";
      if (is(k, Access::Col))
        c_ += "  " + t + " hc" + num(k) + "[VEC];\n#pragma unroll\n  for (int j = 0; j < VEC; ++j) hc" + num(k) + "[j] = " +
              w_.ptr(k) + "[" + kept_off(k, "j") + "];\n";
    }
  }

  // The exchange slots of every step (every block's totals, [CL][planes][VEC][TX]) and their
  // mbarriers, set up before any block of the cluster pushes (cluster_arrive here, the wait
  // before the first push).
  void cluster_setup(const OuterNormSmem& sm) {
    c_ += "  __shared__ __align__(16) unsigned char ocx[" + num(sm.exchange - 16 * nb_.steps) + "];\n";
    c_ += "  __shared__ __align__(8) unsigned long long omb[" + num(nb_.steps) + "];\n";
    c_ += "  if (threadIdx.x == 0) {\n";
    for (int i = 0; i < nb_.steps; ++i) c_ += "    mbar_init((unsigned)__cvta_generic_to_shared(&omb[" + num(i) + "]), 1);\n";
    c_ += "    mbar_init_fence();\n  }\n  cluster_arrive();\n";
  }

  // The loads of row `r` (in bounds) into slot `s` of the held or loaded arrays. Held rows
  // (prefix "h") hold the column inputs only; rows re-read also load the row inputs ahead.
  void row_loads(int ind, const std::string& r, const std::string& s, const std::string& prefix) {
    for (int k : ins_) {
      const std::string base = w_.ptr(k) + " + (i64)(" + r + ") * rs" + num(k);
      if (is(k, Access::Full)) {
        const std::string ld = w_.in_pairs(k) ? "ld_vec<unsigned, VEC / 2>((const unsigned*)(" + base + " + kb" + num(k) + "))"
                                              : "ld_vec<" + t_of(k) + ", VEC>(" + base + " + kb" + num(k) + ")";
        c_ += I(ind) + prefix + num(k) + "[" + s + "] = " + ld + ";\n";
      }
      // General inputs (reduced rows unit-stride, kept columns not): VEC element loads, a warp's
      // lanes of one column reading TY = 32 / TX contiguous rows.
      // 16-bit elements packed in pairs (half the held registers).
      if (is(k, Access::General)) {
        const std::string g = "(gb" + num(k) + " + (i64)(" + r + ") * rs" + num(k) + ")";
        if (general_pairs(k))
          c_ += "#pragma unroll\n" + I(ind) + "for (int j = 0; j < VEC / 2; ++j) " + prefix + num(k) + "[" + s + "].e[j] = (unsigned)" + g +
                "[(2 * j) * si" + num(k) + "] | (unsigned)" + g + "[(2 * j + 1) * si" + num(k) + "] << 16;\n";
        else
          c_ += "#pragma unroll\n" + I(ind) + "for (int j = 0; j < VEC; ++j) " + prefix + num(k) + "[" + s + "].e[j] = " + g + "[j * si" +
                num(k) + "];\n";
      }
      if (is(k, Access::Row) && prefix != "h") c_ += I(ind) + prefix + "r" + num(k) + "[" + s + "] = (" + base + ")[0];\n";
    }
  }
  void row_decls(int ind, const std::string& n, const std::string& prefix) {
    for (int k : ins_) {
      if (is(k, Access::Full) || is(k, Access::General)) c_ += I(ind) + held_vec_type(k) + " " + prefix + num(k) + "[" + n + "];\n";
      if (is(k, Access::Row) && prefix != "h") c_ += I(ind) + t_of(k) + " " + prefix + "r" + num(k) + "[" + n + "];\n";
    }
  }

  // Held rows: every slot's loads first (rows past RR load row 0: in bounds, never used). With
  // smem_rows = SR, slots i < SR go to dynamic shared memory by cp.async ([input][slot][thread]:
  // a warp's vectors are contiguous, no bank conflicts; each thread reads back only its own
  // slots, after its own wait, so no barrier), the rest to registers.
  void held_loads() {
    c_ += "  constexpr int B = " + num(P_.batch) + ";  // rows held per thread: " +
          (cl_ > 1 ? "chunk i * CL + crank's" : "ty + i * TY") + "\n";
    c_ += "  const int RH = (int)RR;\n";
    const int sr = P_.smem_rows;
    if (sr == 0) {
      row_decls(1, "B", "h");
      c_ += "#pragma unroll\n  for (int i = 0; i < B; ++i) {\n    const int r = " + held_row() + ";\n";
      row_loads(2, "i < B - 1 || r < RH ? r : 0", "i", "h");
      c_ += "  }\n";
      return;
    }
    for (int k : ins_)
      if (is(k, Access::General))
        throw Error("codegen: " + w_.plan.name + ": smem_rows holds Full inputs' vectors only (input " + num(k) + " is General)");
    c_ += "  constexpr int SR = " + num(sr) + ";  // of them, slots i < SR in shared memory, the rest in registers\n";
    c_ += "  extern __shared__ __align__(16) unsigned char dyn_smem[];\n";
    c_ += "  const unsigned dsm = (unsigned)__cvta_generic_to_shared(dyn_smem);\n";
    row_decls(1, "(B - SR > 0 ? B - SR : 1)", "h");
    int64_t off = 0;
    for (int k : ins_) {
      if (!is(k, Access::Full)) continue;
      const int vb = P_.vec * dtype_size(w_.dt(w_.op(k).value));
      if (vb != 4 && vb != 8 && vb != 16)
        throw Error("codegen: " + w_.plan.name + ": smem_rows copies 4, 8 or 16-byte vectors (" + num(vb) + " bytes here: a wider vec)");
      smem_off_[k] = off;
      off += int64_t{sr} * P_.threads * vb;
    }
    if (off != P_.dyn_smem)
      throw Error("codegen: " + w_.plan.name + ": dyn_smem (" + num(P_.dyn_smem) + ") is not the held rows' " + num(off) + " bytes");
    c_ += "#pragma unroll\n  for (int i = 0; i < B; ++i) {\n    const int r = " + held_row() + ";\n";
    c_ += "    const int rl = i < B - 1 || r < RH ? r : 0;\n";
    for (int k : ins_) {
      if (!is(k, Access::Full)) continue;
      const int vb = P_.vec * dtype_size(w_.dt(w_.op(k).value));
      const std::string src = w_.ptr(k) + " + (i64)rl * rs" + num(k) + " + kb" + num(k);
      const std::string ld = w_.in_pairs(k) ? "ld_vec<unsigned, VEC / 2>((const unsigned*)(" + src + "))"
                                            : "ld_vec<" + t_of(k) + ", VEC>(" + src + ")";
      c_ += "    if (i < SR) cp_async<" + num(vb) + ">(dsm + " + num(smem_off_[k]) + "u + (unsigned)(i * THREADS + threadIdx.x) * " +
            num(vb) + "u, " + src + ");\n";
      c_ += "    else h" + num(k) + "[i < SR ? 0 : i - SR] = " + ld + ";\n";
    }
    c_ += "  }\n  cp_async_commit();\n  cp_async_wait_all();  // this thread's slots (it reads no other's)\n";
  }
  // Held slot `s` of Full input k: registers, or (smem_rows) shared memory for s < SR. In a
  // held row's body (s == "i") the slot's vector is read once into hx<k> (held_slot_values).
  std::string held_ref(int k, const std::string& s) const {
    if (P_.smem_rows == 0) return "h" + num(k) + "[" + s + "]";
    if (s == "i") return "hx" + num(k);
    return "(" + s + " < SR ? " + smem_slot(k, s) + " : h" + num(k) + "[" + s + " < SR ? 0 : " + s + " - SR])";
  }
  std::string smem_slot(int k, const std::string& s) const {
    return "reinterpret_cast<const " + w_.in_vec_type(k) + "*>(dyn_smem + " + num(smem_off_.at(k)) + ")[(" + s +
           ") * THREADS + threadIdx.x]";
  }
  void held_slot_values(int ind) {
    if (P_.smem_rows == 0) return;
    for (int k : ins_)
      if (is(k, Access::Full))
        c_ += I(ind) + "const " + w_.in_vec_type(k) + " hx" + num(k) + " = i < SR ? " + smem_slot(k, "i") + " : h" + num(k) +
              "[i < SR ? 0 : i - SR];\n";
  }

  // A Full or General input's vector of a row (held or loaded; 16-bit elements in pairs or not)
  // and its element j.
  bool held_pairs(int k) const { return is(k, Access::Full) ? w_.in_pairs(k) : general_pairs(k); }
  std::string held_vec_type(int k) const {
    return is(k, Access::Full) ? w_.in_vec_type(k) : general_pairs(k) ? "Vec<unsigned, VEC / 2>" : "Vec<" + t_of(k) + ", VEC>";
  }
  std::string held_element(int k, const std::string& vec) const {
    return held_pairs(k) ? "half_of(" + vec + ".e[j / 2], j & 1)" : vec + ".e[j]";
  }
  // Held cuts (held_cuts): each held slot of a cut input takes its cut value's bits, in place,
  // computed once here instead of in every pass.
  void held_cut_values() {
    if (cut_.empty()) return;
    c_ += "  // Held inputs that reach the passes through one value of their size hold that value.\n";
    c_ += "#pragma unroll\n  for (int i = 0; i < B; ++i) {\n";
    const int sr = P_.smem_rows;
    for (const auto& [k, v] : cut_) {
      const std::string n = num(k);
      const bool full = is(k, Access::Full), pairs = held_pairs(k);
      const std::string type = held_vec_type(k);
      const std::string reg = "h" + n + (full && sr > 0 ? "[i < SR ? 0 : i - SR]" : "[i]");
      const std::string smem = full && sr > 0 ? "reinterpret_cast<const " + type + "*>(dyn_smem + " + num(smem_off_.at(k)) + ")[i * THREADS + threadIdx.x]" : "";
      c_ += "    {  // input " + n + " holds v" + num(v) + "\n";
      c_ += "      " + type + " cv" + n + " = " + (smem.empty() ? reg : "i < SR ? " + smem + " : " + reg) + ";\n";
      // Pairs: two (pre-rounded) floats to one word in one conversion (f16_pair).
      c_ += "      " + std::string(pairs ? "float" : storage_type(w_.dt(v))) + " cb[VEC];\n";
      c_ += "#pragma unroll\n      for (int j = 0; j < VEC; ++j) {\n";
      ExprEmitter em = emitter("c", "");
      const std::string x = em.value(v, c_, I(4));
      c_ += "        cb[j] = " + (pairs ? x : store_convert(w_.dt(v), x)) + ";\n      }\n";
      if (pairs)
        c_ += "#pragma unroll\n      for (int j = 0; j < VEC / 2; ++j) cv" + n + ".e[j] = " + (w_.dt(v) == DType::BF16 ? "bf16" : "f16") +
              "_pair(cb[2 * j], cb[2 * j + 1]);\n";
      else c_ += "#pragma unroll\n      for (int j = 0; j < VEC; ++j) cv" + n + ".e[j] = cb[j];\n";
      if (smem.empty()) c_ += "      " + reg + " = cv" + n + ";\n";
      else
        c_ += "      if (i < SR) st_shared<" + type + ">(dsm + " + num(smem_off_.at(k)) + "u + (unsigned)(i * THREADS + threadIdx.x) * (unsigned)sizeof(" + type +
              "), cv" + n + ");\n      else " + reg + " = cv" + n + ";\n";
      c_ += "    }\n";
    }
    c_ += "  }\n";
    // The passes read the slots back as ordinary loads: none moves above the stores, and none
    // is answered from the stored registers (which would keep every slot in registers).
    if (sr > 0) c_ += "  asm volatile(\"\" ::: \"memory\");\n";
  }

  // The element expression of input / result values for slot `s` of arrays `prefix`, at row r.
  ExprEmitter emitter(const std::string& prefix, const std::string& s) {
    ExprEmitter em(w_.f, [this, prefix, s](int v) -> std::string {
      if (auto it = results_.find(v); it != results_.end()) return it->second + "[j]";
      if (prefix == "h")
        for (const auto& [k, cv] : cut_)
          if (cv == v) return load_convert(w_.dt(v), held_element(k, is(k, Access::Full) ? held_ref(k, s) : "h" + num(k) + "[" + s + "]"));
      if (!w_.is_input(v)) return "";
      const int k = w_.operand_index.at(v);
      const DType t = w_.dt(v);
      if (prefix == "c" && cut_.count(k)) return load_convert(t, held_element(k, "cv" + num(k)));
      switch (w_.op(k).access) {
        case Access::Full: return load_convert(t, held_element(k, prefix == "h" ? held_ref(k, s) : prefix + num(k) + "[" + s + "]"));
        case Access::General: return load_convert(t, held_element(k, prefix + num(k) + "[" + s + "]"));
        case Access::Row:
          return load_convert(t, prefix == "h" ? w_.ptr(k) + "[r * rs" + num(k) + "]" : prefix + "r" + num(k) + "[" + s + "]");
        case Access::Col: return load_convert(t, "hc" + num(k) + "[j]");
        default: return load_convert(t, "hs" + num(k));
      }
    });
    em.set_narrow_results(w_.narrow_results());
    return em;
  }

  // Each row of the thread, its slot's values in `body(prefix, slot, ind)`, rows past RR
  // skipped; `after(chunk, ind)` follows every slot, outside the row's test (all threads run it:
  // the staged outputs' barrier). Held rows: only the last slot can be past RR. Re-read rows
  // walk the block's chunks (the same count for every thread), odd passes backwards, starting on
  // what the pass before read last (still in L2).
  template <class Body, class After> void each_row(const Body& body, const After& after) {
    if (P_.batch > 0) {
      c_ += "#pragma unroll\n  for (int i = 0; i < B; ++i) {\n    const int r = " + held_row() + ";\n"
            "    if (i < B - 1 || r < RH) {\n";
      held_slot_values(3);
      body("h", "i", 3);
      c_ += "    }\n";
      after(cl_ > 1 ? "(i64)i * CL + crank" : "(i64)i", 2);
      c_ += "  }\n";
      return;
    }
    const bool back = pass_++ % 2 == 1;
    const int u = P_.unroll;
    const std::string m = back ? "nch - 1 - (m0 + u)" : "m0 + u";
    const std::string q = cl_ > 1 ? "(" + m + ") * CL + crank" : m;
    c_ += "  for (i64 m0 = 0; m0 < nch; m0 += " + num(u) + ") {\n";
    row_decls(2, num(u), "l");
    c_ += "#pragma unroll\n    for (int u = 0; u < " + num(u) + "; ++u) {\n      const i64 r = " + chunk_row(q) + ";\n";
    row_loads(3, "m0 + u < nch && r < RR ? r : 0", "u", "l");
    c_ += "    }\n#pragma unroll\n    for (int u = 0; u < " + num(u) + "; ++u) {\n      const i64 r = " + chunk_row(q) + ";\n"
          "      if (m0 + u < nch && r < RR) {\n";
    body("l", "u", 4);
    c_ += "      }\n";
    after(q, 3);
    c_ += "    }\n  }\n";
  }
  template <class Body> void each_row(const Body& body) {
    each_row(body, [](const std::string&, int) {});
  }

  // Pass level - 1: the level's reductions over the thread's rows, then the block combine.
  void reduction_pass(int level) {
    std::vector<const ReductionStep*> steps;
    for (const auto& st : sp_.steps)
      if (st.level == level) steps.push_back(&st);
    c_ += "  // Pass " + num(level - 1) + ": the reductions of level " + num(level) + ".\n";
    if (level == 1 && P_.batch == 0) {
      c_ += "  // Chunks of TY rows this block takes (crank, crank + CL, ...; the same count in every thread).\n";
      c_ += std::string("  const i64 nch = ") + (cl_ > 1 ? "((RR + TY - 1) / TY - crank + CL - 1) / CL" : "(RR + TY - 1) / TY") + ";\n";
    }
    bool welford = false;
    for (const auto* st : steps) {
      const int i = idx(st);
      if (st->welford) {
        welford = true;
        c_ += "  float wm" + num(i) + "[VEC], wq" + num(i) + "[VEC];\n";
        c_ += "#pragma unroll\n  for (int j = 0; j < VEC; ++j) wm" + num(i) + "[j] = wq" + num(i) + "[j] = 0.f;\n";
      } else {
        const DType t = acc_t(*st);
        c_ += "  " + std::string(compute_type(t)) + " acc" + num(i) + "[VEC];\n#pragma unroll\n  for (int j = 0; j < VEC; ++j) acc" +
              num(i) + "[j] = " + red_identity(st->kind, t) + ";\n";
      }
    }
    if (welford) c_ += "  float wn" + num(level) + " = 0.f;\n";
    each_row([&](const std::string& prefix, const std::string& s, int ind) {
      if (welford) c_ += I(ind) + "wn" + num(level) + " += 1.f;\n" + I(ind) + "const float winv = __fdividef(1.f, wn" + num(level) + ");\n";
      c_ += "#pragma unroll\n" + I(ind) + "for (int j = 0; j < VEC; ++j) {\n";
      ExprEmitter em = emitter(prefix, s);
      for (const auto* st : steps) {
        const std::string x = em.value(st->input, c_, I(ind + 1)), n = num(idx(st));
        if (st->welford) {
          c_ += I(ind + 1) + "const float d" + n + " = (float)(" + x + ") - wm" + n + "[j];\n";
          c_ += I(ind + 1) + "wm" + n + "[j] += d" + n + " * winv;\n";
          c_ += I(ind + 1) + "wq" + n + "[j] += d" + n + " * ((float)(" + x + ") - wm" + n + "[j]);\n";
        } else {
          const std::string a = "acc" + n + "[j]";
          c_ += I(ind + 1) + a + " = " + combine(st->kind, a, "(" + std::string(compute_type(acc_t(*st))) + ")(" + x + ")") + ";\n";
        }
      }
      c_ += I(ind) + "}\n";
    });
    for (const auto* st : steps) combine_block(*st, level);
  }

  int idx(const ReductionStep* st) const { return static_cast<int>(st - sp_.steps.data()); }
  DType acc_t(const ReductionStep& st) const {
    return accumulator_dtype(w_.dt(w_.f.nodes()[st.node].out[0]));
  }

  // The block's partials of one step combined (and, in a cluster, the blocks' totals); every
  // thread takes its columns' totals and declares the step's results (rv<value>[VEC], as the
  // reference defines them).
  void combine_block(const ReductionStep& st, int level) {
    const std::string n = num(idx(&st));
    const Op op = st.kind == Op::Max || st.kind == Op::Min ? st.kind : Op::Sum;
    std::vector<std::pair<std::string, std::string>> planes;  // (register array, type)
    if (st.welford) planes = {{"wc" + n, "float"}, {"wm" + n, "float"}, {"wq" + n, "float"}};
    else planes = {{"acc" + n, compute_type(acc_t(st))}};
    c_ += "  {  // block combine of step " + n + "\n";
    if (st.welford) c_ += "    float wc" + n + "[VEC];\n#pragma unroll\n    for (int j = 0; j < VEC; ++j) wc" + n + "[j] = wn" + num(level) + ";\n";
    // Lanes of one column (same tx) combine by shuffles: lane ty % (32 / TX) == 0 holds the warp's.
    c_ += "#pragma unroll\n    for (int o = 16; o >= TX; o >>= 1) {\n#pragma unroll\n      for (int j = 0; j < VEC; ++j) {\n";
    if (st.welford) {
      c_ += "        const Welford x = welford_merge({wc" + n + "[j], wm" + n + "[j], wq" + n + "[j]}, {__shfl_xor_sync(0xffffffffu, wc" + n +
            "[j], o), __shfl_xor_sync(0xffffffffu, wm" + n + "[j], o), __shfl_xor_sync(0xffffffffu, wq" + n + "[j], o)});\n";
      c_ += "        wc" + n + "[j] = x.n;\n        wm" + n + "[j] = x.mean;\n        wq" + n + "[j] = x.m2;\n";
    } else {
      c_ += "        acc" + n + "[j] = " + combine(op, "acc" + n + "[j]", "__shfl_xor_sync(0xffffffffu, acc" + n + "[j], o)") + ";\n";
    }
    c_ += "      }\n    }\n";
    // Shared memory: plane pl's partials at pl * PLANE, totals after the partials.
    const std::string plane = "(W + 1) * VEC * TX * " + num(nb_.plane_bytes);
    c_ += "    const int wp = threadIdx.x / 32;\n    if ((threadIdx.x % 32) < TX) {\n#pragma unroll\n      for (int j = 0; j < VEC; ++j) {\n";
    for (size_t pl = 0; pl < planes.size(); ++pl)
      c_ += "        ((" + planes[pl].second + "*)(osm + " + num(pl) + " * " + plane + "))[(wp * VEC + j) * TX + tx] = " +
            planes[pl].first + "[j];\n";
    c_ += "      }\n    }\n    __syncthreads();\n";
    c_ += "    for (int c = threadIdx.x; c < VEC * TX; c += THREADS) {\n";
    auto at = [&](size_t pl, const std::string& i) {
      return "((" + planes[pl].second + "*)(osm + " + num(pl) + " * " + plane + "))[" + i + "]";
    };
    if (st.welford) {
      c_ += "      Welford x = {" + at(0, "c") + ", " + at(1, "c") + ", " + at(2, "c") + "};\n";
      c_ += "      for (int v = 1; v < W; ++v) x = welford_merge(x, {" + at(0, "v * VEC * TX + c") + ", " + at(1, "v * VEC * TX + c") +
            ", " + at(2, "v * VEC * TX + c") + "});\n";
      c_ += "      " + at(0, "W * VEC * TX + c") + " = x.n;\n      " + at(1, "W * VEC * TX + c") + " = x.mean;\n      " +
            at(2, "W * VEC * TX + c") + " = x.m2;\n";
    } else {
      c_ += "      " + planes[0].second + " x = " + at(0, "c") + ";\n";
      c_ += "      for (int v = 1; v < W; ++v) x = " + combine(op, "x", at(0, "v * VEC * TX + c")) + ";\n";
      c_ += "      " + at(0, "W * VEC * TX + c") + " = x;\n";
    }
    c_ += "    }\n    __syncthreads();\n";
    if (cl_ > 1) {
      combine_cluster(st, planes, plane);
    } else {
      c_ += "#pragma unroll\n    for (int j = 0; j < VEC; ++j) {\n";
      for (size_t pl = 0; pl < planes.size(); ++pl) c_ += "      " + planes[pl].first + "[j] = " + at(pl, "W * VEC * TX + j * TX + tx") + ";\n";
      c_ += "    }\n";
    }
    c_ += "  }\n";
    declare_results(st);
  }

  // A cluster: the block's totals (in osm) pushed 16 bytes at a time into slot crank of every
  // block's exchange array of this step, then the CL totals combined in rank order.
  void combine_cluster(const ReductionStep& st, const std::vector<std::pair<std::string, std::string>>& planes,
                       const std::string& plane) {
    const int i = idx(&st), pl_n = static_cast<int>(planes.size());
    const int sz = accumulator_bytes(acc_t(st));
    int off = 0;  // this step's exchange slots: after the earlier steps'
    for (int e = 0; e < i; ++e) off += cl_ * P_.vec * tx_n_ * (sp_.steps[e].welford ? 3 : 1) * accumulator_bytes(acc_t(sp_.steps[e]));
    const std::string n = num(i), PL = num(pl_n), SZ = num(sz);
    c_ += "    {  // the cluster's totals, in rank order\n";
    if (first_exchange_) c_ += "      cluster_wait();  // every block's mbarriers are set up\n";
    first_exchange_ = false;
    c_ += "      constexpr int NCH = VEC * TX * " + SZ + " / 16;  // 16-byte pieces of a plane's totals\n";
    c_ += "      const unsigned xs = (unsigned)__cvta_generic_to_shared(ocx + " + num(off) +
          "), xb = (unsigned)__cvta_generic_to_shared(&omb[" + n + "]), ts = (unsigned)__cvta_generic_to_shared(osm);\n";
    c_ += "      if (threadIdx.x == 0) mbar_expect(xb, CL * " + PL + " * VEC * TX * " + SZ + ");\n";
    c_ += "      for (int u = threadIdx.x; u < CL * " + PL + " * NCH; u += THREADS) {\n";
    c_ += "        const unsigned rk = u / (" + PL + " * NCH), pl = (u / NCH) % " + PL + ", ch = u % NCH;\n";
    c_ += "        push_cluster<uint4>(xs + ((crank * " + PL + " + pl) * NCH + ch) * 16u, xb, rk, ld_shared<uint4>(ts + pl * " + plane +
          " + W * VEC * TX * " + SZ + " + ch * 16u));\n      }\n";
    c_ += "      mbar_wait(xb, 0);\n";
    auto part = [&](int pl, const std::string& r) {
      return "((const " + planes[pl].second + "*)(ocx + " + num(off) + "))[((" + r + ") * " + PL + " + " + num(pl) +
             ") * VEC * TX + j * TX + tx]";
    };
    c_ += "#pragma unroll\n      for (int j = 0; j < VEC; ++j) {\n";
    if (st.welford) {
      c_ += "        Welford x = {" + part(0, "0") + ", " + part(1, "0") + ", " + part(2, "0") + "};\n";
      c_ += "        for (int r = 1; r < CL; ++r) x = welford_merge(x, {" + part(0, "r") + ", " + part(1, "r") + ", " + part(2, "r") + "});\n";
      c_ += "        " + planes[0].first + "[j] = x.n;\n        " + planes[1].first + "[j] = x.mean;\n        " + planes[2].first +
            "[j] = x.m2;\n";
    } else {
      const Op op = st.kind == Op::Max || st.kind == Op::Min ? st.kind : Op::Sum;
      c_ += "        " + planes[0].second + " x = " + part(0, "0") + ";\n";
      c_ += "        for (int r = 1; r < CL; ++r) x = " + combine(op, "x", part(0, "r")) + ";\n";
      c_ += "        " + planes[0].first + "[j] = x;\n";
    }
    c_ += "      }\n";
    if (++exchanges_ == nb_.steps) c_ += "      cluster_arrive();  // this block takes no more pushes (waited for before leaving)\n";
    c_ += "    }\n";
  }

  void declare_results(const ReductionStep& st) {
    const Node& node = w_.f.nodes()[st.node];
    const std::string n = num(idx(&st));
    auto declare = [&](int v, const std::string& expr) {
      const DType t = w_.dt(v);
      const std::string name = "rv" + num(v);
      const std::string e = is_floating(t) && t != DType::F32 && t != DType::F64
                                ? std::string(t == DType::F16 ? "round_f16(" : "round_bf16(") + expr + ")"
                                : expr;
      c_ += "  " + std::string(compute_type(t)) + " " + name + "[VEC];\n#pragma unroll\n  for (int j = 0; j < VEC; ++j) " + name +
            "[j] = " + e + ";\n";
      results_[v] = name;
    };
    if (st.welford) {
      const std::string corr = num(node.attrs.correction);
      declare(node.out[0], "wq" + n + "[j] / (float)(RR - " + corr + " > 0 ? RR - " + corr + " : 0)");
      declare(node.out[1], "wm" + n + "[j]");
    } else if (st.kind == Op::Mean) {
      declare(node.out[0], "acc" + n + "[j] / (" + std::string(compute_type(acc_t(st))) + ")RR");
    } else {
      declare(node.out[0], "acc" + n + "[j]");
    }
  }

  // Staged outputs: constants, each thread's write offset into the tiles and, per store item,
  // the column's offset in the output.
  void staging_setup() {
    c_ += "  // Staged outputs: tiles [TX * VEC columns][TY rows], two alternating (sbuf).\n";
    int64_t tile = 0;
    for (int k : staged_) {
      const std::string n = num(k), t = t_of(k);
      c_ += "  constexpr int SE" + n + " = sizeof(" + t + "), OV" + n + " = 16 / SE" + n + ", CH" + n + " = TY * SE" + n +
            " / 16, SW" + n + " = (CH" + n + " < 8 ? CH" + n + " : 8) - 1, SP" + n + " = (32 / TX) * SE" + n + " / 16 > 1 ? (32 / TX) * SE" +
            n + " / 16 : 1;\n";
      c_ += "  constexpr int IT" + n + " = TX * VEC * CH" + n + ", NI" + n + " = (IT" + n + " + THREADS - 1) / THREADS;\n";
      c_ += "  constexpr int SO" + n + " = " + num(tile) + ";  // this output's tile in the set\n";
      c_ += "  const unsigned sw" + n + " = SO" + n + " + tx * VEC * TY * SE" + n + " + ((((ty * SE" + n + ") / 16) ^ ((tx * SP" + n +
            ") & SW" + n + ")) * 16) + (ty * SE" + n + ") % 16;\n";
      c_ += "  i64 sob" + n + "[NI" + n + "];\n  bool sok" + n + "[NI" + n + "];\n";
      c_ += "#pragma unroll\n  for (int e = 0; e < NI" + n + "; ++e) {\n    const int it = threadIdx.x + e * THREADS;\n"
            "    const i64 kcs = tile * TX * VEC + it / CH" + n + ";\n    sok" + n + "[e] = it < IT" + n + " && kcs < K;\n"
            "    sob" + n + "[e] = (kcs / HK) * sa" + n + " + (kcs % HK) * si" + n + ";\n  }\n";
      tile += int64_t{tx_n_} * P_.vec * ty_n_ * dtype_size(w_.dt(w_.op(k).value));
    }
    c_ += "  constexpr int STILE = " + num(tile) + ";  // bytes of one set of tiles\n  int sbuf = 0;\n";
    c_ += "  __syncthreads();  // the combine's shared memory becomes the tiles\n";
  }
  // After a chunk's values are in the tiles: the barrier, then every column's rows of chunk `q`
  // as 16-byte vectors (or elements: rows not unit-stride or aligned, or at the rows' end).
  void staged_store(const std::string& q, int ind) {
    const std::string d = I(ind);
    c_ += d + "__syncthreads();\n";
    for (int k : staged_) {
      const std::string n = num(k), t = t_of(k), P = w_.ptr(k), vt = "Vec<" + t + ", OV" + n + ">";
      c_ += "#pragma unroll\n" + d + "for (int e = 0; e < NI" + n + "; ++e) {\n";
      // Names apart from the row loop's (u, m0, i): the chunk expression `q` uses them.
      c_ += d + "  const int it = threadIdx.x + e * THREADS, ic = it / CH" + n + ", im = it % CH" + n + ";\n";
      c_ += d + "  const i64 r0 = (" + q + ") * TY + im * OV" + n + ";\n";
      // r0 < 0: a chunk past the first in a backward pass's last unrolled group (none to store).
      c_ += d + "  if (sok" + n + "[e] && r0 >= 0 && r0 < RR) {\n";
      c_ += d + "    const " + vt + " v = *(const " + vt + "*)(osm + sbuf * STILE + SO" + n + " + ic * TY * SE" + n + " + ((im ^ (((ic / VEC) * SP" +
            n + ") & SW" + n + ")) * 16));\n";
      c_ += d + "    " + t + "* dst = " + P + " + sob" + n + "[e] + r0 * rs" + n + ";\n";
      c_ += d + "    if (rs" + n + " == 1 && r0 + OV" + n + " <= RR && ((unsigned long long)dst & 15) == 0) st_vec<" + t + ", OV" + n +
            ">(dst, v);\n";
      c_ += d + "    else {\n#pragma unroll\n" + d + "      for (int x = 0; x < OV" + n + "; ++x)\n" + d + "        if (r0 + x < RR) " + P +
            "[sob" + n + "[e] + (r0 + x) * rs" + n + "] = v.e[x];\n" + d + "    }\n";
      c_ += d + "  }\n" + d + "}\n";
    }
    c_ += d + "sbuf ^= 1;\n";
  }

  // The last pass: element outputs row by row; kept-level outputs by thread row 0.
  void output_pass() {
    c_ += "  // The outputs.\n";
    if (!staged_.empty()) staging_setup();
    if (!elem_outs_.empty()) {
      auto body = [&](const std::string& prefix, const std::string& s, int ind) {
        for (int k : elem_outs_)
          if (is(k, Access::Full)) c_ += I(ind) + "Vec<" + t_of(k) + ", VEC> o" + num(k) + ";\n";
        c_ += "#pragma unroll\n" + I(ind) + "for (int j = 0; j < VEC; ++j) {\n";
        ExprEmitter em = emitter(prefix, s);
        for (int k : elem_outs_) {
          const std::string val = w_.stored(em, k, I(ind + 1));
          if (is(k, Access::Full)) c_ += I(ind + 1) + "o" + num(k) + ".e[j] = " + val + ";\n";
          else if (std::find(staged_.begin(), staged_.end(), k) != staged_.end())
            c_ += I(ind + 1) + "*(" + t_of(k) + "*)(osm + sbuf * STILE + sw" + num(k) + " + j * TY * SE" + num(k) + ") = " + val + ";\n";
          else c_ += I(ind + 1) + "if (act) " + w_.ptr(k) + "[r * rs" + num(k) + " + " + kept_off(k, "j") + "] = " + val + ";\n";
        }
        c_ += I(ind) + "}\n";
        for (int k : elem_outs_)
          if (is(k, Access::Full))
            c_ += I(ind) + "if (act) st_vec<" + t_of(k) + ", VEC>(" + w_.ptr(k) + " + r * rs" + num(k) + " + kb" + num(k) + ", o" +
                  num(k) + ");\n";
      };
      if (staged_.empty()) each_row(body);
      else each_row(body, [&](const std::string& q, int ind) { staged_store(q, ind); });
    }
    if (kept_outs_.empty()) return;
    c_ += std::string("  if (ty == 0 && act") + (cl_ > 1 ? " && crank == 0" : "") + ") {\n#pragma unroll\n    for (int j = 0; j < VEC; ++j) {\n";
    ExprEmitter em = emitter("h", "0");
    for (int k : kept_outs_) {
      const std::string val = w_.stored(em, k, I(3));
      c_ += "      " + std::string(is(k, Access::Scalar) ? "if (kc0 + j == 0) " : "") + w_.ptr(k) + "[" + kept_off(k, "j") + "] = " +
            val + ";\n";
    }
    c_ += "    }\n  }\n";
  }

  Writer& w_;
  const KernelParams& P_;
  std::string& c_;
  StagePlan sp_;
  int ty_n_ = 1, tx_n_ = 1, cl_ = 1;
  int pass_ = 0;
  bool first_exchange_ = true;
  int exchanges_ = 0;  // cluster exchanges written (the last one arrives at the leaving barrier)
  OuterNormBytes nb_;
  std::vector<int> ins_, elem_outs_, kept_outs_, staged_;
  std::map<int, std::string> results_;  // reduction result value -> its register array
  std::map<int, int> cut_;              // held input operand -> the value its slots hold (held_cuts)
  std::map<int, int64_t> smem_off_;     // smem_rows: Full input -> its held slots' byte offset in dyn_smem
};

}  // namespace

void write_outer_norm(Writer& w, KernelSource&) { OuterNormWriter(w).write(); }

}  // namespace solder::codegen_detail
