// Transposes (transpose_scheduler.cpp, schedule/transpose_view.h): a pointwise kernel over
// tiles of TR x TC elements of the tile dims [rows x columns], for every index of the other
// (batch) dims; a block takes a tile at a time (tiles at the grid's stride). Per tile:
//   1. staged inputs (unit-stride along the rows) load as TV-element vectors along the rows,
//      each thread E adjacent columns' vectors (E = elements per 4-byte slot), and store into
//      shared memory packed E columns to a slot, row-major by tile row;
//   2. the math runs along the columns: each thread takes VEC adjacent columns of a tile row,
//      reading direct inputs (unit-stride along the columns) as VEC-element vectors (issued
//      before the barrier where the tile is whole), staged ones from shared memory, the others
//      element by element; direct outputs store as vectors, staged ones go to shared memory;
//   3. staged outputs load from shared memory a column of slots at a time and store as
//      TV-element vectors along the rows.
// Shared memory: each staged operand's tile is TR rows of RW = TC / E slots (RW a multiple of
// 32), slot (row, s) at row * RW + (s ^ key), key = row & 31 where RW = 32, else
// (row ^ (s >> 5) * F) & 31 (see slot()). A warp of phases 1 and 3 covers TV slot
// columns x 32 / TV row vectors and stores (loads) slot j of each vector at once: rows
// tr * TV + j and columns tc XOR to 32 distinct banks; a warp of phase 2 covers rows of whole
// slots, whose XOR with the row again spreads over every bank. No bank conflicts either way
// (4-byte slots; 8-byte elements take 8-byte slots, two banks each).
// Tiles that are whole run without masks; edge tiles mask every access by the dims' extents.
#include <algorithm>
#include <functional>

#include "codegen/kernel_writer.h"
#include "schedule/transpose_view.h"

namespace solder::codegen_detail {

namespace {

constexpr const char* kStageItem = R"CUDA(
// Item `it` of a staged tile's loads (stores): row vector tr (TV rows) and slot column tc; a warp
// covers TV slot columns x 32 / TV row vectors (see write_transpose).
template <int TR, int TV> __device__ __forceinline__ void stage_item(int it, int& tr, int& tc) {
  const int lane = it & 31, wp = it >> 5;
  tr = lane / TV + (32 / TV) * (wp % (TR / 32));
  tc = lane % TV + TV * (wp / (TR / 32));
}
)CUDA";

// Staged bytes: element j of four byte vectors packed into one 4-byte slot by byte permutes.
// Written element by element, ptxas held each byte in a register of its own (four bool
// vectors of 8: 32 registers, the 64-register cap spilled 320 bytes, seed 48 #019).
constexpr const char* kPackBytes = R"CUDA(
template <int V> __device__ __forceinline__ Vec<u8, 4> pack_bytes(const Vec<u8, V>& a, const Vec<u8, V>& b, const Vec<u8, V>& c,
                                                                 const Vec<u8, V>& d, int j) {
  const unsigned sel = (j & 3) | ((4 + (j & 3)) << 4);
  auto word = [&](const Vec<u8, V>& v) { return reinterpret_cast<const unsigned*>(&v)[j >> 2]; };
  const unsigned w = __byte_perm(__byte_perm(word(a), word(b), sel), __byte_perm(word(c), word(d), sel), 0x5410);
  return *reinterpret_cast<const Vec<u8, 4>*>(&w);
}
)CUDA";

class TransposeWriter {
 public:
  TransposeWriter(Writer& w)
      : w_(w), P_(w.plan.params), c_(w.code), t_(w.plan.shape.tile), reduce_(transpose_reduces(w.plan)),
        partial_(w.plan.shape.tile.reduced_lo >= 0), cross_(tile_reduces_cols(w.plan.shape.tile)),
        all_(tile_reduces_all(w.plan.shape.tile)) {
    rank_ = static_cast<int>(w.ks.dim_order.size());
    std::vector<int> targets;
    if (reduce_) {  // a full reduction: its outputs are the scalars the grid combine writes
      post_outs_ = w.output_slots();
      for (const ReductionStep& st : w.sp.steps) targets.push_back(st.input);
    } else if (partial_) {  // the tile's loads feed the reductions; the outputs follow them
      outs_ = w.output_slots();
      for (const ReductionStep& st : w.sp.steps) {
        if (st.level > 1) throw Error("codegen: " + w.plan.name + ": a partial reduction through tiles takes single-level steps");
        targets.push_back(st.input);
      }
    } else {
      for (int k : w.output_slots()) {
        outs_.push_back(k);
        targets.push_back(w.op(k).value);
      }
    }
    ins_ = w.element_inputs(targets, [](int) { return false; });
    for (int k : ins_)
      if (is(k, Access::Staged)) staged_in_.push_back(k);
    for (int k : outs_)
      if (is(k, Access::Staged)) staged_out_.push_back(k);
    for (int k : staged_all()) {
      if (P_.tile_cols < 32 * E(k))
        throw Error("codegen: " + w.plan.name + ": tile_cols " + std::to_string(P_.tile_cols) + " is under 32 slots of " +
                    std::to_string(E(k)) + " elements for staged operand " + std::to_string(k));
      if (P_.tile_vec * esize(k) > 16)
        throw Error("codegen: " + w.plan.name + ": tile_vec " + std::to_string(P_.tile_vec) + " of " +
                    std::to_string(esize(k)) + "-byte elements is over 16 bytes");
    }
    if (cross_ && !all_ && P_.tile_cols / P_.vec != 64 && (P_.tile_cols / P_.vec > 32 || 32 % (P_.tile_cols / P_.vec)))
      throw Error("codegen: " + w.plan.name + ": a tile row's " + std::to_string(P_.tile_cols / P_.vec) +
                  " lanes (tile_cols / vec) must divide a warp or be two warps: they combine by shuffles");
    if (cross_ && !all_ && (P_.threads % P_.tile_rows || P_.threads / P_.tile_rows > 32 || 32 % (P_.threads / P_.tile_rows)))
      throw Error("codegen: " + w.plan.name + ": " + std::to_string(P_.threads) + " threads over " + std::to_string(P_.tile_rows) +
                  " tile rows: the splits' finish takes threads / tile_rows lanes a row, a power of two within a warp");
    for (int k : outs_)
      if (w.vectorized(k) && P_.vec * esize(k) > 16)
        throw Error("codegen: " + w.plan.name + ": vec " + std::to_string(P_.vec) + " of " + std::to_string(esize(k)) +
                    "-byte elements is over 16 bytes");
  }

  void write(KernelSource& ks_out) {
    c_ += kStageItem;
    if (std::any_of(staged_in_.begin(), staged_in_.end(), [&](int k) { return packs_bytes(k); })) c_ += kPackBytes;
    prologue();
    if (partial_) {
      if (cross_) write_cross(ks_out);
      else write_partial(ks_out);
      return;
    }
    if (reduce_) {
      acc_ = write_accumulators(w_, 1);
      variance_shifts();
    }
    c_ += "  for (IX t = blockIdx.x; t < TILES; t += gridDim.x) {\n";
    tile_head();
    c_ += "    if (R0 + TR <= NR && C0 + TC <= NC) {  // a whole tile: no masks\n";
    tile_body(false);
    c_ += "    } else {\n";
    tile_body(true);
    c_ += "    }\n";
    if (!staged_all().empty()) c_ += "    if (t + gridDim.x < TILES) __syncthreads();  // the tiles' shared memory is reused\n";
    c_ += "  }\n";
    if (reduce_) {
      // The flat template's block and grid combine (R x C: every element of the domain).
      c_ += "  const i64 R = p.R, C = p.C;\n  (void)R;\n  (void)C;\n";
      write_grid_combine(w_, acc_, post_outs_, ks_out);
    }
    c_ += "}\n";
  }

 private:
  // var_mean's shift (as the flat template's): the reduced value at element 0, which every
  // operand holds at its offset 0; 0 where it is not finite or the domain is empty.
  void variance_shifts() {
    for (size_t i = 0; i < w_.sp.steps.size(); ++i) {
      if (!w_.sp.steps[i].welford) continue;
      const std::string k = acc_[i] + "k";
      c_ += "  float " + k + " = 0.f;\n  if (NR > 0 && NC > 0 && NB > 0) {\n";
      w_.hoisted.clear();
      for (int o : ins_) c_ += "    const " + T(o) + " ie" + n(o) + " = " + w_.ptr(o) + "[0];\n";
      ExprEmitter em(w_.f, [&](int v) { return w_.is_input(v) ? w_.elem_input(v, false) : std::string(); });
      em.set_raw_bits([&](int v) { return w_.is_input(v) ? w_.elem_raw(v, false) : std::string(); });
      const std::string x = em.value(w_.sp.steps[i].input, c_, I(2));
      c_ += "    " + k + " = (float)(" + x + ");\n    if (!isfinite(" + k + ")) " + k + " = 0.f;\n  }\n";
    }
  }

