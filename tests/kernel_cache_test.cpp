// Kernel cache: memory and disk hits, validation of disk entries, concurrency, fallbacks.
#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

#include "runtime/kernel_cache.h"
#include "solder/error.h"

using namespace solder;
namespace fs = std::filesystem;

namespace {

class KernelCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / ("solder_kc_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string dir() const { return dir_.string(); }
  fs::path dir_;
};

// A fake kernel: distinct bytes per key so a mix-up is visible.
CompiledKernel fake(const std::string& key) {
  CompiledKernel k;
  k.name = "k_" + std::to_string(key.size());
  k.arch = "sm_90a";
  for (size_t i = 0; i < 4096; ++i) k.cubin.push_back(static_cast<char>((i * 31 + key.size() * 7 + key[0]) & 0xff));
  k.ptxas.registers = 40;
  k.ptxas.spill_store_bytes = 8;
  k.ptxas.spill_load_bytes = 12;
  k.ptxas.stack_bytes = 16;
  k.ptxas.smem_bytes = 4096;
  k.log = "ptxas info    : Used 40 registers (" + key + ")";
  k.compile_ms = 12.5;
  return k;
}

std::function<CompiledKernel()> counted(const std::string& key, int& calls) {
  return [key, &calls] {
    ++calls;
    return fake(key);
  };
}

std::function<CompiledKernel()> must_not_build() {
  return []() -> CompiledKernel { throw std::runtime_error("build called on a cache hit"); };
}

std::vector<char> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_bytes(const std::string& path, const std::vector<char>& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

void expect_same(const CompiledKernel& a, const CompiledKernel& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.arch, b.arch);
  EXPECT_EQ(a.cubin, b.cubin);
  EXPECT_EQ(a.log, b.log);
  EXPECT_EQ(a.ptxas.registers, b.ptxas.registers);
  EXPECT_EQ(a.ptxas.spill_store_bytes, b.ptxas.spill_store_bytes);
  EXPECT_EQ(a.ptxas.spill_load_bytes, b.ptxas.spill_load_bytes);
  EXPECT_EQ(a.ptxas.stack_bytes, b.ptxas.stack_bytes);
  EXPECT_EQ(a.ptxas.smem_bytes, b.ptxas.smem_bytes);
}

}  // namespace

TEST_F(KernelCacheTest, MemoryHit) {
  KernelCache cache(dir());
  int calls = 0;
  auto a = cache.get("fusion=1|f32", counted("fusion=1|f32", calls));
  auto b = cache.get("fusion=1|f32", counted("fusion=1|f32", calls));
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(a.get(), b.get());
  EXPECT_EQ(cache.stats().compiles, 1);
  EXPECT_EQ(cache.stats().memory_hits, 1);
  EXPECT_EQ(cache.stats().disk_hits, 0);
}

TEST_F(KernelCacheTest, DiskHitFromAnotherCache) {
  const std::string key = "fusion=2|bf16|rank=3";
  int calls = 0;
  KernelCache first(dir());
  auto built = first.get(key, counted(key, calls));
  ASSERT_TRUE(fs::exists(first.entry_path(key)));
  EXPECT_EQ(fs::path(first.entry_path(key)).filename().string().size(), 16 + std::string(".cubin.entry").size());

  KernelCache second(dir());
  auto loaded = second.get(key, must_not_build());
  expect_same(*built, *loaded);
  EXPECT_EQ(second.stats().disk_hits, 1);
  EXPECT_EQ(second.stats().compiles, 0);
  EXPECT_EQ(second.stats().corrupt_rebuilt, 0);
  EXPECT_EQ(calls, 1);
}

TEST_F(KernelCacheTest, TruncatedEntryIsRebuilt) {
  const std::string key = "fusion=3";
  int calls = 0;
  std::string path;
  {
    KernelCache c(dir());
    c.get(key, counted(key, calls));
    path = c.entry_path(key);
  }
  std::vector<char> bytes = read_bytes(path);
  bytes.resize(bytes.size() / 2);
  write_bytes(path, bytes);

  KernelCache c2(dir());
  auto k = c2.get(key, counted(key, calls));
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(c2.stats().corrupt_rebuilt, 1);
  expect_same(*k, fake(key));
  // The rebuilt entry was written back and is valid again.
  KernelCache c3(dir());
  c3.get(key, must_not_build());
  EXPECT_EQ(c3.stats().disk_hits, 1);
}

