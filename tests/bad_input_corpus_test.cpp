// The bad-input corpus and the fuzzers (issue 29).
//  * tests/bad_inputs/programs/*.fusion go through the CLI: `solder run --reference FILE`, or
//    the "# cmd:" line's command, with the "# args:" line's arguments and "# env:" variables.
//  * tests/bad_inputs/cli_cases.txt: one bad command line per row ("SUBSTRING | ARGS").
// Every case must end within 15 s (a hang guard: the deepest, depth_long_sum, takes 1.2 s alone
// and passed 5 s on a loaded 2-core machine), by exit() with a non-zero status (a signal is a
// crash), and print a message holding its expected substring.
//  * Fuzzers, seeded and time-bounded (SOLDER_FUZZ_SECONDS, default 30 in all): mutated
//    examples and mutated random programs are parsed, bound to small sizes and run on the
//    reference; anything but a solder::Error (or success) fails the test.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <thread>

#include "programs/run_inputs.h"
#include "ir/limits.h"
#include "ir/parser.h"
#include "ir/printer.h"
#include "solder/error.h"
#include "solder/reference.h"
#include "support/random_fusion.h"

using namespace solder;
namespace fs = std::filesystem;

namespace {

const fs::path kSource = SOLDER_SOURCE_DIR;
const fs::path kBad = kSource / "tests" / "bad_inputs";
constexpr double kTimeoutS = 15.0;

struct Case {
  std::string label, want;
  std::vector<std::string> args;
  std::map<std::string, std::string> env;
};

struct Outcome {
  bool hung = false, signaled = false;
  int status = 0;  // exit status or signal number
  double seconds = 0;
  std::string output;  // stdout and stderr together
};

std::vector<std::string> split_words(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t p = 0; (p = s.find(from, p)) != std::string::npos; p += to.size()) s.replace(p, from.size(), to);
  return s;
}

// Runs the CLI with a deadline, output to a file (a pipe could fill and stall the child).
Outcome run_cli(const Case& c, const fs::path& scratch) {
  const fs::path log = scratch / "out.log";
  auto t0 = std::chrono::steady_clock::now();
  pid_t pid = ::fork();
  if (pid == 0) {
    int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    for (const auto& [k, v] : c.env) ::setenv(k.c_str(), v.c_str(), 1);
    ::setenv("SOLDER_CACHE_DIR", (scratch / "cache").c_str(), 1);
#if !defined(__SANITIZE_ADDRESS__)
    // A limit that let an absurd allocation through fails here instead of swapping the machine.
    struct rlimit as {rlim_t{8} << 30, rlim_t{8} << 30};
    ::setrlimit(RLIMIT_AS, &as);
#endif
    std::vector<char*> argv{const_cast<char*>(SOLDER_CLI)};
    for (const auto& a : c.args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(SOLDER_CLI, argv.data());
    ::_exit(127);
  }
  Outcome o;
  int st = 0;
  while (true) {
    pid_t r = ::waitpid(pid, &st, WNOHANG);
    o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (r == pid) break;
    if (o.seconds > kTimeoutS) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &st, 0);
      o.hung = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  o.signaled = !o.hung && WIFSIGNALED(st);
  o.status = o.hung ? -1 : o.signaled ? WTERMSIG(st) : WEXITSTATUS(st);
  std::ifstream in(log);
  std::stringstream ss;
  ss << in.rdbuf();
  o.output = ss.str();
  return o;
}

// The scratch folder {tmp}: special files that a careless reader would block on or read forever.
fs::path make_scratch() {
  fs::path d = fs::temp_directory_path() / ("solder_bad_inputs_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d / "dir.fusion");
  ::mkfifo((d / "fifo.fusion").c_str(), 0600);
  fs::create_symlink("/dev/zero", d / "zero.fusion");
  std::ofstream(d / "empty.fusion").flush();
  std::ofstream(d / "big.fusion").put('#');
  fs::resize_file(d / "big.fusion", kMaxProgramBytes + 1);  // sparse: no disk used
  return d;
}

std::vector<Case> program_cases() {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(kBad / "programs"))
    if (e.path().extension() == ".fusion") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  std::vector<Case> out;
  for (const auto& p : files) {
    Case c;
    c.label = p.filename().string();
    std::vector<std::string> cmd{"run", "--reference"}, extra;
    std::ifstream in(p);
    for (std::string line; std::getline(in, line) && line.rfind("# ", 0) == 0;) {
      auto value = [&](const char* key) { return line.substr(std::string(key).size()); };
      if (line.rfind("# error: ", 0) == 0) c.want = value("# error: ");
      if (line.rfind("# args: ", 0) == 0) extra = split_words(value("# args: "));
      if (line.rfind("# cmd: ", 0) == 0) cmd = split_words(value("# cmd: "));
      if (line.rfind("# env: ", 0) == 0) {
        std::string kv = value("# env: ");
        c.env[kv.substr(0, kv.find('='))] = kv.substr(kv.find('=') + 1);
      }
    }
    c.args = cmd;
    c.args.push_back(p.string());
    c.args.insert(c.args.end(), extra.begin(), extra.end());
    out.push_back(c);
  }
  return out;
}

std::vector<Case> table_cases(const fs::path& scratch) {
  std::vector<Case> out;
  std::ifstream in(kBad / "cli_cases.txt");
  int line_no = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    if (line.empty() || line[0] == '#') continue;
    size_t bar = line.find(" | ");
    Case c;
    c.label = "cli_cases.txt:" + std::to_string(line_no);
    c.want = line.substr(0, bar);
    std::string args = bar == std::string::npos ? "" : line.substr(bar + 3);
    args = replace_all(replace_all(replace_all(args, "{ex}", (kSource / "examples").string()), "{bad}", kBad.string()),
                       "{tmp}", scratch.string());
    for (auto& w : split_words(args)) {
      if (w.rfind("env:", 0) == 0) c.env[w.substr(4, w.find('=') - 4)] = w.substr(w.find('=') + 1);
      else c.args.push_back(w);
    }
    out.push_back(c);
  }
  return out;
}