  bool is(int k, Access a) const { return w_.op(k).access == a; }
  int esize(int k) const { return dtype_size(w_.dt(w_.op(k).value)); }
  // A staged byte input whose slots phase 1 packs by byte permutes (kPackBytes): whole words of TV.
  bool packs_bytes(int k) const { return esize(k) == 1 && E(k) == 4 && P_.tile_vec % 4 == 0; }
  int E(int k) const { return slot_elems(esize(k)); }
  int RW(int k) const { return P_.tile_cols / E(k); }
  std::string T(int k) const { return storage_type(w_.dt(w_.op(k).value)); }
  std::string n(int k) const { return num(k); }
  std::vector<int> staged_all() const {
    std::vector<int> s = staged_in_;
    s.insert(s.end(), staged_out_.begin(), staged_out_.end());
    return s;
  }
  bool reduced(int d) const { return partial_ && d >= t_.reduced_lo; }
  bool in_row_run(int d) const { return d >= t_.row_lo && d < t_.row_hi; }
  bool in_col_run(int d) const { return d >= t_.col_lo && d < t_.col_hi; }
  bool needs_sr(int k) const { return is(k, Access::Full) || is(k, Access::Row) || is(k, Access::General); }
  bool needs_sc(int k) const { return is(k, Access::Staged) || is(k, Access::General); }
  // Element offset of operand k at tile-dim indices (r, c) from its batch base bo<k>.
  std::string off(int k, const std::string& r, const std::string& c) const {
    const std::string b = base_ + n(k);
    switch (w_.op(k).access) {
      case Access::Full: return b + " + " + r + " * sr" + n(k) + " + " + c;
      case Access::Col: return b + " + " + c;
      case Access::Staged: return b + " + " + r + " + " + c + " * sc" + n(k);
      case Access::Row: return b + " + " + r + " * sr" + n(k);
      case Access::Scalar: return b;
      default: return b + " + " + r + " * sr" + n(k) + " + " + c + " * sc" + n(k);
    }
  }
  // Slot s of row `row` of staged operand k's tile: s XOR the row's key. Rows of 32 slots: the
  // key is row & 31. Rows of G = RW / 32 groups of 32 slots (f32 tiles of 64 columns): the key
  // is (row ^ g * F) & 31 for s's group g, F = max(1, W / G) with W = VEC / E slots per item,
  // so the W / G rows of a phase-2 warp and the G groups of its slots take W distinct keys
  // modulo W (32 banks); phases 1 and 3 stay within one group per warp (the XOR is constant).
  std::string slot(int k, const std::string& row, const std::string& s) const {
    const int G = RW(k) / 32;
    if (G == 1) return "S" + n(k) + "[(" + row + ") * " + num(RW(k)) + " + ((" + s + ") ^ ((" + row + ") & 31))]";
    const int F = std::max(1, std::max(1, P_.vec / E(k)) / G);
    return "S" + n(k) + "[(" + row + ") * " + num(RW(k)) + " + ((" + s + ") ^ (((" + row + ") ^ ((" + s + ") >> 5) * " +
           num(F) + ") & 31))]";
  }
  std::string slot_type(int k) const { return "Vec<" + T(k) + ", " + num(E(k)) + ">"; }
  // Items of a staged operand's phase 1 (3), and of phase 2, and how many each thread takes.
  int stage_items(int k) const { return P_.tile_rows / P_.tile_vec * RW(k); }
  int items2() const { return P_.tile_rows * (P_.tile_cols / P_.vec); }
  int per(int items) const { return (items + P_.threads - 1) / P_.threads; }

  void prologue() {
    const int rl = t_.row_lo, rh = t_.row_hi, cl = t_.col_lo, ch = t_.col_hi;
    c_ += "extern \"C\" __global__ void " + w_.launch_bounds(P_.min_blocks) + " " + w_.plan.name + "(const Params p) {\n";
    c_ += "  constexpr int THREADS = " + num(P_.threads) + ", TR = " + num(P_.tile_rows) + ", TC = " + num(P_.tile_cols) +
          ", VEC = " + num(P_.vec) + ", TV = " + num(P_.tile_vec) + ";\n";
    c_ += std::string("  typedef ") + (P_.index32 ? "int IX;  // every offset of every operand fits 31 bits (index32)\n"
                                                     : "i64 IX;\n");
    w_.pointers(1);
    auto product = [&](auto in) {
      std::string s;
      for (int d = 0; d < rank_; ++d)
        if (in(d)) s += (s.empty() ? "" : " * ") + std::string("(IX)p.dims[") + num(d) + "]";
      return s.empty() ? std::string("1") : s;
    };
    c_ += "  // Tile rows: kernel dims [" + num(rl) + ", " + num(rh) + "); columns: [" + num(cl) + ", " + num(ch) +
          "); each one linear index. The other dims are the batch.\n";
    c_ += "  const IX NR = " + product([&](int d) { return in_row_run(d); }) + ", NC = " +
          product([&](int d) { return in_col_run(d); }) + ", NB = " +
          product([&](int d) { return !in_row_run(d) && !in_col_run(d) && !reduced(d); }) + ";\n";
    if (partial_)
      c_ += "  const IX NRB = " + product([&](int d) { return reduced(d) && !in_col_run(d) && !in_row_run(d); }) +
            ";  // reduced indices outside the tile\n";
    // Strides along the runs: the innermost dim of size > 1 of each (the operand is linear there).
    const int nops = static_cast<int>(w_.plan.operands.size());
    auto run_strides = [&](const char* name, int lo, int hi, auto needs) {
      std::string decl;
      for (int k = 0; k < nops; ++k)
        if (needs(k)) decl += (decl.empty() ? "" : ", ") + std::string(name) + n(k) + " = 0";
      if (decl.empty()) return;
      c_ += "  IX " + decl + ";\n";
      for (int d = lo; d < hi; ++d) {
        c_ += "  if (p.dims[" + num(d) + "] > 1) {";
        for (int k = 0; k < nops; ++k)
          if (needs(k)) c_ += " " + std::string(name) + n(k) + " = (IX)p.stride[" + n(k) + "][" + num(d) + "];";
        c_ += " }\n";
      }
    };
    run_strides("sr", rl, rh, [&](int k) { return needs_sr(k); });
    run_strides("sc", cl, ch, [&](int k) { return needs_sc(k); });
    c_ += std::string("  const IX TILES_C = (NC + TC - 1) / TC, TILES_R = (NR + TR - 1) / TR, TILES = NB") +
          (all_ ? ";  // a tile per kept index: it loops (its split: some of) the row and column chunks\n"
                : cross_ ? " * TILES_R;  // the kept tiles: each loops (its split: some of) the column chunks\n" : " * TILES_R * TILES_C;\n");
    for (int k : staged_all())
      c_ += "  __shared__ " + slot_type(k) + " S" + n(k) + "[TR * " + num(RW(k)) + "];  // operand " + n(k) +
            "'s tile: TR rows of " + num(RW(k)) + " slots (swizzled)\n";
  }

  void tile_head() {
    const int nops = static_cast<int>(w_.plan.operands.size());
    if (cross_ && !all_) c_ += "    const IX R0 = t % TILES_R * TR;\n";
    else if (!cross_) c_ += "    const IX C0 = t % TILES_C * TC, R0 = t / TILES_C % TILES_R * TR;\n";
    std::string decl;
    for (int k = 0; k < nops; ++k) decl += (k ? ", bo" : "bo") + n(k) + " = 0";
    c_ += "    IX " + decl + ";  // each operand's offset at this tile's batch index\n";
    bool any_batch = false;
    for (int d = rank_ - 1; d >= 0; --d) {
      if (in_row_run(d) || in_col_run(d) || reduced(d)) continue;
      if (!any_batch) c_ += all_ ? "    IX bi = t;\n" : cross_ ? "    IX bi = t / TILES_R;\n" : "    IX bi = t / TILES_C / TILES_R;\n";
      any_batch = true;
      c_ += "    {\n      const IX i = bi % (IX)p.dims[" + num(d) + "];\n      bi /= (IX)p.dims[" + num(d) + "];\n";
      for (int k = 0; k < nops; ++k) c_ += "      bo" + n(k) + " += i * (IX)p.stride[" + n(k) + "][" + num(d) + "];\n";
      c_ += "    }\n";
    }
    if (!partial_) hoist_scalars(2);
  }

  // Inputs constant over the tile (at one reduced index): once per tile (per reduced index).
  void hoist_scalars(int ind) {
    w_.hoisted.clear();
    for (int k : ins_)
      if (is(k, Access::Scalar)) {
        w_.hoisted[k] = "hs" + n(k);
        c_ += I(ind) + "const " + T(k) + " hs" + n(k) + " = " + w_.ptr(k) + "[" + base_ + n(k) + "];\n";
      }
  }

