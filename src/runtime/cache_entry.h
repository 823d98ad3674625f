#pragma once
// The on-disk format of one kernel-cache entry: serialize, validate, parse. No file I/O here.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runtime/compiler.h"

namespace solder {

uint64_t fnv1a64(const void* data, size_t n, uint64_t seed = 0xcbf29ce484222325ull);

// magic, version, key, kernel fields, cubin, then an FNV-1a 64 checksum of everything before it.
std::vector<char> encode_cache_entry(const std::string& key, const CompiledKernel& k);
// nullopt when the bytes are truncated, carry a bad magic/version/checksum, or hold another key
// (two keys whose hashes collide share a file name; the stored key tells them apart).
std::optional<CompiledKernel> decode_cache_entry(const std::vector<char>& bytes, const std::string& key);

}  // namespace solder
