#include "programs/run_inputs.h"

#include "ir/limits.h"
#include "solder/error.h"

namespace solder {

namespace {

std::string declared(const Value& v) { return v.name + " " + std::string(dtype_name(v.dtype)) + shape_str(v.shape); }

bool is_plain_symbol(const Dim& d) {
  std::vector<std::string> syms;
  d.collect_symbols(syms);
  return syms.size() == 1 && d.str() == syms[0];
}

std::string first_unbound(const Dim& d, const Bindings& b) {
  std::vector<std::string> syms;
  d.collect_symbols(syms);
  for (const auto& s : syms)
    if (!b.count(s)) return s;
  return "";
}

}  // namespace

std::vector<std::vector<int64_t>> resolve_input_shapes(const Fusion& f,
                                                       const std::map<std::string, std::vector<int64_t>>& shapes,
                                                       const Bindings& sizes) {
  std::string names;
  for (int id : f.inputs()) names += (names.empty() ? "" : ", ") + f.value(id).name;
  for (const auto& [name, dims] : shapes) {
    int id = f.find(name);
    if (id < 0 || f.value(id).producer != -1)
      throw Error("--shape " + name + ": fusion " + f.name() + " has no input named '" + name + "' (inputs: " + names + ")");
    if (dims.size() != f.value(id).shape.size())
      throw Error("--shape " + name + ": input " + declared(f.value(id)) + " has rank " +
                  std::to_string(f.value(id).rank()) + ", got " + std::to_string(dims.size()) + " sizes");
  }

  // Explicit shapes bind the plain symbols they hold (B in [B, H]) unless --size already did.
  Bindings b = sizes;
  std::map<std::string, std::string> source;  // symbol -> where its value came from
  for (const auto& [sym, _] : sizes) source[sym] = "--size " + sym;
  for (int id : f.inputs()) {
    const Value& v = f.value(id);
    auto it = shapes.find(v.name);
    if (it == shapes.end()) continue;
    for (size_t d = 0; d < v.shape.size(); ++d) {
      if (!is_plain_symbol(v.shape[d]) || b.count(v.shape[d].str())) continue;
      b[v.shape[d].str()] = it->second[d];
      source[v.shape[d].str()] = "--shape " + v.name;
    }
  }

  std::vector<std::vector<int64_t>> out;
  for (int id : f.inputs()) {
    const Value& v = f.value(id);
    auto given = shapes.find(v.name);
    std::vector<int64_t> dims;
    for (size_t d = 0; d < v.shape.size(); ++d) {
      const Dim& dim = v.shape[d];
      std::string missing = first_unbound(dim, b);
      if (given != shapes.end()) {
        int64_t got = given->second[d];
        if (missing.empty() && dim.eval(b) != got) {
          std::vector<std::string> syms;
          dim.collect_symbols(syms);
          std::string why = syms.empty() ? "a constant" : syms.size() == 1 && source.count(syms[0]) ? "from " + source[syms[0]] : "from the bound sizes";
          throw Error("input " + declared(v) + ": dim " + std::to_string(d) + " (" + dim.str() + ") is " +
                      std::to_string(dim.eval(b)) + " (" + why + "), but --shape " + v.name + " gives " + std::to_string(got));
        }
        dims.push_back(got);
      } else {
        if (!missing.empty())
          throw Error("input " + declared(v) + ": dim " + std::to_string(d) + " (" + dim.str() + ") has no size: give --shape " +
                      v.name + "=... or --size " + missing + "=...");
        int64_t n = dim.eval(b);
        if (n < 0) throw Error("input " + declared(v) + ": dim " + std::to_string(d) + " (" + dim.str() + ") is negative: " + std::to_string(n));
        dims.push_back(n);
      }
    }
    out.push_back(std::move(dims));
  }
  bind_shapes(f, out);  // the IR's own consistency check, e.g. for expression dims like S*D
  return out;
}

std::vector<HostTensor> make_random_inputs(const Fusion& f, const std::vector<std::vector<int64_t>>& shapes,
                                           uint64_t seed) {
  if (shapes.size() != f.inputs().size())
    throw Error("make_random_inputs: " + std::to_string(shapes.size()) + " shapes for " +
                std::to_string(f.inputs().size()) + " inputs of fusion " + f.name());
  // Refused before filling: random inputs of B = H = 2^32 would take minutes and all memory.
  double bytes = 0;
  for (size_t i = 0; i < shapes.size(); ++i)
    bytes += static_cast<double>(checked_numel(shapes[i], "input " + f.value(f.inputs()[i]).name)) *
             dtype_size(f.value(f.inputs()[i]).dtype);
  const double limit = static_cast<double>(max_reference_bytes());
  if (bytes > limit)
    throw Error("the inputs of " + f.name() + " need " + gigabytes(bytes) + " of host memory, over the limit of " +
                gigabytes(limit) + "; set SOLDER_MAX_REFERENCE_GB to raise it");
  std::vector<HostTensor> out;
  for (size_t i = 0; i < shapes.size(); ++i)
    out.push_back(random_tensor(f.value(f.inputs()[i]).dtype, shapes[i], seed + i));
  return out;
}

}  // namespace solder
