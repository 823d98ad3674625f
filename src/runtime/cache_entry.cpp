// Binary layout of kernel-cache entries. Host byte order: entries never move between machines
// of different endianness, and the checksum rejects anything unexpected anyway.
#include "runtime/cache_entry.h"

#include <cstring>

namespace solder {
namespace {

constexpr char kMagic[8] = {'S', 'O', 'L', 'D', 'R', 'K', 'C', '\n'};
constexpr uint32_t kVersion = 1;

struct Writer {
  std::vector<char> out;
  void raw(const void* p, size_t n) { out.insert(out.end(), static_cast<const char*>(p), static_cast<const char*>(p) + n); }
  template <class T>
  void pod(T v) { raw(&v, sizeof(v)); }
  void bytes(const void* p, size_t n) {
    pod<uint64_t>(n);
    raw(p, n);
  }
};

struct Reader {
  const std::vector<char>& in;
  size_t pos = 0;
  bool ok = true;
  bool raw(void* p, size_t n) {
    if (!ok || n > in.size() - pos) return ok = false;
    std::memcpy(p, in.data() + pos, n);
    pos += n;
    return true;
  }
  template <class T>
  T pod() {
    T v{};
    raw(&v, sizeof(v));
    return v;
  }
  std::string str() {
    uint64_t n = pod<uint64_t>();
    if (!ok || n > in.size() - pos) {
      ok = false;
      return {};
    }
    std::string s(in.data() + pos, n);
    pos += n;
    return s;
  }
};

}  // namespace

uint64_t fnv1a64(const void* data, size_t n, uint64_t seed) {
  uint64_t h = seed;
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

std::vector<char> encode_cache_entry(const std::string& key, const CompiledKernel& k) {
  Writer w;
  w.raw(kMagic, sizeof(kMagic));
  w.pod<uint32_t>(kVersion);
  w.bytes(key.data(), key.size());
  w.bytes(k.name.data(), k.name.size());
  w.bytes(k.arch.data(), k.arch.size());
  for (int32_t v : {k.ptxas.registers, k.ptxas.spill_store_bytes, k.ptxas.spill_load_bytes, k.ptxas.stack_bytes,
                    k.ptxas.smem_bytes})
    w.pod<int32_t>(v);
  w.pod<double>(k.compile_ms);
  w.bytes(k.log.data(), k.log.size());
  w.bytes(k.cubin.data(), k.cubin.size());
  w.pod<uint64_t>(fnv1a64(w.out.data(), w.out.size()));
  return std::move(w.out);
}

std::optional<CompiledKernel> decode_cache_entry(const std::vector<char>& bytes, const std::string& key) {
  // Checksum first: it covers every field, so nothing below parses damaged data.
  if (bytes.size() < sizeof(kMagic) + sizeof(uint32_t) + sizeof(uint64_t)) return std::nullopt;
  size_t body = bytes.size() - sizeof(uint64_t);
  uint64_t stored;
  std::memcpy(&stored, bytes.data() + body, sizeof(stored));
  if (stored != fnv1a64(bytes.data(), body)) return std::nullopt;
  if (std::memcmp(bytes.data(), kMagic, sizeof(kMagic)) != 0) return std::nullopt;

  Reader r{bytes};
  r.pos = sizeof(kMagic);
  if (r.pod<uint32_t>() != kVersion) return std::nullopt;
  if (r.str() != key || !r.ok) return std::nullopt;
  CompiledKernel k;
  k.name = r.str();
  k.arch = r.str();
  k.ptxas.registers = r.pod<int32_t>();
  k.ptxas.spill_store_bytes = r.pod<int32_t>();
  k.ptxas.spill_load_bytes = r.pod<int32_t>();
  k.ptxas.stack_bytes = r.pod<int32_t>();
  k.ptxas.smem_bytes = r.pod<int32_t>();
  k.compile_ms = r.pod<double>();
  k.log = r.str();
  std::string cubin = r.str();
  if (!r.ok || r.pos != body || cubin.empty() || k.name.empty()) return std::nullopt;
  k.cubin.assign(cubin.begin(), cubin.end());
  return k;
}

}  // namespace solder
