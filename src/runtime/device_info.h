#pragma once
// Device properties that schedulers read. On a machine without a GPU the recorded H100 profile
// is used, so heuristics (and CI's checks of them) see the machine we tune for.
#include <string>

namespace solder {

struct DeviceInfo {
  std::string name;
  int cc_major = 9, cc_minor = 0;
  int sm_count = 132;
  int warp_size = 32;
  int max_threads_per_sm = 2048;
  int max_threads_per_block = 1024;
  int max_blocks_per_sm = 32;
  int regs_per_sm = 65536;
  int regs_per_block = 65536;
  int max_regs_per_thread = 255;
  int smem_per_sm = 233472;           // bytes
  int smem_per_block_optin = 232448;  // bytes, after cuFuncSetAttribute
  int l2_bytes = 52428800;
  int mem_bus_bits = 5120;
  int mem_clock_khz = 2619000;
  // The most blocks a scheduler may put in a thread-block cluster: 16 on sm_90 (8 portable,
  // 16 with the non-portable opt-in), 1 before. The executor plans again with a lower limit
  // where the device runs no cluster of a kernel's size (see Executor::Impl::kernel_parts).
  int max_cluster = 16;
  bool from_profile = true;  // true when no GPU was queried
  // "sm_90a" for Hopper (wgmma etc. need the 'a' target), else "sm_XY".
  std::string arch() const;
  double dram_peak_gbs() const;  // theoretical: 2 * clock * bus width / 8
  // The registers a thread may take where `resident_threads` stay on an SM (the cap ptxas takes
  // from __launch_bounds__' min blocks; registers are allocated in eights).
  int register_cap(long long resident_threads) const;
  // One line for logs: name, cc, SMs, smem, L2, DRAM peak and whether it is the profile.
  std::string describe() const;
};

DeviceInfo h100_profile();
// The current device when a GPU is present, else h100_profile().
const DeviceInfo& current_device();

}  // namespace solder
