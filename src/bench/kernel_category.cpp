#include "bench/kernel_category.h"

#include <algorithm>
#include <cctype>

namespace solder::bench {
namespace {

bool contains(const std::string& hay, const char* needle) { return hay.find(needle) != std::string::npos; }

}  // namespace

const std::vector<std::string>& kernel_categories() {
  static const std::vector<std::string> all = {"pointwise", "reduction", "persistent", "matmul/library", "copy",
                                               "other"};
  return all;
}

std::string kernel_category(const std::string& kernel_name) {
  const std::string prefix = "solder_";
  if (kernel_name.rfind(prefix, 0) == 0) {
    std::string rest = kernel_name.substr(prefix.size());
    std::string cat = rest.substr(0, rest.find('_'));
    if (cat == "pw" || cat == "transpose") return "pointwise";  // transpose: a tiled pointwise kernel
    if (cat == "red") return "reduction";
    if (cat == "norm") return "persistent";
    if (cat == "mm") return "matmul/library";
    if (cat == "copy") return "copy";
    return "other";
  }
  std::string lower = kernel_name;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  for (const char* f : {"gemm", "cutlass", "cublas", "xmma", "matmul", "wgmma"})
    if (contains(lower, f)) return "matmul/library";
  for (const char* f : {"memcpy", "memset", "copy"})
    if (contains(lower, f)) return "copy";
  return "other";
}

}  // namespace solder::bench