void check_case(const Case& c, const fs::path& scratch) {
  SCOPED_TRACE(c.label);
  ASSERT_FALSE(c.want.empty()) << "no expected message";
  Outcome o = run_cli(c, scratch);
  std::string shown = o.output.size() > 2000 ? o.output.substr(0, 2000) + "..." : o.output;
  EXPECT_FALSE(o.hung) << "no exit within " << kTimeoutS << " s";
  EXPECT_FALSE(o.signaled) << "killed by signal " << o.status << "\n" << shown;
  EXPECT_NE(o.status, 0) << "exit 0 on bad input\n" << shown;
  EXPECT_NE(o.output.find(c.want), std::string::npos) << "expected '" << c.want << "' in:\n" << shown;
  // Under scripts/sanitize.sh: a sanitizer report is a failure even when the exit looked clean.
  EXPECT_EQ(o.output.find("Sanitizer"), std::string::npos) << shown;
  EXPECT_EQ(o.output.find("runtime error:"), std::string::npos) << shown;
}

}  // namespace

TEST(BadInputCorpus, ProgramsFailCleanly) {
  fs::path scratch = make_scratch();
  auto cases = program_cases();
  EXPECT_GE(cases.size(), 100u);
  for (const auto& c : cases) check_case(c, scratch);
  fs::remove_all(scratch);
}

TEST(BadInputCorpus, CommandLinesFailCleanly) {
  fs::path scratch = make_scratch();
  auto cases = table_cases(scratch);
  EXPECT_GE(cases.size(), 90u);
  for (const auto& c : cases) check_case(c, scratch);
  fs::remove_all(scratch);
}

// ---- fuzzers ------------------------------------------------------------------------------------

