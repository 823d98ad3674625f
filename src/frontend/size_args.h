#pragma once
// Command-line spellings of sizes, shared by `solder run`, `explain` and `bench`:
//   --shape t1=8192x5140   (an input's concrete shape; "t=scalar" or "t=" for rank 0)
//   --size H=5140          (a size symbol's value)
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "solder/dim.h"

namespace solder {

using ShapeArgs = std::map<std::string, std::vector<int64_t>>;

// "8192x5140" -> {8192, 5140}. Throws solder::Error quoting the text.
std::vector<int64_t> parse_shape_spec(const std::string& text);
// "NAME=8192x5140" entries -> map; a repeated NAME is an error.
ShapeArgs parse_shape_args(const std::vector<std::string>& args);
// "SYM=VALUE" entries -> Bindings; a repeated SYM is an error.
Bindings parse_size_args(const std::vector<std::string>& args);

}  // namespace solder
