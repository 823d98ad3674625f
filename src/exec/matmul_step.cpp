#include "exec/matmul_step.h"

#include <algorithm>

#include "exec/copy_fusion.h"
#include "runtime/blas.h"
#include "runtime/capture_retention.h"
#include "runtime/device_memory.h"
#include "solder/error.h"
#include "solder/executor.h"

namespace solder {

namespace {
// A matrix operand as cuBLASLt sees it: rows x cols, row stride, transposed storage or not,
// and a single batch stride (0 = broadcast).
struct MatrixView {
  bool ok = false, trans = false;
  int64_t ld = 0, batch_stride = 0;
};

// `meta` is [batch..., r, c] after 1-D promotion; `batch` the broadcast batch sizes.
MatrixView describe(const TensorMeta& meta, const std::vector<int64_t>& batch) {
  MatrixView mv;
  const size_t r = meta.shape.size();
  int64_t rows = meta.shape[r - 2], cols = meta.shape[r - 1];
  int64_t sr = meta.strides[r - 2], sc = meta.strides[r - 1];
  if (cols == 1 || sc == 1) {
    mv.trans = false;
    mv.ld = rows == 1 ? std::max<int64_t>(cols, 1) : sr;
    if (mv.ld < std::max<int64_t>(cols, 1)) return mv;
  } else if (rows == 1 || sr == 1) {
    mv.trans = true;
    mv.ld = cols == 1 ? std::max<int64_t>(rows, 1) : sc;
    if (mv.ld < std::max<int64_t>(rows, 1)) return mv;
  } else {
    return mv;
  }
  // Batch dims (right-aligned against `batch`) must collapse into one stride.
  std::vector<int64_t> st(batch.size(), 0);
  size_t nb = r - 2, off = batch.size() - nb;
  for (size_t i = 0; i < nb; ++i) st[off + i] = meta.shape[i] == 1 ? 0 : meta.strides[i];
  int64_t stride = -1;
  for (int d = static_cast<int>(batch.size()) - 1; d >= 0; --d) {
    if (batch[d] == 1) continue;
    if (stride < 0) {
      stride = st[d];
      mv.batch_stride = stride;
      continue;
    }
    int64_t inner = 1;
    for (size_t e = d + 1; e < batch.size(); ++e) inner *= batch[e];
    if (st[d] != mv.batch_stride * inner) return mv;
  }
  mv.ok = true;
  return mv;
}
}  // namespace

struct MatmulStep::Impl {
  Op op;
  DType dtype;
  std::vector<TensorMeta> in;  // as given
  std::vector<TensorMeta> use; // as handed to cuBLASLt (promoted / possibly copied)
  std::vector<bool> copy;
  std::vector<std::shared_ptr<Executor>> copier;
  int64_t batch = 1, m = 1, n = 1, k = 1;
  MatrixView a, b;
  bool has_bias = false;
};

MatmulStep::MatmulStep(Op op, const std::vector<TensorMeta>& inputs, const TensorMeta& output)
    : impl_(std::make_unique<Impl>()) {
  Impl& im = *impl_;
  im.op = op;
  im.in = inputs;
  im.dtype = inputs[0].dtype;
  if (im.dtype != DType::F32 && im.dtype != DType::F16 && im.dtype != DType::BF16)
    throw Error(std::string(op_name(op)) + ": the GPU path supports f32, f16 and bf16, got " +
                std::string(dtype_name(im.dtype)));
  if (!blas_available()) throw Error(std::string(op_name(op)) + " needs cuBLASLt: " + blas_unavailable_reason());
  TensorMeta A = inputs[0], B = inputs[1];
  if (op == Op::Linear) {
    // x[..., K] -> [M, K] (view when the leading dims merge); w[N, K] used transposed.
    int64_t K = A.shape.back();
    int64_t M = A.numel() / std::max<int64_t>(K, 1);
    TensorMeta flat;
    int64_t off = 0;
    Node reshape{Op::Reshape, {}, {}, {}};
    if (!view_meta(reshape, A, {M, K}, flat, off)) {
      im.copy.push_back(true);
      flat = TensorMeta::contiguous(A.dtype, {M, K});
    } else {
      im.copy.push_back(false);
    }
    A = flat;
    TensorMeta Bt{B.dtype, {B.shape[1], B.shape[0]}, {B.strides[1], B.strides[0]}};
    B = Bt;
    im.copy.push_back(false);
    im.has_bias = inputs.size() == 3;
  } else {
    if (A.shape.size() == 1) A = TensorMeta{A.dtype, {1, A.shape[0]}, {0, A.strides[0]}};
    if (B.shape.size() == 1) B = TensorMeta{B.dtype, {B.shape[0], 1}, {B.strides[0], 0}};
    im.copy = {false, false};
  }
  // Broadcast batch dims.
  std::vector<int64_t> batch;
  size_t na = A.shape.size() - 2, nb = B.shape.size() - 2, nbat = std::max(na, nb);
  batch.assign(nbat, 1);
  for (size_t i = 0; i < na; ++i) batch[nbat - na + i] = std::max(batch[nbat - na + i], A.shape[i]);
  for (size_t i = 0; i < nb; ++i) batch[nbat - nb + i] = std::max(batch[nbat - nb + i], B.shape[i]);
  for (auto x : batch) im.batch *= x;
  im.m = A.shape[A.shape.size() - 2];
  im.k = A.shape.back();
  im.n = B.shape.back();
  im.a = describe(A, batch);
  im.b = describe(B, batch);
  // Operands strides cannot express: copy them dense (batch expanded) first.
  auto densify = [&](TensorMeta& t, MatrixView& v, size_t idx) {
    if (v.ok) return;
    std::vector<int64_t> full = batch;
    full.push_back(t.shape[t.shape.size() - 2]);
    full.push_back(t.shape.back());
    TensorMeta expanded = t;
    size_t lead = full.size() - t.shape.size();
    expanded.shape = full;
    expanded.strides.assign(full.size(), 0);
    for (size_t i = 0; i < t.shape.size(); ++i) expanded.strides[lead + i] = t.shape[i] == 1 ? 0 : t.strides[i];
    t = expanded;
    im.copy[idx] = true;
    v = describe(TensorMeta::contiguous(t.dtype, full), batch);
  };
  densify(A, im.a, 0);
  densify(B, im.b, 1);
  im.use = {A, B};
  for (size_t i = 0; i < 2; ++i)
    if (im.copy[i]) {
      size_t rank = op == Op::Linear && i == 0 ? inputs[0].shape.size() : im.use[i].shape.size();
      im.copier.push_back(std::make_shared<Executor>(make_copy_fusion(im.dtype, rank), true));
    }
    else im.copier.push_back(nullptr);
  (void)output;
}

MatmulStep::~MatmulStep() = default;

void MatmulStep::run(const std::vector<uint64_t>& inputs, uint64_t output, CUstream stream) {
  Impl& im = *impl_;
  uint64_t pa = inputs[0], pb = inputs[1];
  std::shared_ptr<DeviceBuffer> ta, tb;
  auto dense = [&](size_t i, uint64_t src, std::shared_ptr<DeviceBuffer>& tmp) {
    const TensorMeta& u = im.use[i];
    // The source as a view with the operand's (possibly expanded) shape.
    TensorMeta srcm = u;
    if (im.op == Op::Linear && i == 0) srcm = im.in[0];
    TensorMeta c = TensorMeta::contiguous(u.dtype, u.shape);
    tmp = std::make_shared<DeviceBuffer>(static_cast<size_t>(std::max<int64_t>(c.bytes(), 1)));
    DeviceTensor in{srcm.dtype, srcm.shape, srcm.strides, src, nullptr};
    TensorMeta dst = im.op == Op::Linear && i == 0 ? TensorMeta::contiguous(u.dtype, srcm.shape) : c;
    std::vector<DeviceTensor> out{{dst.dtype, dst.shape, dst.strides, tmp->ptr(), nullptr}};
    im.copier[i]->run({in}, stream, &out);
    return tmp->ptr();
  };
  if (im.copy[0]) pa = dense(0, pa, ta);
  if (im.copy[1]) pb = dense(1, pb, tb);
  if (retaining_for_capture()) {  // a captured graph replays on these addresses
    retain_for_capture(ta);
    retain_for_capture(tb);
  }
  MatmulStrides st;
  st.lda = im.a.ld;
  st.ldb = im.b.ld;
  st.ldc = im.n;
  st.batch_a = im.a.batch_stride;
  st.batch_b = im.b.batch_stride;
  st.batch_c = im.m * im.n;
  blas_matmul(im.dtype, pa, pb, output, im.batch, im.m, im.n, im.k, st, im.a.trans, im.b.trans, stream,
              im.has_bias ? inputs[2] : 0, false);
}

}  // namespace solder