  // The staged vectors' loads of phase 1 (into registers sv<k>e<e>[u]).
  void stage_loads(bool masked, int ind) {
    for (int k : staged_in_) {
      const int items = stage_items(k), pu = per(items);
      const std::string vt = "Vec<" + T(k) + ", TV>";
      for (int e = 0; e < E(k); ++e) c_ += I(ind) + vt + " sv" + n(k) + "e" + num(e) + "[" + num(pu) + "];\n";
      c_ += "#pragma unroll\n" + I(ind) + "for (int u = 0; u < " + num(pu) + "; ++u) {\n";
      c_ += I(ind + 1) + "const int it = threadIdx.x + u * THREADS;\n";
      if (items % P_.threads) c_ += I(ind + 1) + "if (it >= " + num(items) + ") break;\n";
      c_ += I(ind + 1) + "int tr, tc;\n" + I(ind + 1) + "stage_item<TR, TV>(it, tr, tc);\n";
      c_ += I(ind + 1) + "const IX r = R0 + tr * TV;\n";
      for (int e = 0; e < E(k); ++e) {
        const std::string dst = "sv" + n(k) + "e" + num(e) + "[u]";
        const std::string c = "(C0 + tc * " + num(E(k)) + " + " + num(e) + ")";
        const std::string load = "ld_vec<" + T(k) + ", TV>(" + w_.ptr(k) + " + " + off(k, "r", c) + ")";
        if (!masked) {
          c_ += I(ind + 1) + dst + " = " + load + ";\n";
          continue;
        }
        c_ += I(ind + 1) + "if (" + c + " < NC && r + TV <= NR) {\n" + I(ind + 2) + dst + " = " + load + ";\n";
        c_ += I(ind + 1) + "} else {\n#pragma unroll\n" + I(ind + 2) + "for (int j = 0; j < TV; ++j)\n";
        c_ += I(ind + 3) + dst + ".e[j] = " + c + " < NC && r + j < NR ? " + w_.ptr(k) + "[" + off(k, "r + j", c) +
              "] : (" + T(k) + ")0;\n" + I(ind + 1) + "}\n";
      }
      c_ += I(ind) + "}\n";
    }
  }

  // Phase 1's shared-memory stores: slot j of each vector, E columns packed.
  void stage_stores(int ind) {
    for (int k : staged_in_) {
      const int items = stage_items(k), pu = per(items);
      c_ += "#pragma unroll\n" + I(ind) + "for (int u = 0; u < " + num(pu) + "; ++u) {\n";
      c_ += I(ind + 1) + "const int it = threadIdx.x + u * THREADS;\n";
      if (items % P_.threads) c_ += I(ind + 1) + "if (it >= " + num(items) + ") break;\n";
      c_ += I(ind + 1) + "int tr, tc;\n" + I(ind + 1) + "stage_item<TR, TV>(it, tr, tc);\n";
      c_ += "#pragma unroll\n" + I(ind + 1) + "for (int j = 0; j < TV; ++j) {\n";
      if (packs_bytes(k)) {
        c_ += I(ind + 2) + "const " + slot_type(k) + " s = pack_bytes<TV>(sv" + n(k) + "e0[u], sv" + n(k) + "e1[u], sv" + n(k) +
              "e2[u], sv" + n(k) + "e3[u], j);\n";
      } else {
        c_ += I(ind + 2) + slot_type(k) + " s;\n";
        for (int e = 0; e < E(k); ++e) c_ += I(ind + 2) + "s.e[" + num(e) + "] = sv" + n(k) + "e" + num(e) + "[u].e[j];\n";
      }
      c_ += I(ind + 2) + slot(k, "tr * TV + j", "tc") + " = s;\n";
      c_ += I(ind + 1) + "}\n" + I(ind) + "}\n";
    }
  }

  // Phase 3: staged outputs from shared memory to TV-element vectors along the rows.
  void unstage(bool masked, int ind) {
    for (int k : staged_out_) {
      const int items = stage_items(k), pu = per(items);
      const std::string vt = "Vec<" + T(k) + ", TV>";
      c_ += "#pragma unroll\n" + I(ind) + "for (int u = 0; u < " + num(pu) + "; ++u) {\n";
      c_ += I(ind + 1) + "const int it = threadIdx.x + u * THREADS;\n";
      if (items % P_.threads) c_ += I(ind + 1) + "if (it >= " + num(items) + ") break;\n";
      c_ += I(ind + 1) + "int tr, tc;\n" + I(ind + 1) + "stage_item<TR, TV>(it, tr, tc);\n";
      for (int e = 0; e < E(k); ++e) c_ += I(ind + 1) + vt + " ov" + num(e) + ";\n";
      c_ += "#pragma unroll\n" + I(ind + 1) + "for (int j = 0; j < TV; ++j) {\n";
      c_ += I(ind + 2) + "const " + slot_type(k) + " s = " + slot(k, "tr * TV + j", "tc") + ";\n";
      for (int e = 0; e < E(k); ++e) c_ += I(ind + 2) + "ov" + num(e) + ".e[j] = s.e[" + num(e) + "];\n";
      c_ += I(ind + 1) + "}\n" + I(ind + 1) + "const IX r = R0 + tr * TV;\n";
      for (int e = 0; e < E(k); ++e) {
        const std::string c = "(C0 + tc * " + num(E(k)) + " + " + num(e) + ")";
        const std::string store =
            "st_vec<" + T(k) + ", TV>(" + w_.ptr(k) + " + " + off(k, "r", c) + ", ov" + num(e) + ");\n";
        if (!masked) {
          c_ += I(ind + 1) + store;
          continue;
        }
        c_ += I(ind + 1) + "if (" + c + " < NC) {\n" + I(ind + 2) + "if (r + TV <= NR) {\n" + I(ind + 3) + store;
        c_ += I(ind + 2) + "} else {\n#pragma unroll\n" + I(ind + 3) + "for (int j = 0; j < TV; ++j)\n";
        c_ += I(ind + 4) + "if (r + j < NR) " + w_.ptr(k) + "[" + off(k, "r + j", c) + "] = ov" + num(e) + ".e[j];\n";
        c_ += I(ind + 2) + "}\n" + I(ind + 1) + "}\n";
      }
      c_ += I(ind) + "}\n";
    }
  }

  std::string row_load(int k) const { return w_.ptr(k) + "[" + off(k, "r", "0") + "]"; }

  std::string vector_load(int k, const std::string& r, const std::string& c0) const {
    const std::string a = w_.ptr(k) + " + " + off(k, r, c0);
    if (w_.in_pairs(k)) return "ld_vec<unsigned, VEC / 2>((const unsigned*)(" + a + "))";
    return "ld_vec<" + T(k) + ", VEC>(" + a + ")";
  }

  // Phase 2 for one item: VEC columns c0.. of tile row `row` (tile-dim row r); `vector_path`:
  // all VEC columns lie inside; `preloaded`: the direct vectors are in pf<k>[u].
  void item(bool vector_path, bool preloaded, int ind) {
    for (int k : ins_)
      if (is(k, Access::Row)) {
        w_.hoisted[k] = "hr" + n(k);
        c_ += I(ind) + "const " + T(k) + " hr" + n(k) + " = " + (preloaded ? "pr" + n(k) + "[u]" : row_load(k)) + ";\n";
      }
    // Partial reductions' tiles fold here; their outputs come after the reduced loop (epilogue).
    const std::vector<int> outs = partial_ ? std::vector<int>{} : outs_;
    const std::vector<int> staged_out = partial_ ? std::vector<int>{} : staged_out_;
    if (vector_path) {
      for (int k : ins_)
        if (w_.vectorized(k))
          c_ += I(ind) + "const " + w_.in_vec_type(k) + " in" + n(k) + " = " +
                (preloaded ? "pf" + n(k) + "[u]" : vector_load(k, "r", "c0")) + ";\n";
      for (int k : outs)
        if (w_.vectorized(k)) c_ += I(ind) + "Vec<" + T(k) + ", VEC> out" + n(k) + ";\n";
    }
    // Staged inputs: this item's slots (whole ones where VEC covers them).
    for (int k : staged_in_)
      if (P_.vec >= E(k))
        c_ += I(ind) + slot_type(k) + " sl" + n(k) + "[" + num(P_.vec / E(k)) + "];\n#pragma unroll\n" + I(ind) +
              "for (int s = 0; s < " + num(P_.vec / E(k)) + "; ++s) sl" + n(k) + "[s] = " +
              slot(k, "row", "ch * " + num(P_.vec / E(k)) + " + s") + ";\n";
    for (int k : staged_out)
      if (P_.vec >= E(k)) c_ += I(ind) + "Vec<" + T(k) + ", VEC> so" + n(k) + " = {};\n";
    c_ += "#pragma unroll\n" + I(ind) + "for (int j = 0; j < VEC; ++j) {\n";
    const int in = ind + 1;
    if (!vector_path) c_ += I(in) + "if (c0 + j >= NC) break;\n";
    c_ += I(in) + "const IX c = c0 + j;\n" + I(in) + "(void)c;\n";
    for (int k : ins_) {
      if (w_.hoisted.count(k) || (vector_path && w_.vectorized(k))) continue;
      std::string v;
      if (is(k, Access::Staged))
        v = P_.vec >= E(k) ? "sl" + n(k) + "[j / " + num(E(k)) + "].e[j % " + num(E(k)) + "]"
                           : slot(k, "row", "(ch * VEC + j) / " + num(E(k))) + ".e[(ch * VEC + j) % " + num(E(k)) + "]";
      else
        v = w_.ptr(k) + "[" + off(k, "r", "c") + "]";
      c_ += I(in) + "const " + T(k) + " ie" + n(k) + " = " + v + ";\n";
    }
    ExprEmitter em(w_.f, [&](int v) { return w_.is_input(v) ? w_.elem_input(v, vector_path) : std::string(); });
    em.set_raw_bits([&](int v) { return w_.is_input(v) ? w_.elem_raw(v, vector_path) : std::string(); });
    em.set_narrow_results(w_.narrow_results());
    for (int k : outs) {
      // A same-dtype cast of an input (the copy executor's kernel) stores the input's bits.
      const Value& ov = w_.f.value(w_.op(k).value);
      const Node* cast = ov.producer >= 0 ? &w_.f.nodes()[ov.producer] : nullptr;
      const bool bits = cast && cast->op == Op::Cast && w_.dt(cast->in[0]) == ov.dtype && w_.is_input(cast->in[0]);
      const std::string conv = bits ? w_.elem_raw(cast->in[0], vector_path)
                                    : w_.stored(em, k, I(in));
      const std::string ref = w_.ptr(k) + "[" + off(k, "r", "c") + "]";
      switch (w_.op(k).access) {
        case Access::Full:
        case Access::Col:
          if (vector_path && w_.vectorized(k)) c_ += I(in) + "out" + n(k) + ".e[j] = " + conv + ";\n";
          else c_ += I(in) + (is(k, Access::Col) ? "if (r == 0) " : "") + ref + " = " + conv + ";\n";
          break;
        case Access::Staged:
          if (P_.vec >= E(k)) c_ += I(in) + "so" + n(k) + ".e[j] = " + conv + ";\n";
          else
            c_ += I(in) + slot(k, "row", "(ch * VEC + j) / " + num(E(k))) + ".e[(ch * VEC + j) % " + num(E(k)) +
                  "] = " + conv + ";\n";
          break;
        case Access::Row: c_ += I(in) + "if (c == 0) " + ref + " = " + conv + ";\n"; break;
        case Access::Scalar: c_ += I(in) + "if (r == 0 && c == 0) " + ref + " = " + conv + ";\n"; break;
        default: c_ += I(in) + ref + " = " + conv + ";\n"; break;
      }
    }
    if (reduce_) write_fold(w_, em, acc_, in);
    if (partial_) fold_partial(em, in);
    c_ += I(ind) + "}\n";
    if (vector_path)
      for (int k : outs)
        if (w_.vectorized(k))
          c_ += I(ind) + (is(k, Access::Col) ? "if (r == 0) " : "") + "st_vec<" + T(k) + ", VEC>(" + w_.ptr(k) + " + " +
                off(k, "r", "c0") + ", out" + n(k) + ");\n";
    for (int k : staged_out) {
      if (P_.vec < E(k)) continue;
      const int slots = P_.vec / E(k);
      c_ += "#pragma unroll\n" + I(ind) + "for (int s = 0; s < " + num(slots) + "; ++s) {\n";
      c_ += I(ind + 1) + slot_type(k) + " q;\n";
      for (int e = 0; e < E(k); ++e) c_ += I(ind + 1) + "q.e[" + num(e) + "] = so" + n(k) + ".e[s * " + num(E(k)) + " + " + num(e) + "];\n";
      c_ += I(ind + 1) + slot(k, "row", "ch * " + num(slots) + " + s") + " = q;\n" + I(ind) + "}\n";
    }
  }

