#pragma once
// Element-parallel loops for the reference executor: the GPU tests check kernels of up to
// 512 x 65536 elements against it, node by node, and one thread made those tests minutes of
// the device's time. Every loop it runs writes only its own elements, so the result does not
// depend on the number of threads.
#include <algorithm>
#include <cstdint>
#include <exception>
#include <thread>
#include <vector>

namespace solder::ref {

// Runs f(begin, end) over [0, n) in contiguous chunks, on up to one thread per core; ranges
// under 2^16 elements run inline. An exception thrown in any chunk is rethrown here.
template <class F>
void parallel_for(int64_t n, F&& f) {
  constexpr int64_t kGrain = int64_t{1} << 16;
  const int64_t threads = std::min<int64_t>(std::max(1u, std::thread::hardware_concurrency()), (n + kGrain - 1) / kGrain);
  if (threads <= 1) {
    f(int64_t{0}, n);
    return;
  }
  const int64_t chunk = (n + threads - 1) / threads;
  std::vector<std::exception_ptr> errors(static_cast<size_t>(threads));
  auto run = [&](int64_t t) {
    try {
      f(t * chunk, std::min(n, (t + 1) * chunk));
    } catch (...) {
      errors[static_cast<size_t>(t)] = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  for (int64_t t = 1; t < threads; ++t) pool.emplace_back(run, t);
  run(0);
  for (auto& th : pool) th.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace solder::ref
