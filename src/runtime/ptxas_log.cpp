// Parser for ptxas's verbose report (the -v lines NVRTC puts in its program log).
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <sstream>

#include "runtime/compiler.h"

namespace solder {
namespace {

// The integer written just before `suffix` in `line` ("1024 bytes stack frame"), or -1.
int number_before(const std::string& line, const std::string& suffix) {
  size_t pos = line.find(suffix);
  if (pos == std::string::npos) return -1;
  size_t end = pos;
  while (end > 0 && line[end - 1] == ' ') --end;
  size_t begin = end;
  while (begin > 0 && std::isdigit(static_cast<unsigned char>(line[begin - 1]))) --begin;
  if (begin == end) return -1;
  return std::atoi(line.substr(begin, end - begin).c_str());
}

// The text between the first pair of single quotes after `marker`, or "" when absent.
std::string quoted_after(const std::string& line, const std::string& marker) {
  size_t pos = line.find(marker);
  if (pos == std::string::npos) return "";
  size_t open = line.find('\'', pos + marker.size());
  if (open == std::string::npos) return "";
  size_t close = line.find('\'', open + 1);
  if (close == std::string::npos) return "";
  return line.substr(open + 1, close - open - 1);
}

}  // namespace

PtxasInfo parse_ptxas_log(const std::string& log, const std::string& kernel) {
  PtxasInfo info;
  std::string target = kernel;  // empty until the first entry function when no kernel is given
  std::string entry;            // entry function whose "Used N registers" line comes next
  std::string props_for;        // function whose stack/spill line comes next
  bool saw_entry = false;
  std::istringstream in(log);
  std::string line;
  while (std::getline(in, line)) {
    if (std::string e = quoted_after(line, "Compiling entry function"); !e.empty()) {
      entry = e;
      saw_entry = true;
      if (target.empty()) target = e;
      continue;
    }
    if (size_t p = line.find("Function properties for "); p != std::string::npos) {
      props_for = line.substr(p + 24);
      while (!props_for.empty() && std::isspace(static_cast<unsigned char>(props_for.back()))) props_for.pop_back();
      continue;
    }
    // A log fragment without headers (e.g. pasted lines) counts as the one kernel.
    bool stack_line = line.find("bytes stack frame") != std::string::npos;
    if (stack_line && (!saw_entry || props_for == target || props_for.empty())) {
      info.stack_bytes = std::max(0, number_before(line, "bytes stack frame"));
      info.spill_store_bytes = std::max(0, number_before(line, "bytes spill stores"));
      info.spill_load_bytes = std::max(0, number_before(line, "bytes spill loads"));
      continue;
    }
    int regs = number_before(line, "registers");
    if (line.find("Used ") != std::string::npos && regs >= 0 && (!saw_entry || entry == target)) {
      info.registers = regs;
      // Static shared memory; absent from the line when the kernel declares none.
      info.smem_bytes = std::max(0, number_before(line, "bytes smem"));
    }
  }
  return info;
}

PtxasInfo parse_ptxas_log(const std::string& log) { return parse_ptxas_log(log, ""); }

}  // namespace solder
