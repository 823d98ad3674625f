#pragma once
// Bounds on what a program may ask for, and size arithmetic that refuses to wrap. Every size,
// stride, element count and byte count derived from user input goes through these: an overflow
// or an absurd request is a solder::Error naming what asked for it, never a wrapped number,
// a bad_alloc or a hang.
#include <cstdint>
#include <string>
#include <vector>

namespace solder {

constexpr int kMaxRank = 32;                              // dims of one tensor
constexpr int kMaxDimDepth = 1000;                        // nesting of one size expression
constexpr int64_t kMaxProgramBytes = int64_t{64} << 20;   // a .fusion file or a JSON report
constexpr int64_t kMaxPad = int64_t{1} << 40;             // elements a pad adds on one side

// a*b and a+b, or an Error "<what> overflows int64 (a * b)".
int64_t checked_mul(int64_t a, int64_t b, const std::string& what);
int64_t checked_add(int64_t a, int64_t b, const std::string& what);
// Product of the sizes; an Error naming `what` on overflow or a negative size.
int64_t checked_numel(const std::vector<int64_t>& shape, const std::string& what);

// The largest single tensor (host or device), SOLDER_MAX_TENSOR_GB (default 64).
int64_t max_tensor_bytes();
// Host memory a run may take: the CPU reference executor's buffers at once, or the random
// inputs `solder run` / `bench` make. SOLDER_MAX_REFERENCE_GB (default 3/4 of the machine's
// memory).
int64_t max_reference_bytes();
// Throws "<what> needs N GB, limit M GB; set SOLDER_MAX_TENSOR_GB to raise it" when
// numel * elem_bytes is over max_tensor_bytes() (or overflows).
void check_tensor_bytes(int64_t numel, int elem_bytes, const std::string& what);
// "12.5 GB"
std::string gigabytes(double bytes);

// Reads a regular file of at most `max_bytes` (a FIFO, a device or a directory is an error,
// never a block or an endless read). Throws solder::Error naming `what` and the path.
std::string read_bounded_file(const std::string& path, int64_t max_bytes, const std::string& what);

}  // namespace solder