  void item_head(int ind) {
    c_ += I(ind) + "const int row = it / (TC / VEC), ch = it % (TC / VEC);\n";
    c_ += I(ind) + "const IX r = R0 + row, c0 = C0 + ch * VEC;\n";
  }

  void tile_body(bool masked, int ind = 3) {
    const int items = items2(), pu = per(items);
    stage_loads(masked, ind);
    // A whole tile: the direct vectors and the row operands' elements are loaded before the
    // barrier, beside the staged ones (after it, each is a memory latency the tile waits out).
    std::vector<int> pre, rows;
    if (!masked)
      for (int k : ins_)
        if (w_.vectorized(k)) pre.push_back(k);
    if (!pre.empty()) {  // (the item loop below is then unrolled: the preloads stay in registers)
      for (int k : ins_)
        if (is(k, Access::Row)) rows.push_back(k);
      for (int k : pre) c_ += I(ind) + w_.in_vec_type(k) + " pf" + n(k) + "[" + num(pu) + "];\n";
      for (int k : rows) c_ += I(ind) + T(k) + " pr" + n(k) + "[" + num(pu) + "];\n";
      c_ += "#pragma unroll\n" + I(ind) + "for (int u = 0; u < " + num(pu) + "; ++u) {\n";
      c_ += I(ind + 1) + "const int it = threadIdx.x + u * THREADS;\n";
      if (items % P_.threads) c_ += I(ind + 1) + "if (it >= " + num(items) + ") break;\n";
      item_head(ind + 1);
      for (int k : pre) c_ += I(ind + 1) + "pf" + n(k) + "[u] = " + vector_load(k, "r", "c0") + ";\n";
      for (int k : rows) c_ += I(ind + 1) + "pr" + n(k) + "[u] = " + row_load(k) + ";\n";
      c_ += I(ind) + "}\n";
    }
    stage_stores(ind);
    if (!staged_in_.empty()) c_ += I(ind) + "__syncthreads();\n";
    if (!masked) {
      // Unrolled where the preloaded vectors live in registers (pf<k>[u]); single elements
      // (VEC = 1: nothing preloaded) only in part, or the element loads of 16 items take them.
      // (Partial reductions' accumulators acc<i>[u][j] stay in registers only where u is unrolled.)
      c_ += std::string(pre.empty() && pu > 4 && !partial_ ? "#pragma unroll 4\n" : "#pragma unroll\n") + I(ind) + "for (int u = 0; u < " +
            num(pu) + "; ++u) {\n";
      c_ += I(ind + 1) + "const int it = threadIdx.x + u * THREADS;\n";
      if (items % P_.threads) c_ += I(ind + 1) + "if (it >= " + num(items) + ") break;\n";
      item_head(ind + 1);
      c_ += I(ind + 1) + "(void)c0;\n";
      item(true, !pre.empty(), ind + 1);
      c_ += I(ind) + "}\n";
    } else {
      if (partial_)  // the accumulators are per item u (unrolled: registers)
        c_ += "#pragma unroll\n" + I(ind) + "for (int u = 0; u < " + num(pu) + "; ++u) {\n" + I(ind + 1) + "const int it = threadIdx.x + u * THREADS;\n" +
              I(ind + 1) + "if (it >= " + num(items) + ") break;\n";
      else
        c_ += I(ind) + "for (int it = threadIdx.x; it < " + num(items) + "; it += THREADS) {\n";
      item_head(ind + 1);
      c_ += I(ind + 1) + "if (r >= NR) continue;\n";
      c_ += I(ind + 1) + "if (c0 + VEC <= NC) {\n";
      item(true, false, ind + 2);
      c_ += I(ind + 1) + "} else if (c0 < NC) {\n";
      item(false, false, ind + 2);
      c_ += I(ind + 1) + "}\n" + I(ind) + "}\n";
    }
    if (!staged_out_.empty() && !partial_) {
      c_ += I(ind) + "__syncthreads();\n";
      unstage(masked, ind);
    }
  }

  // Partial reductions: per tile, accumulators per item u and lane j (acc<i>[u][j]); the reduced
  // index rb walks the reduced dims (this block's split of them: rb = blockIdx.y, + gridDim.y,
  // ...), each operand's base there rbo<k> (from the tile's bo<k>); whole tiles and edge tiles
  // each loop and fold; split tiles combine (split_combine); then the epilogue (write_epilogue).
  void write_partial(KernelSource& ks_out) {
    const int items = items2(), pu = per(items);
    std::vector<std::pair<std::string, std::string>> planes;  // the splits' partials: (accumulator, register type)
    c_ += "  for (IX t = blockIdx.x; t < TILES; t += gridDim.x) {\n";
    tile_head();
    for (size_t i = 0; i < w_.sp.steps.size(); ++i) {
      const ReductionStep& st = w_.sp.steps[i];
      const DType at = accumulator_dtype(w_.f.value(w_.f.nodes()[st.node].out[0]).dtype);
      const std::string a = "acc" + num(static_cast<long long>(i)), dims = "[" + num(pu) + "][VEC]";
      acc_.push_back(a);
      const std::string init = "#pragma unroll\n    for (int u = 0; u < " + num(pu) + "; ++u)\n#pragma unroll\n      for (int j = 0; j < VEC; ++j) ";
      if (st.welford) {
        // var_mean: shifted sums per element (Σd, Σd², d = x - its shift), the shift the
        // element's value at the block's first reduced index, so the sums stay near the spread
        // of its column.
        c_ += "    float " + a + dims + ", " + a + "q" + dims + ", " + a + "k" + dims + ";\n";
        c_ += init + a + "[u][j] = " + a + "q[u][j] = " + a + "k[u][j] = 0.f;\n";
        for (const char* sfx : {"n", "", "q"}) planes.emplace_back(a + sfx, "float");
        continue;
      }
      c_ += "    " + std::string(compute_type(at)) + " " + a + dims + ";\n";
      c_ += init + a + "[u][j] = " + red_identity(st.kind, at) + ";\n";
      planes.emplace_back(a, compute_type(at));
    }
    // Whole tiles (no masks) and edge tiles, each through `body`.
    auto by_tile = [&](const std::function<void(bool)>& body) {
      c_ += "    if (R0 + TR <= NR && C0 + TC <= NC) {  // a whole tile: no masks\n";
      body(false);
      c_ += "    } else {\n";
      body(true);
      c_ += "    }\n";
    };
    if (P_.grid_split) {  // the splits merge between the loop and the epilogue
      ks_out.scratch_per_cell = 8 * static_cast<int>(planes.size());
      by_tile([&](bool masked) { reduced_loop(masked); });
      split_combine(planes, items, pu);
      by_tile([&](bool masked) { write_epilogue(masked, items, pu); });
    } else {
      by_tile([&](bool masked) {
        reduced_loop(masked);
        write_epilogue(masked, items, pu);
      });
    }
    if (!staged_all().empty()) c_ += "    if (t + gridDim.x < TILES) __syncthreads();  // the tiles' shared memory is reused\n";
    c_ += "  }\n}\n";
  }

