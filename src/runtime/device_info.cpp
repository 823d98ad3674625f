// Device properties from the driver, or the recorded H100 SXM profile without a GPU.
#include "runtime/device_info.h"

#include <fmt/format.h>

#include "runtime/driver.h"

namespace solder {

std::string DeviceInfo::arch() const {
  // The 'a' (arch-specific) targets unlock wgmma/TMA (Hopper) and tcgen05 (Blackwell).
  if (cc_major == 9 && cc_minor == 0) return "sm_90a";
  if (cc_major == 10 && cc_minor == 0) return "sm_100a";
  return fmt::format("sm_{}{}", cc_major, cc_minor);
}

int DeviceInfo::register_cap(long long resident_threads) const {
  return static_cast<int>(regs_per_sm / (resident_threads > 0 ? resident_threads : 1) / 8 * 8);
}

double DeviceInfo::dram_peak_gbs() const {
  // DDR: two transfers per clock; kHz * bits -> GB/s.
  return 2.0 * mem_clock_khz * 1e3 * (mem_bus_bits / 8.0) / 1e9;
}

std::string DeviceInfo::describe() const {
  return fmt::format("{} ({}, cc {}.{}, {} SMs, {} KiB smem/SM, {} KiB optin/block, {} MiB L2, {:.0f} GB/s DRAM{})",
                     name, arch(), cc_major, cc_minor, sm_count, smem_per_sm / 1024, smem_per_block_optin / 1024,
                     l2_bytes / (1024 * 1024), dram_peak_gbs(), from_profile ? ", recorded profile" : "");
}

DeviceInfo h100_profile() {
  DeviceInfo d;  // the struct defaults are the H100 SXM values; spell them out so they are pinned here
  d.name = "NVIDIA H100 80GB HBM3 (profile)";
  d.cc_major = 9;
  d.cc_minor = 0;
  d.sm_count = 132;
  d.warp_size = 32;
  d.max_threads_per_sm = 2048;
  d.max_threads_per_block = 1024;
  d.max_blocks_per_sm = 32;
  d.regs_per_sm = 65536;
  d.regs_per_block = 65536;
  d.max_regs_per_thread = 255;
  d.smem_per_sm = 233472;
  d.smem_per_block_optin = 232448;
  d.l2_bytes = 50 * 1024 * 1024;
  d.mem_bus_bits = 5120;
  d.mem_clock_khz = 2619000;
  d.from_profile = true;
  return d;
}

namespace {

DeviceInfo query_device(const DriverApi& api) {
  CUdevice dev = 0;
  check_cuda(api.cuDeviceGet(&dev, 0), "cuDeviceGet");
  DeviceInfo d;
  char name[256] = {};
  check_cuda(api.cuDeviceGetName(name, sizeof(name) - 1, dev), "cuDeviceGetName");
  d.name = name;
  auto attr = [&](CUdevice_attribute a, int& out) {
    int v = 0;
    // Keep the profile value when an attribute is not reported (e.g. 0 on some platforms).
    if (api.cuDeviceGetAttribute(&v, a, dev) == CUDA_SUCCESS && v > 0) out = v;
  };
  attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d.cc_major);
  if (int v = -1; api.cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev) == CUDA_SUCCESS)
    d.cc_minor = v;  // 0 is a legitimate minor version
  attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, d.sm_count);
  attr(CU_DEVICE_ATTRIBUTE_WARP_SIZE, d.warp_size);
  attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, d.max_threads_per_sm);
  attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, d.max_threads_per_block);
  attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR, d.max_blocks_per_sm);
  attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR, d.regs_per_sm);
  attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK, d.regs_per_block);
  attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, d.smem_per_sm);
  attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, d.smem_per_block_optin);
  attr(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, d.l2_bytes);
  attr(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, d.mem_bus_bits);
  attr(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, d.mem_clock_khz);
  d.max_regs_per_thread = 255;  // fixed by the ISA since Kepler; not a driver attribute
  d.max_cluster = d.cc_major >= 9 ? 16 : 1;
  d.from_profile = false;
  return d;
}

}  // namespace

const DeviceInfo& current_device() {
  static const DeviceInfo info = [] {
    const DriverApi* api = driver();
    return api ? query_device(*api) : h100_profile();
  }();
  return info;
}

}  // namespace solder
