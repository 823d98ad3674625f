#pragma once
// The one header every generated kernel starts with: storage types, exact conversions for
// f16/bf16/fp8 (inline PTX, no CUDA headers, so NVRTC stays fast), vector I/O, reductions.
#include <string_view>

namespace solder {

std::string_view device_runtime_source();

}  // namespace solder