  // Split tiles of kept dims (gridDim.y > 1): each block leaves its elements' partials in its
  // split's cells (planes of 8-byte cells [split][tile][element]; var_mean as Welford partials
  // from the shifted sums, with the split's count), and the tile's last block merges every
  // split's, in split order (the same bits every run), into its accumulators for the epilogue
  // (var_mean: the shift the mean, Σd 0, Σd² the M2). The other blocks go on to their next tile.
  void split_combine(const std::vector<std::pair<std::string, std::string>>& planes, int items, int pu) {
    auto items_loop = [&](int ind) {
      c_ += "#pragma unroll\n" + I(ind) + "for (int u = 0; u < " + num(pu) + "; ++u) {\n" + I(ind + 1) + "const int it = threadIdx.x + u * THREADS;\n";
      if (items % P_.threads) c_ += I(ind + 1) + "if (it >= " + num(items) + ") break;\n";
    };
    c_ += "    if (gridDim.y > 1) {\n";
    scratch_planes(planes, " * (TR * TC)");
    bool welford = false;
    for (const ReductionStep& st : w_.sp.steps) welford |= st.welford;
    if (welford)  // the reduced indices this split folded
      c_ += "      const float ny = NRB > (IX)blockIdx.y ? (float)((NRB - (IX)blockIdx.y + gridDim.y - 1) / gridDim.y) : 0.f;\n";
    items_loop(3);
    c_ += "        const i64 cell = ((i64)blockIdx.y * TILES + t) * (TR * TC) + (i64)it * VEC;\n";
    c_ += "#pragma unroll\n        for (int j = 0; j < VEC; ++j) {\n";
    for (size_t i = 0; i < w_.sp.steps.size(); ++i) {
      const std::string a = acc_[i];
      if (w_.sp.steps[i].welford) {
        c_ += "          g" + a + "n[cell + j] = ny;\n";
        c_ += "          g" + a + "[cell + j] = ny > 0.f ? " + a + "k[u][j] + " + a + "[u][j] / ny : 0.f;\n";
        c_ += "          g" + a + "q[cell + j] = ny > 0.f ? fmaxf(" + a + "q[u][j] - " + a + "[u][j] * " + a + "[u][j] / ny, 0.f) : 0.f;\n";
      } else {
        c_ += "          g" + a + "[cell + j] = " + a + "[u][j];\n";
      }
    }
    c_ += "        }\n      }\n";
    elect_last_block();
    c_ += "      if (!tlast) continue;\n      __threadfence();\n";
    items_loop(3);
    c_ += "#pragma unroll\n        for (int j = 0; j < VEC; ++j) {\n";
    merged_splits("#pragma unroll 1\n          for (int y = 0; y < (int)gridDim.y; ++y) {\n            const i64 cell = ((i64)y * TILES + t) * (TR * TC) + (i64)it * VEC + j;\n");
    for (size_t i = 0; i < w_.sp.steps.size(); ++i) {
      const std::string a = acc_[i];
      if (w_.sp.steps[i].welford)
        c_ += "          " + a + "k[u][j] = m" + a + ".mean;\n          " + a + "[u][j] = 0.f;\n          " + a + "q[u][j] = m" + a + ".m2;\n";
      else
        c_ += "          " + a + "[u][j] = t" + a + ";\n";
    }
    c_ += "        }\n      }\n      if (threadIdx.x == 0) ((unsigned*)p.scratch)[t] = 0u;  // for the next launch\n    }\n";
  }

  void reduced_loop(bool masked) {
    c_ += P_.grid_split ? "      for (IX rb = blockIdx.y; rb < NRB; rb += gridDim.y) {\n" : "      for (IX rb = 0; rb < NRB; ++rb) {\n";
    enter_reduced_index("rb", 4);
    tile_body(masked, 4);
    if (!staged_in_.empty()) c_ += "        __syncthreads();  // the next index's tiles reuse the shared memory\n";
    base_ = "bo";
    c_ += "      }\n";
  }

  // Each element's fold into its accumulators acc<i>[u][j] (inside the reduced loop: rb); a
  // tile that reduces its columns folds a row's VEC lanes into acc<i>[u], its var_mean shifted
  // by the first element it folds (counted in acc<i>n[u]).
  void fold_partial(ExprEmitter& em, int ind) {
    for (size_t i = 0; i < w_.sp.steps.size(); ++i) {
      const ReductionStep& st = w_.sp.steps[i];
      const std::string x = em.value(st.input, c_, I(ind)), a = acc_[i];
      if (st.welford && cross_) {
        c_ += I(ind) + "{\n" + I(ind + 1) + "const float x_ = (float)(" + x + ");\n";
        c_ += I(ind + 1) + "if (" + a + "n[u] == 0.f) " + a + "k[u] = isfinite(x_) ? x_ : 0.f;\n";
        c_ += I(ind + 1) + a + "n[u] += 1.f;\n";
        c_ += I(ind + 1) + "const float d = x_ - " + a + "k[u];\n";
        c_ += I(ind + 1) + a + "[u] += d;\n" + I(ind + 1) + a + "q[u] += d * d;\n" + I(ind) + "}\n";
        continue;
      }
      if (cross_) {
        const DType at = accumulator_dtype(w_.f.value(w_.f.nodes()[st.node].out[0]).dtype);
        c_ += I(ind) + a + "[u] = " + combine(st.kind, a + "[u]", std::string("(") + compute_type(at) + ")(" + x + ")") + ";\n";
        continue;
      }
      if (st.welford) {
        c_ += I(ind) + "{\n" + I(ind + 1) + "const float x_ = (float)(" + x + ");\n";
        c_ += I(ind + 1) + (P_.grid_split ? "if (rb == (IX)blockIdx.y) " : "if (rb == 0) ") + a + "k[u][j] = isfinite(x_) ? x_ : 0.f;\n";
        c_ += I(ind + 1) + "const float d = x_ - " + a + "k[u][j];\n";
        c_ += I(ind + 1) + a + "[u][j] += d;\n" + I(ind + 1) + a + "q[u][j] += d * d;\n" + I(ind) + "}\n";
        continue;
      }
      const DType at = accumulator_dtype(w_.f.value(w_.f.nodes()[st.node].out[0]).dtype);
      c_ += I(ind) + a + "[u][j] = " + combine(st.kind, a + "[u][j]", std::string("(") + compute_type(at) + ")(" + x + ")") + ";\n";
    }
  }

  // Each operand's offset rbo<k> at reduced index `ri` (over the reduced dims outside the tile,
  // from the tile's bo<k>); the operands then based there (off()), and the scalars at that index
  // hoisted.
  void enter_reduced_index(const std::string& ri, int ind) {
    const int nops = static_cast<int>(w_.plan.operands.size());
    std::string decl;
    for (int k = 0; k < nops; ++k) decl += (k ? ", rbo" : "rbo") + n(k) + " = bo" + n(k);
    c_ += I(ind) + "IX " + decl + ";  // each operand's offset at this reduced index\n" + I(ind) + "IX ri = " + ri + ";\n";
    for (int d = rank_ - 1; d >= t_.reduced_lo; --d) {
      if (in_col_run(d) || in_row_run(d)) continue;
      c_ += I(ind) + "{\n" + I(ind + 1) + "const IX i = ri % (IX)p.dims[" + num(d) + "];\n" + I(ind + 1) + "ri /= (IX)p.dims[" + num(d) + "];\n";
      for (int k = 0; k < nops; ++k) c_ += I(ind + 1) + "rbo" + n(k) + " += i * (IX)p.stride[" + n(k) + "][" + num(d) + "];\n";
      c_ += I(ind) + "}\n";
    }
    base_ = "rbo";
    hoist_scalars(ind);
  }

