// Locates the CUDA toolkit from the libnvrtc this process has loaded (it is linked, so it is
// always there), falling back to the usual environment variables and install prefix.
#include "runtime/toolkit_paths.h"

#include <dlfcn.h>
#include <nvrtc.h>

#include <cstdlib>
#include <filesystem>

namespace solder {
namespace {

namespace fs = std::filesystem;

bool has_fp16_header(const fs::path& dir) {
  std::error_code ec;
  return !dir.empty() && fs::exists(dir / "cuda_fp16.h", ec);
}

std::string find_library_dir() {
  Dl_info info{};
  if (!dladdr(reinterpret_cast<void*>(&nvrtcVersion), &info) || !info.dli_fname) return "";
  std::error_code ec;
  fs::path lib = fs::canonical(info.dli_fname, ec);
  return ec ? "" : lib.parent_path().string();
}

std::string find_include_dir() {
  if (const char* env = std::getenv("SOLDER_CUDA_INCLUDE"); env && has_fp16_header(env)) return env;
  if (!cuda_library_dir().empty()) {
    // <toolkit>/lib64, or <toolkit>/targets/<triple>/lib: the headers sit in the sibling include/.
    fs::path inc = fs::path(cuda_library_dir()).parent_path() / "include";
    if (has_fp16_header(inc)) return inc.string();
  }
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
    if (const char* env = std::getenv(var); env && has_fp16_header(fs::path(env) / "include"))
      return (fs::path(env) / "include").string();
  }
  if (has_fp16_header("/usr/local/cuda/include")) return "/usr/local/cuda/include";
  return "";
}

}  // namespace

const std::string& cuda_library_dir() {
  static const std::string dir = find_library_dir();
  return dir;
}

const std::string& cuda_include_dir() {
  static const std::string dir = find_include_dir();
  return dir;
}

}  // namespace solder