TEST_F(KernelCacheTest, BitFlipAndBadMagicAreRebuilt) {
  const std::string key = "fusion=4";
  int calls = 0;
  std::string path;
  {
    KernelCache c(dir());
    c.get(key, counted(key, calls));
    path = c.entry_path(key);
  }
  std::vector<char> good = read_bytes(path);
  for (size_t at : {good.size() / 2, size_t{0}}) {  // inside the cubin, then the magic
    std::vector<char> bad = good;
    bad[at] ^= 0x10;
    write_bytes(path, bad);
    KernelCache c(dir());
    c.get(key, counted(key, calls));
    EXPECT_EQ(c.stats().corrupt_rebuilt, 1) << "flip at " << at;
    EXPECT_EQ(c.stats().disk_hits, 0);
  }
  EXPECT_EQ(calls, 3);
  write_bytes(path, {});  // empty file
  KernelCache c(dir());
  c.get(key, counted(key, calls));
  EXPECT_EQ(c.stats().corrupt_rebuilt, 1);
}

// Two keys that land on one file name (simulated by copying one entry over the other's name)
// must never hand back the other key's kernel.
TEST_F(KernelCacheTest, HashCollisionDoesNotMixKeys) {
  const std::string a = "fusion=A", b = "fusion=BB";
  int calls = 0;
  {
    KernelCache c(dir());
    c.get(a, counted(a, calls));
    fs::copy_file(c.entry_path(a), c.entry_path(b), fs::copy_options::overwrite_existing);
  }
  KernelCache c(dir());
  auto kb = c.get(b, counted(b, calls));
  expect_same(*kb, fake(b));
  EXPECT_EQ(c.stats().corrupt_rebuilt, 1);
  EXPECT_EQ(calls, 2);
}

TEST_F(KernelCacheTest, RealCompiledKernelRoundTrips) {
  const std::string key = "vadd|sm_90a";
  auto build = [] {
    return compile_cuda("extern \"C\" __global__ void vadd(float* a) { a[threadIdx.x] += 1.0f; }", "vadd", "sm_90a");
  };
  KernelCache first(dir());
  auto built = first.get(key, build);
  KernelCache second(dir());
  auto loaded = second.get(key, must_not_build());
  expect_same(*built, *loaded);
  EXPECT_GT(loaded->ptxas.registers, 0);
}

TEST_F(KernelCacheTest, OffAndUnwritableFallBackToMemory) {
  KernelCache off("off");
  EXPECT_FALSE(off.disk_enabled());
  EXPECT_EQ(off.entry_path("k"), "");
  int calls = 0;
  off.get("k", counted("k", calls));
  off.get("k", counted("k", calls));
  EXPECT_EQ(calls, 1);

  // A folder cannot be created under a regular file (root ignores permission bits, this not).
  fs::create_directories(dir_);
  write_bytes((dir_ / "file").string(), {'x'});
  KernelCache bad((dir_ / "file" / "cache").string());
  EXPECT_FALSE(bad.disk_enabled());
  EXPECT_NO_THROW(bad.get("k", counted("k", calls)));
  EXPECT_EQ(calls, 2);
}

TEST_F(KernelCacheTest, FailedBuildIsRetried) {
  KernelCache cache(dir());
  EXPECT_THROW(cache.get("k", []() -> CompiledKernel { throw Error("nvrtc said no"); }), Error);
  int calls = 0;
  cache.get("k", counted("k", calls));
  EXPECT_EQ(calls, 1);
}

TEST_F(KernelCacheTest, ConcurrentCallersBuildOnce) {
  KernelCache cache(dir());
  std::atomic<int> calls{0};
  auto build = [&] {
    ++calls;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    return fake("shared");
  };
  std::vector<std::thread> threads;
  std::vector<std::shared_ptr<const CompiledKernel>> got(8);
  for (int i = 0; i < 8; ++i) threads.emplace_back([&, i] { got[i] = cache.get("shared", build); });
  for (auto& t : threads) t.join();
  EXPECT_EQ(calls.load(), 1);
  for (auto& g : got) EXPECT_EQ(g.get(), got[0].get());
  EXPECT_EQ(cache.stats().memory_hits, 7);
}

TEST_F(KernelCacheTest, DefaultDirFollowsEnvironment) {
  ::setenv("SOLDER_CACHE_DIR", dir().c_str(), 1);
  KernelCache cache;
  ::unsetenv("SOLDER_CACHE_DIR");
  EXPECT_EQ(cache.dir(), dir());
  EXPECT_TRUE(cache.disk_enabled());
  EXPECT_TRUE(fs::is_directory(dir_));
}