  // Tiles of [kept rows x reduced columns] (tile_reduces_cols): per kept tile, the column chunks
  // of every reduced index outside the tile (units w = blockIdx.y, + gridDim.y, ...) fold into
  // per-item accumulators acc<i>[u] (an item's row is fixed: L = TC / VEC lanes a row, L
  // dividing a warp, or two warps); the row's lanes combine by shuffles (var_mean: Welford partials from the
  // shifted sums, Chan's merge); with one split, lane 0 of each row writes its outputs; with
  // several, each block leaves its rows' partials in scratch (planes of 8-byte cells [split][tile
  // row]) and the tile's last block combines them (S = THREADS / TR lanes a row, each a strided
  // share of the splits, then shuffles: the same order every run) and writes the outputs.
  void write_cross(KernelSource& ks_out) {
    const int items = items2(), pu = per(items), L = P_.tile_cols / P_.vec;
    c_ += "  constexpr int L = " + num(L) + ";  // lanes of a tile row\n";
    c_ += all_ ? "  const IX UNITS = NRB * TILES_R * TILES_C;  // row and column chunks of a kept index\n"
               : "  const IX UNITS = NRB * TILES_C;  // column chunks of a kept tile\n";
    std::vector<std::pair<std::string, std::string>> planes;  // (accumulator, register type)
    for (size_t i = 0; i < w_.sp.steps.size(); ++i) {
      const ReductionStep& st = w_.sp.steps[i];
      const std::string a = "acc" + num(static_cast<long long>(i));
      acc_.push_back(a);
      if (st.welford) {
        for (const char* sfx : {"n", "", "q"}) planes.emplace_back(a + sfx, "float");
        continue;
      }
      planes.emplace_back(a, compute_type(accumulator_dtype(w_.f.value(w_.f.nodes()[st.node].out[0]).dtype)));
    }
    ks_out.scratch_per_cell = 8 * static_cast<int>(planes.size());
    c_ += "  for (IX t = blockIdx.x; t < TILES; t += gridDim.x) {\n";
    tile_head();
    for (size_t i = 0; i < w_.sp.steps.size(); ++i) {
      const ReductionStep& st = w_.sp.steps[i];
      const std::string a = acc_[i], dims = "[" + num(pu) + "]";
      const std::string init = "#pragma unroll\n    for (int u = 0; u < " + num(pu) + "; ++u) ";
      if (st.welford) {
        c_ += "    float " + a + dims + ", " + a + "q" + dims + ", " + a + "k" + dims + ", " + a + "n" + dims + ";\n";
        c_ += init + a + "[u] = " + a + "q[u] = " + a + "k[u] = " + a + "n[u] = 0.f;\n";
        continue;
      }
      const DType at = accumulator_dtype(w_.f.value(w_.f.nodes()[st.node].out[0]).dtype);
      c_ += "    " + std::string(compute_type(at)) + " " + a + dims + ";\n" + init + a + "[u] = " + red_identity(st.kind, at) + ";\n";
    }
    c_ += "    for (IX w = blockIdx.y; w < UNITS; w += gridDim.y) {\n";
    if (all_) {
      c_ += "      const IX C0 = w % TILES_C * TC, R0 = w / TILES_C % TILES_R * TR;\n";
      enter_reduced_index("w / TILES_C / TILES_R", 3);
    } else {
      c_ += "      const IX C0 = w % TILES_C * TC;\n";
      enter_reduced_index("w / TILES_C", 3);
    }
    c_ += "      if (R0 + TR <= NR && C0 + TC <= NC) {  // a whole tile: no masks\n";
    tile_body(false, 4);
    c_ += "      } else {\n";
    tile_body(true, 4);
    c_ += "      }\n";
    if (!staged_in_.empty()) c_ += "      __syncthreads();  // the next chunk's tiles reuse the shared memory\n";
    base_ = "bo";
    c_ += "    }\n";
    if (all_) {
      finish_all(planes);
      return;
    }
    // The row's lanes combine (every thread, every item: the shuffles take whole warps). Rows of
    // two warps (L = 64: 16-bit columns read an element a lane) combine each warp's result
    // through shared memory, the row's first warp's first.
    const bool two_warps = L == 64;
    const std::string W = two_warps ? "32" : "L";
    if (two_warps)
      for (size_t i = 0; i < w_.sp.steps.size(); ++i) {
        const ReductionStep& st = w_.sp.steps[i];
        const std::string t = st.welford ? "Welford" : compute_type(accumulator_dtype(w_.f.value(w_.f.nodes()[st.node].out[0]).dtype));
        c_ += "    __shared__ " + t + " x" + acc_[i] + "[THREADS / 32];  // each warp's half of its rows\n";
      }
    c_ += "#pragma unroll\n    for (int u = 0; u < " + num(pu) + "; ++u) {\n";
    for (size_t i = 0; i < w_.sp.steps.size(); ++i) {
      const ReductionStep& st = w_.sp.steps[i];
      const std::string a = acc_[i];
      if (st.welford) {
        c_ += "      Welford m" + a + " = warp_welford<" + W + ">({" + a + "n[u], " + a + "n[u] > 0.f ? " + a + "k[u] + " + a + "[u] / " + a +
              "n[u] : 0.f, " + a + "n[u] > 0.f ? fmaxf(" + a + "q[u] - " + a + "[u] * " + a + "[u] / " + a + "n[u], 0.f) : 0.f});\n";
        if (two_warps)
          c_ += "      if ((threadIdx.x & 31) == 0) x" + a + "[threadIdx.x >> 5] = m" + a + ";\n      __syncthreads();\n      m" + a +
                " = welford_merge(x" + a + "[threadIdx.x >> 6 << 1], x" + a + "[(threadIdx.x >> 6 << 1) + 1]);\n      __syncthreads();\n";
        c_ += "      " + a + "n[u] = m" + a + ".n;\n      " + a + "[u] = m" + a + ".mean;\n      " + a + "q[u] = m" + a + ".m2;\n";
        continue;
      }
      c_ += "      " + a + "[u] = warp_reduce<" + red_struct(st.kind) + ", " + W + ">(" + a + "[u]);\n";
      if (two_warps)
        c_ += "      if ((threadIdx.x & 31) == 0) x" + a + "[threadIdx.x >> 5] = " + a + "[u];\n      __syncthreads();\n      " + a + "[u] = " +
              combine(st.kind, "x" + a + "[threadIdx.x >> 6 << 1]", "x" + a + "[(threadIdx.x >> 6 << 1) + 1]") + ";\n      __syncthreads();\n";
    }
    c_ += "    }\n";
    c_ += "    if (gridDim.y == 1) {\n";
    c_ += "#pragma unroll\n      for (int u = 0; u < " + num(pu) + "; ++u) {\n";
    c_ += "        const int it = threadIdx.x + u * THREADS, row = it / L;\n        const IX r = R0 + row;\n";
    c_ += "        if (it % L != 0 || it >= " + num(items) + " || r >= NR) continue;\n";
    std::vector<std::string> at_u;
    for (const auto& pl : planes) at_u.push_back(pl.first + "[u]");
    row_outputs(at_u, 4);
    c_ += "      }\n    } else {\n";
    c_ += "      // Split: this block's rows' partials into its split's cells; the tile's last block combines.\n";
    scratch_planes(planes, " * TR");
    c_ += "#pragma unroll\n      for (int u = 0; u < " + num(pu) + "; ++u) {\n";
    c_ += "        const int it = threadIdx.x + u * THREADS;\n";
    c_ += "        if (it % L != 0 || it >= " + num(items) + ") continue;\n";
    c_ += "        const i64 cell = ((i64)blockIdx.y * TILES + t) * TR + it / L;\n";
    for (const auto& pl : planes) c_ += "        g" + pl.first + "[cell] = " + pl.first + "[u];\n";
    c_ += "      }\n";
    elect_last_block();
    c_ += "      if (tlast) {\n        __threadfence();\n";
    c_ += "        // S lanes a row take the splits y = sub, sub + S, ... each; then a shuffle combine.\n";
    c_ += "        constexpr int S = THREADS / TR;\n        const int row = threadIdx.x / S, sub = threadIdx.x % S;\n";
    c_ += "        const IX r = R0 + row;\n        {\n";
    std::vector<std::string> total;
    for (size_t i = 0; i < w_.sp.steps.size(); ++i) {
      const std::string a = acc_[i];
      if (w_.sp.steps[i].welford)
        for (const char* field : {".n", ".mean", ".m2"}) total.push_back("m" + a + field);
      else
        total.push_back("t" + a);
    }
    merged_splits("#pragma unroll 4\n          for (int y = sub; y < (int)gridDim.y; y += S) {\n            const i64 cell = ((i64)y * TILES + t) * TR + row;\n");
    for (size_t i = 0; i < w_.sp.steps.size(); ++i) {
      const ReductionStep& st = w_.sp.steps[i];
      const std::string a = acc_[i];
      if (st.welford) c_ += "          m" + a + " = warp_welford<S>(m" + a + ");\n";
      else c_ += "          t" + a + " = warp_reduce<" + red_struct(st.kind) + ", S>(t" + a + ");\n";
    }
    c_ += "          if (sub == 0 && r < NR) {\n";
    row_outputs(total, 6);
    c_ += "          }\n        }\n        if (threadIdx.x == 0) ((unsigned*)p.scratch)[t] = 0u;  // for the next launch\n      }\n";
    c_ += "    }\n";
    if (!staged_all().empty()) c_ += "    if (t + gridDim.x < TILES) __syncthreads();  // the tiles' shared memory is reused\n";
    c_ += "  }\n}\n";
  }

