#include "frontend/size_args.h"

#include <charconv>

#include "solder/error.h"

namespace solder {

namespace {

int64_t parse_count(const std::string& text, const std::string& whole) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || v < 0)
    throw Error("bad size '" + text + "' in '" + whole + "' (expected a non-negative integer)");
  return v;
}

std::pair<std::string, std::string> split_assignment(const std::string& arg, const char* what) {
  size_t eq = arg.find('=');
  if (eq == std::string::npos || eq == 0)
    throw Error(std::string("bad ") + what + " '" + arg + "' (expected NAME=VALUE)");
  return {arg.substr(0, eq), arg.substr(eq + 1)};
}

}  // namespace

std::vector<int64_t> parse_shape_spec(const std::string& text) {
  std::vector<int64_t> dims;
  if (text.empty() || text == "scalar") return dims;
  size_t p = 0;
  while (true) {
    size_t x = text.find('x', p);
    dims.push_back(parse_count(text.substr(p, x == std::string::npos ? std::string::npos : x - p), text));
    if (x == std::string::npos) break;
    p = x + 1;
  }
  return dims;
}

ShapeArgs parse_shape_args(const std::vector<std::string>& args) {
  ShapeArgs out;
  for (const auto& a : args) {
    auto [name, spec] = split_assignment(a, "--shape");
    if (out.count(name)) throw Error("--shape " + name + " is given twice");
    out[name] = parse_shape_spec(spec);
  }
  return out;
}

Bindings parse_size_args(const std::vector<std::string>& args) {
  Bindings out;
  for (const auto& a : args) {
    auto [name, value] = split_assignment(a, "--size");
    if (out.count(name)) throw Error("--size " + name + " is given twice");
    out[name] = parse_count(value, a);
  }
  return out;
}

}  // namespace solder
