// matmul (torch.matmul semantics) and linear, accumulating in double and rounding once.
#include "reference/eval.h"
#include "solder/error.h"

namespace solder::ref {

namespace {
[[noreturn]] void fail(const Node& n, const std::string& why) {
  throw Error(std::string(op_name(n.op)) + " (reference): " + why);
}

Sizes broadcast_sizes(const Node& n, const Sizes& a, const Sizes& b) {
  size_t r = std::max(a.size(), b.size());
  Sizes out(r);
  for (size_t i = 0; i < r; ++i) {
    int64_t x = i < r - a.size() ? 1 : a[i - (r - a.size())];
    int64_t y = i < r - b.size() ? 1 : b[i - (r - b.size())];
    if (x != y && x != 1 && y != 1) fail(n, "batch dims " + sizes_str(a) + " and " + sizes_str(b) + " do not broadcast");
    out[i] = x == 1 ? y : x;
  }
  return out;
}

Buf matmul(const Node& n, const Buf& a0, const Buf& b0, const OutSpec& out) {
  if (a0.shape.empty() || b0.shape.empty()) fail(n, "operands must have rank >= 1");
  // 1-D operands become a row (a) / column (b) matrix; their unit dim is absent from the result.
  Sizes sa = a0.shape, sb = b0.shape;
  if (sa.size() == 1) sa.insert(sa.begin(), 1);
  if (sb.size() == 1) sb.push_back(1);
  const int64_t M = sa[sa.size() - 2], K = sa.back(), N = sb.back();
  if (sb[sb.size() - 2] != K) fail(n, "contracted sizes differ: " + sizes_str(a0.shape) + " @ " + sizes_str(b0.shape));
  Sizes batch = broadcast_sizes(n, Sizes(sa.begin(), sa.end() - 2), Sizes(sb.begin(), sb.end() - 2));
  Sizes fa = batch, fb = batch;
  fa.insert(fa.end(), {M, K});
  fb.insert(fb.end(), {K, N});
  auto A = broadcast_to(Buf{sa, a0.data}, fa), B = broadcast_to(Buf{sb, b0.data}, fb);
  const int64_t batches = numel(batch);
  if (batches * M * N != numel(out.shape)) fail(n, "result size differs from the IR's " + sizes_str(out.shape));
  Buf r{out.shape, Doubles(static_cast<size_t>(batches * M * N), 0.0)};
  // i-k-j order walks B and the result rows contiguously; each sum still runs over k in order.
  for (int64_t p = 0; p < batches; ++p)
    for (int64_t i = 0; i < M; ++i) {
      double* row = r.data.data() + (p * M + i) * N;
      for (int64_t k = 0; k < K; ++k) {
        const double a = A[(p * M + i) * K + k];
        const double* brow = B.data() + (p * K + k) * N;
        for (int64_t j = 0; j < N; ++j) row[j] += a * brow[j];
      }
    }
  return r;
}

Buf linear(const Node& n, const std::vector<const Buf*>& in, const OutSpec& out) {
  const Buf &x = *in.at(0), &w = *in.at(1);
  if (x.shape.empty() || w.shape.size() != 2 || w.shape[1] != x.shape.back())
    fail(n, "expected x[..., K] and w[N, K], got " + sizes_str(x.shape) + " and " + sizes_str(w.shape));
  const int64_t N = w.shape[0], K = w.shape[1];
  const int64_t rows = N ? numel(out.shape) / N : 0;
  if ((N && rows * K != numel(x.shape)) || rows * N != numel(out.shape))
    fail(n, "x " + sizes_str(x.shape) + " does not match the IR's result " + sizes_str(out.shape));
  const Buf* bias = in.size() > 2 ? in[2] : nullptr;
  if (bias && bias->data.size() != static_cast<size_t>(N)) fail(n, "bias must have N elements");
  Buf r{out.shape, Doubles(static_cast<size_t>(rows * N))};
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < N; ++j) {
      double s = 0;
      for (int64_t k = 0; k < K; ++k) s += x.data[i * K + k] * w.data[j * K + k];
      r.data[i * N + j] = bias ? s + bias->data[j] : s;  // bias after the dot, like a GEMM epilogue
    }
  return r;
}
}  // namespace

Buf eval_matmul(const Node& n, const std::vector<const Buf*>& in, const OutSpec& out) {
  Buf r = n.op == Op::Linear ? linear(n, in, out) : matmul(n, *in.at(0), *in.at(1), out);
  round_all(r.data, out.dtype);
  return r;
}

}  // namespace solder::ref