  // Each accumulator's merge of the splits' partials (scratch_planes), m<a> (Welford) or t<a>,
  // over the cells that `loop` (a for statement's head, defining `cell`) walks; the partials
  // read through L2 (other blocks wrote them).
  void merged_splits(const std::string& loop) {
    for (size_t i = 0; i < w_.sp.steps.size(); ++i) {
      const ReductionStep& st = w_.sp.steps[i];
      const std::string a = acc_[i];
      if (st.welford) {
        c_ += "          Welford m" + a + " = {0.f, 0.f, 0.f};\n";
        continue;
      }
      const DType at = accumulator_dtype(w_.f.value(w_.f.nodes()[st.node].out[0]).dtype);
      c_ += "          " + std::string(compute_type(at)) + " t" + a + " = " + red_identity(st.kind, at) + ";\n";
    }
    c_ += loop;
    for (size_t i = 0; i < w_.sp.steps.size(); ++i) {
      const ReductionStep& st = w_.sp.steps[i];
      const std::string a = acc_[i];
      if (st.welford)
        c_ += "            m" + a + " = welford_merge(m" + a + ", {__ldcg(g" + a + "n + cell), __ldcg(g" + a + " + cell), __ldcg(g" + a + "q + cell)});\n";
      else
        c_ += "            t" + a + " = " + combine(st.kind, "t" + a, "__ldcg(g" + a + " + cell)") + ";\n";
    }
    c_ += "          }\n";
  }

  // The split partials' planes in scratch after the tiles' counters (launch_grid's
  // grid_scratch): g<accumulator>, each of 8-byte cells [split][tile][cell of a tile]
  // (`per_tile`: " * (TR * TC)", an element each; " * TR", a row each; "", one a tile).
  void scratch_planes(const std::vector<std::pair<std::string, std::string>>& planes, const std::string& per_tile) {
    c_ += "      const i64 cells = (i64)gridDim.y * TILES" + per_tile + ";\n";
    c_ += "      unsigned char* const sbase = (unsigned char*)p.scratch + (TILES + 3) / 4 * 16;\n";
    for (size_t q = 0; q < planes.size(); ++q)
      c_ += "      " + planes[q].second + "* const g" + planes[q].first + " = (" + planes[q].second + "*)(sbase + " + num(8 * static_cast<long long>(q)) +
            " * cells);\n";
  }

  // After a split block's partials are written: `tlast`, whether it is the tile's last block
  // to finish (the tile's counter t in scratch), for every thread of the block.
  void elect_last_block() {
    c_ += "      __threadfence();\n      __syncthreads();\n      __shared__ bool tlast;\n";
    c_ += "      if (threadIdx.x == 0) tlast = atomicAdd((unsigned*)p.scratch + t, 1u) == gridDim.y - 1;\n";
    c_ += "      __syncthreads();\n";
  }

  // An emitter whose values are the reductions' results (value id -> its variable in `results`,
  // which outlives the emitter).
  ExprEmitter results_emitter(const std::map<int, std::string>& results) const {
    ExprEmitter em(w_.f, [&results](int v) -> std::string {
      auto it = results.find(v);
      return it != results.end() ? it->second : std::string();
    });
    em.set_narrow_results(w_.narrow_results());
    return em;
  }

  // A tile per kept index (tile_reduces_all): each thread's items merge, then the block's threads
  // (shuffles, then the warps in order through shared memory: thread 0 holds the total); with one
  // split thread 0 writes the outputs, with several each block leaves its total in its split's
  // cell and the index's last block combines them (a strided share of the splits a thread, then
  // the same block combine) and writes the outputs.
  void finish_all(const std::vector<std::pair<std::string, std::string>>& planes) {
    const int pu = per(items2());
    std::vector<std::string> tot;  // each accumulator's thread total (var_mean: a Welford)
    for (size_t i = 0; i < w_.sp.steps.size(); ++i) {
      const ReductionStep& st = w_.sp.steps[i];
      const std::string a = acc_[i];
      if (st.welford) {
        c_ += "    Welford m" + a + " = {0.f, 0.f, 0.f};\n#pragma unroll\n    for (int u = 0; u < " + num(pu) + "; ++u)\n      m" + a +
              " = welford_merge(m" + a + ", {" + a + "n[u], " + a + "n[u] > 0.f ? " + a + "k[u] + " + a + "[u] / " + a + "n[u] : 0.f, " + a +
              "n[u] > 0.f ? fmaxf(" + a + "q[u] - " + a + "[u] * " + a + "[u] / " + a + "n[u], 0.f) : 0.f});\n";
        tot.push_back("m" + a);
        continue;
      }
      c_ += "#pragma unroll\n    for (int u = 1; u < " + num(pu) + "; ++u) " + a + "[0] = " + combine(st.kind, a + "[0]", a + "[u]") + ";\n";
      tot.push_back(a + "[0]");
    }
    block_combine(tot, "b", 2);
    auto outputs = [&](const std::vector<std::string>& t, int ind) {
      std::vector<std::string> totals;
      for (size_t i = 0; i < w_.sp.steps.size(); ++i)
        if (w_.sp.steps[i].welford) {
          totals.push_back(t[i] + ".n");
          totals.push_back(t[i] + ".mean");
          totals.push_back(t[i] + ".m2");
        } else {
          totals.push_back(t[i]);
        }
      c_ += I(ind) + "const IX r = 0;\n";
      row_outputs(totals, ind);
    };
    c_ += "    if (gridDim.y == 1) {\n      if (threadIdx.x == 0) {\n";
    outputs(tot, 4);
    c_ += "      }\n    } else {\n";
    c_ += "      // Split: this block's total into its split's cell; the index's last block combines.\n";
    scratch_planes(planes, "");
    c_ += "      if (threadIdx.x == 0) {\n        const i64 cell = (i64)blockIdx.y * TILES + t;\n";
    for (size_t i = 0, q = 0; i < w_.sp.steps.size(); ++i) {
      if (w_.sp.steps[i].welford) {
        c_ += "        g" + planes[q].first + "[cell] = " + tot[i] + ".n;\n        g" + planes[q + 1].first + "[cell] = " + tot[i] + ".mean;\n        g" +
              planes[q + 2].first + "[cell] = " + tot[i] + ".m2;\n";
        q += 3;
        continue;
      }
      c_ += "        g" + planes[q].first + "[cell] = " + tot[i] + ";\n";
      ++q;
    }
    c_ += "      }\n";
    elect_last_block();
    c_ += "      if (tlast) {\n        __threadfence();\n";
    std::vector<std::string> sum;
    for (size_t i = 0; i < w_.sp.steps.size(); ++i) {
      const ReductionStep& st = w_.sp.steps[i];
      const std::string a = acc_[i];
      if (st.welford) {
        c_ += "        Welford s" + a + " = {0.f, 0.f, 0.f};\n";
        sum.push_back("s" + a);
        continue;
      }
      const DType at = accumulator_dtype(w_.f.value(w_.f.nodes()[st.node].out[0]).dtype);
      c_ += "        " + std::string(compute_type(at)) + " s" + a + " = " + red_identity(st.kind, at) + ";\n";
      sum.push_back("s" + a);
    }
    c_ += "        for (int y = threadIdx.x; y < (int)gridDim.y; y += THREADS) {\n          const i64 cell = (i64)y * TILES + t;\n";
    for (size_t i = 0, q = 0; i < w_.sp.steps.size(); ++i) {
      const ReductionStep& st = w_.sp.steps[i];
      if (st.welford) {
        c_ += "          " + sum[i] + " = welford_merge(" + sum[i] + ", {__ldcg(g" + planes[q].first + " + cell), __ldcg(g" + planes[q + 1].first +
              " + cell), __ldcg(g" + planes[q + 2].first + " + cell)});\n";
        q += 3;
        continue;
      }
      c_ += "          " + sum[i] + " = " + combine(st.kind, sum[i], "__ldcg(g" + planes[q].first + " + cell)") + ";\n";
      ++q;
    }
    c_ += "        }\n";
    block_combine(sum, "f", 4);
    c_ += "        if (threadIdx.x == 0) {\n";
    outputs(sum, 5);
    c_ += "          ((unsigned*)p.scratch)[t] = 0u;  // for the next launch\n        }\n      }\n    }\n";
    if (!staged_all().empty()) c_ += "    if (t + gridDim.x < TILES) __syncthreads();  // the tiles' shared memory is reused\n";
    c_ += "  }\n}\n";
  }

  // Each thread's values `v` combined over the block: shuffles within each warp, then thread 0
  // takes the warps' results in warp order through shared memory (`tag` names the arrays).
  void block_combine(const std::vector<std::string>& v, const std::string& tag, int ind) {
    for (size_t i = 0; i < w_.sp.steps.size(); ++i) {
      const ReductionStep& st = w_.sp.steps[i];
      const std::string arr = tag + acc_[i];
      std::string type = "Welford";
      if (st.welford) {
        c_ += I(ind) + v[i] + " = warp_welford<32>(" + v[i] + ");\n";
      } else {
        type = compute_type(accumulator_dtype(w_.f.value(w_.f.nodes()[st.node].out[0]).dtype));
        c_ += I(ind) + v[i] + " = warp_reduce<" + red_struct(st.kind) + ", 32>(" + v[i] + ");\n";
      }
      c_ += I(ind) + "__shared__ " + type + " " + arr + "[THREADS / 32];\n";
      c_ += I(ind) + "if ((threadIdx.x & 31) == 0) " + arr + "[threadIdx.x >> 5] = " + v[i] + ";\n";
    }
    c_ += I(ind) + "__syncthreads();\n" + I(ind) + "if (threadIdx.x == 0)\n" + I(ind + 1) + "for (int i = 1; i < THREADS / 32; ++i) {\n";
    for (size_t i = 0; i < w_.sp.steps.size(); ++i) {
      const std::string arr = tag + acc_[i] + "[i]";
      c_ += I(ind + 2) + v[i] + " = " + (w_.sp.steps[i].welford ? "welford_merge(" + v[i] + ", " + arr + ")" : combine(w_.sp.steps[i].kind, v[i], arr)) +
            ";\n";
    }
    c_ += I(ind + 1) + "}\n" + I(ind) + "__syncthreads();  // the arrays are reused by the next tile\n";
  }

