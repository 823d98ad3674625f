#include "frontend/kernel_dump.h"

#include <filesystem>
#include <fstream>
#include <system_error>

#include "solder/error.h"

namespace solder {
namespace {

void write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path);
  if (!out) throw Error("cannot write " + path.string());
  out << text;
  if (!out) throw Error("failed writing " + path.string());
}

}  // namespace

std::vector<std::string> dump_kernel_sources(const std::vector<KernelSourceInfo>& kernels, const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw Error("cannot create dump directory " + dir + ": " + ec.message());
  std::vector<std::string> written;
  for (const auto& k : kernels) {
    // Kernel names are C identifiers, so they are safe file names as they are.
    auto cu = std::filesystem::path(dir) / (k.name + ".cu");
    write_text(cu, k.source);
    auto px = std::filesystem::path(dir) / (k.name + ".ptxas.txt");
    write_text(px, "kernel " + k.name + ": " + std::to_string(k.registers) + " registers, " +
                       std::to_string(k.spill_bytes) + " bytes spilled (stores + loads)\n\n" + k.ptxas_log +
                       (k.ptxas_log.empty() || k.ptxas_log.back() == '\n' ? "" : "\n"));
    written.push_back(cu.string());
    written.push_back(px.string());
  }
  return written;
}

}  // namespace solder