namespace {

double fuzz_seconds() {
  const char* s = std::getenv("SOLDER_FUZZ_SECONDS");
  return s ? std::atof(s) : 30.0;
}

// Values that probe the bounds: extremes of int64, sizes near overflow, odd expressions.
const char* const kJunk[] = {"",     "(",    ")",    "[",     "]",     ",",      "=",    "-",   "x",    "B",
                             "H",    "}",    "{",    "#",     "\n",    "end",    ":",    "*",   "+",    "0",
                             "-1",   "1e308", "nan", "inf",   "f8e4m3", "bool",  "i64",  "min(B, ", "ceildiv(",
                             "9223372036854775807", "-9223372036854775808", "4611686018427387904", "4294967296",
                             "99999999999999999999", "B*B*B*B", "((((((((", "))))", "axis=", "step=0", "end=-5",
                             "shape=[-1]", "shape=[B*-2, -1]", "start=4611686018427387904"};

std::string mutate(std::string t, std::mt19937_64& rng) {
  int n = 1 + static_cast<int>(rng() % 4);
  for (int k = 0; k < n && !t.empty(); ++k) {
    size_t at = rng() % t.size();
    switch (rng() % 5) {
      case 0:
      case 1: {  // replace a few characters with junk
        size_t len = rng() % 4;
        t.replace(at, std::min(len, t.size() - at), kJunk[rng() % std::size(kJunk)]);
        break;
      }
      case 2: {  // replace a number with an extreme one
        size_t p = t.find_first_of("0123456789", at);
        if (p == std::string::npos) break;
        size_t q = t.find_first_not_of("0123456789", p);
        t.replace(p, (q == std::string::npos ? t.size() : q) - p, kJunk[29 + rng() % 6]);
        break;
      }
      case 3: {  // duplicate a line
        size_t b = t.rfind('\n', at), e = t.find('\n', at);
        b = b == std::string::npos ? 0 : b + 1;
        if (e == std::string::npos) break;
        t.insert(b, t.substr(b, e + 1 - b));
        break;
      }
      case 4: {  // delete a line
        size_t b = t.rfind('\n', at), e = t.find('\n', at);
        b = b == std::string::npos ? 0 : b + 1;
        if (e == std::string::npos) break;
        t.erase(b, e + 1 - b);
        break;
      }
    }
  }
  return t;
}

struct FuzzStats {
  int programs = 0, parsed = 0, ran = 0;
};

// Parse, bind small sizes, run the reference on small inputs: success or a solder::Error.
void exercise(const std::string& text, std::mt19937_64& rng, FuzzStats& stats) {
  ++stats.programs;
  try {
    Fusion f = parse_fusion(text, "mutant.fusion");
    ++stats.parsed;
    verify(f);
    print_fusion(f);
    Bindings sizes;
    for (int id : f.inputs()) {
      std::vector<std::string> syms;
      for (const auto& d : f.value(id).shape) d.collect_symbols(syms);
      for (const auto& s : syms) sizes.emplace(s, std::vector<int64_t>{0, 1, 2, 3, 5, 8}[rng() % 6]);
    }
    auto shapes = resolve_input_shapes(f, {}, sizes);
    int64_t elements = 0;
    for (const auto& s : shapes) elements += checked_numel(s, "input");
    if (elements > 200000) return;  // the big constant weights of W3: too slow to run each time
    auto inputs = make_random_inputs(f, shapes, rng());
    run_reference(f, inputs);
    ++stats.ran;
  } catch (const Error&) {
    // A clear refusal is the expected outcome for most mutants.
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not a solder::Error: " << typeid(e).name() << ": " << e.what() << "\n--- program:\n" << text;
  }
}

}  // namespace

TEST(Fuzz, MutatedExamplesFailCleanly) {
  std::vector<std::string> texts;
  for (const auto& e : fs::directory_iterator(kSource / "examples"))
    if (e.path().extension() == ".fusion") texts.push_back(read_bounded_file(e.path().string(), kMaxProgramBytes, "example"));
  std::sort(texts.begin(), texts.end());
  ASSERT_FALSE(texts.empty());
  ::setenv("SOLDER_MAX_REFERENCE_GB", "0.5", 1);  // a mutant may ask for a lot: refused, not run
  std::mt19937_64 rng(29);
  FuzzStats stats;
  const double budget = fuzz_seconds() * 2 / 3;
  auto t0 = std::chrono::steady_clock::now();
  while (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < budget && !HasFailure())
    exercise(mutate(texts[rng() % texts.size()], rng), rng, stats);
  ::unsetenv("SOLDER_MAX_REFERENCE_GB");
  std::printf("fuzz (examples): %d programs, %d parsed, %d ran on the reference\n", stats.programs, stats.parsed, stats.ran);
  EXPECT_GT(stats.programs, 100);
}

TEST(Fuzz, MutatedRandomProgramsFailCleanly) {
  ::setenv("SOLDER_MAX_REFERENCE_GB", "0.5", 1);
  std::mt19937_64 rng(2929);
  FuzzStats stats;
  const double budget = fuzz_seconds() / 3;
  auto t0 = std::chrono::steady_clock::now();
  for (uint64_t seed = 1; std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < budget &&
                          !HasFailure();
       ++seed) {
    std::string text = print_fusion(test_support::RandomFusion(seed).make(10));
    exercise(text, rng, stats);  // valid: must run
    exercise(mutate(text, rng), rng, stats);
  }
  ::unsetenv("SOLDER_MAX_REFERENCE_GB");
  std::printf("fuzz (random programs): %d programs, %d parsed, %d ran on the reference\n", stats.programs, stats.parsed,
              stats.ran);
  EXPECT_GT(stats.ran, 10);
}