  // One tile row's outputs at row r from its totals (the planes' values, in plane order: var_mean
  // n, mean, M2; other reductions their combined accumulator): the reductions' results as the
  // reference defines them (the counts over every reduced element, NRB * NC, times NR where the
  // rows are reduced too), the math on them,
  // element stores (outputs vary along kept dims only).
  void row_outputs(const std::vector<std::string>& totals, int ind) {
    std::map<int, std::string> results;
    size_t q = 0;
    c_ += I(ind) + (all_ ? "const IX NRED = NRB * NR * NC;\n" : "const IX NRED = NRB * NC;\n");
    for (size_t i = 0; i < w_.sp.steps.size(); ++i) {
      const ReductionStep& st = w_.sp.steps[i];
      const Node& node = w_.f.nodes()[st.node];
      auto declare = [&](int v, const std::string& expr) {
        const std::string name = "res" + num(v);
        c_ += I(ind) + "const " + std::string(compute_type(w_.dt(v))) + " " + name + " = " + rounded(w_.dt(v), "(" + expr + ")") + ";\n";
        results[v] = name;
      };
      if (st.welford) {  // var = M2 / (n - correction), mean
        const std::string corr = num(node.attrs.correction), cnt = "(float)NRED";
        declare(node.out[0], totals[q + 2] + " / (" + cnt + " - " + corr + ".f > 0.f ? " + cnt + " - " + corr + ".f : 0.f)");
        declare(node.out[1], totals[q + 1]);
        q += 3;
        continue;
      }
      const DType at = accumulator_dtype(w_.f.value(node.out[0]).dtype);
      declare(node.out[0], st.kind == Op::Mean ? totals[q] + " / (" + compute_type(at) + ")NRED" : totals[q]);
      ++q;
    }
    ExprEmitter em = results_emitter(results);
    for (int k : outs_) {
      const std::string conv = w_.stored(em, k, I(ind));
      c_ += I(ind) + (is(k, Access::Scalar) ? "if (r == 0) " : "") + w_.ptr(k) + "[" + off(k, "r", "0") + "] = " + conv + ";\n";
    }
  }

  // After the reduced loop: each item's elements' results (mean: the sum over NRB), the math on
  // them, the stores (direct outputs as vectors along the columns in whole tiles, staged ones
  // through shared memory as vectors along the rows).
  void write_epilogue(bool masked, int items, int pu) {
    const int ind = 3;
    c_ += "#pragma unroll\n" + I(ind) + "for (int u = 0; u < " + num(pu) + "; ++u) {\n";
    c_ += I(ind + 1) + "const int it = threadIdx.x + u * THREADS;\n";
    if (items % P_.threads) c_ += I(ind + 1) + "if (it >= " + num(items) + ") break;\n";
    item_head(ind + 1);
    c_ += I(ind + 1) + "(void)c0;\n";
    if (masked) c_ += I(ind + 1) + "if (r >= NR) continue;\n";
    const bool vectors = !masked;
    if (vectors)
      for (int k : outs_)
        if (w_.vectorized(k)) c_ += I(ind + 1) + "Vec<" + T(k) + ", VEC> out" + n(k) + ";\n";
    for (int k : staged_out_)
      if (P_.vec >= E(k)) c_ += I(ind + 1) + "Vec<" + T(k) + ", VEC> so" + n(k) + " = {};\n";
    c_ += "#pragma unroll\n" + I(ind + 1) + "for (int j = 0; j < VEC; ++j) {\n";
    const int in = ind + 2;
    if (masked) c_ += I(in) + "if (c0 + j >= NC) break;\n";
    c_ += I(in) + "const IX c = c0 + j;\n" + I(in) + "(void)c;\n";
    std::map<int, std::string> results;
    for (size_t i = 0; i < w_.sp.steps.size(); ++i) {
      const ReductionStep& st = w_.sp.steps[i];
      const Node& node = w_.f.nodes()[st.node];
      const int v = node.out[0];
      if (st.welford) {  // var = max(Σd² - (Σd)² / n, 0) / (n - correction), mean = shift + Σd / n
        const std::string a = acc_[i], cnt = "(float)NRB", corr = num(node.attrs.correction);
        const std::string var = "fmaxf(" + a + "q[u][j] - " + a + "[u][j] * " + a + "[u][j] / " + cnt + ", 0.f) / (" + cnt +
                                " - " + corr + ".f > 0.f ? " + cnt + " - " + corr + ".f : 0.f)";
        const std::string mean = a + "k[u][j] + " + a + "[u][j] / " + cnt;
        for (const auto& [out, expr] : {std::pair{node.out[0], var}, std::pair{node.out[1], mean}}) {
          const std::string name = "res" + num(out);
          c_ += I(in) + "const " + std::string(compute_type(w_.dt(out))) + " " + name + " = " + rounded(w_.dt(out), "(" + expr + ")") + ";\n";
          results[out] = name;
        }
        continue;
      }
      const DType at = accumulator_dtype(w_.f.value(v).dtype);
      const std::string a = acc_[i] + "[u][j]";
      const std::string expr = st.kind == Op::Mean ? a + " / (" + compute_type(at) + ")NRB" : a;
      const std::string name = "res" + num(v);
      c_ += I(in) + "const " + std::string(compute_type(w_.dt(v))) + " " + name + " = " + rounded(w_.dt(v), expr) + ";\n";
      results[v] = name;
    }
    ExprEmitter em = results_emitter(results);
    for (int k : outs_) {
      const std::string conv = w_.stored(em, k, I(in));
      const std::string ref = w_.ptr(k) + "[" + off(k, "r", "c") + "]";
      switch (w_.op(k).access) {
        case Access::Full:
        case Access::Col:
          if (vectors && w_.vectorized(k)) c_ += I(in) + "out" + n(k) + ".e[j] = " + conv + ";\n";
          else c_ += I(in) + (is(k, Access::Col) ? "if (r == 0) " : "") + ref + " = " + conv + ";\n";
          break;
        case Access::Staged:
          if (P_.vec >= E(k)) c_ += I(in) + "so" + n(k) + ".e[j] = " + conv + ";\n";
          else
            c_ += I(in) + slot(k, "row", "(ch * VEC + j) / " + num(E(k))) + ".e[(ch * VEC + j) % " + num(E(k)) + "] = " + conv + ";\n";
          break;
        case Access::Row: c_ += I(in) + "if (c == 0) " + ref + " = " + conv + ";\n"; break;
        case Access::Scalar: c_ += I(in) + "if (r == 0 && c == 0) " + ref + " = " + conv + ";\n"; break;
        default: c_ += I(in) + ref + " = " + conv + ";\n"; break;
      }
    }
    c_ += I(ind + 1) + "}\n";
    if (vectors)
      for (int k : outs_)
        if (w_.vectorized(k))
          c_ += I(ind + 1) + (is(k, Access::Col) ? "if (r == 0) " : "") + "st_vec<" + T(k) + ", VEC>(" + w_.ptr(k) + " + " +
                off(k, "r", "c0") + ", out" + n(k) + ");\n";
    for (int k : staged_out_) {
      if (P_.vec < E(k)) continue;
      const int slots = P_.vec / E(k);
      c_ += "#pragma unroll\n" + I(ind + 1) + "for (int s = 0; s < " + num(slots) + "; ++s) {\n";
      c_ += I(ind + 2) + slot_type(k) + " q;\n";
      for (int e = 0; e < E(k); ++e) c_ += I(ind + 2) + "q.e[" + num(e) + "] = so" + n(k) + ".e[s * " + num(E(k)) + " + " + num(e) + "];\n";
      c_ += I(ind + 2) + slot(k, "row", "ch * " + num(slots) + " + s") + " = q;\n" + I(ind + 1) + "}\n";
    }
    c_ += I(ind) + "}\n";
    if (!staged_out_.empty()) {
      c_ += I(ind) + "__syncthreads();\n";
      unstage(masked, ind);
    }
  }

  Writer& w_;
  const KernelParams& P_;
  std::string& c_;
  const TileDims& t_;
  const bool reduce_;  // a full reduction's tiles (transpose_reduces): elements fold into accumulators
  const bool partial_;  // a partial reduction's tiles (TileDims::reduced_lo): see write_partial
  const bool cross_;    // ... whose columns are reduced dims (tile_reduces_cols): see write_cross
  const bool all_;      // ... and whose rows are too (tile_reduces_all): see finish_all
  std::string base_ = "bo";  // the operands' base offsets that off() adds to
  int rank_ = 0;
  std::vector<int> ins_, outs_, staged_in_, staged_out_;
  std::vector<int> post_outs_;    // reduce: the scalar outputs
  std::vector<std::string> acc_;  // reduce: the accumulators
};

}  // namespace

void write_transpose(Writer& w, KernelSource& out) { TransposeWriter(w).write(out); }

}  // namespace solder::codegen_detail
