// tests/errors/*.fusion: programs that must fail. Line 1 is "# error: <substring of the
// message>"; an optional "# at: LINE:COL" line pins the reported position. Every message must
// start with "path:line:col: ".
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <regex>

#include "ir/parser.h"
#include "solder/error.h"

using namespace solder;
namespace fs = std::filesystem;

namespace {

struct Expectation {
  std::string substring, at;
};

Expectation read_expectation(const fs::path& p) {
  std::ifstream in(p);
  Expectation e;
  std::string line;
  for (int i = 0; i < 2 && std::getline(in, line); ++i) {
    if (line.rfind("# error: ", 0) == 0) e.substring = line.substr(9);
    if (line.rfind("# at: ", 0) == 0) e.at = line.substr(6);
  }
  return e;
}

std::vector<fs::path> error_programs() {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(fs::path(SOLDER_SOURCE_DIR) / "tests" / "errors"))
    if (entry.path().extension() == ".fusion") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

TEST(ErrorPrograms, EachFailsWithItsMessageAndPosition) {
  auto files = error_programs();
  ASSERT_GE(files.size(), 20u);
  for (const auto& p : files) {
    SCOPED_TRACE(p.filename().string());
    Expectation want = read_expectation(p);
    ASSERT_FALSE(want.substring.empty()) << "first line must be '# error: <substring>'";
    try {
      load_fusion_file(p.string());
      ADD_FAILURE() << "parsed without an error";
    } catch (const Error& e) {
      std::string msg = e.what();
      EXPECT_NE(msg.find(want.substring), std::string::npos) << msg;
      std::smatch m;
      ASSERT_TRUE(std::regex_search(msg, m, std::regex("^(.*):([0-9]+):([0-9]+): ")))
          << "no file:line:col prefix: " << msg;
      EXPECT_EQ(m[1].str(), p.string());
      if (!want.at.empty()) EXPECT_EQ(m[2].str() + ":" + m[3].str(), want.at) << msg;
    }
  }
}

TEST(ErrorPrograms, ParseErrorsNameTheGivenFilename) {
  try {
    parse_fusion("fusion f {\n  y = neg(x)\n  output y\n}\n", "mine.fusion");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "mine.fusion:2:11: undefined value 'x'");
  }
}

// Damaged versions of every example either parse or fail with a located solder::Error: never
// another exception type, a crash, or an unlocated message.
TEST(ErrorPrograms, MutatedExamplesFailCleanly) {
  const std::string junk[] = {"", "(", ")", "[", "]", ",", "=", "-", "x", "99999999999999999999", "1.5", "}", "{", "#",
                              "\n", "end", "f8e4m3", ":", "*", "+"};
  std::mt19937 rng(1234);
  int failures = 0, total = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(SOLDER_SOURCE_DIR) / "examples")) {
    if (entry.path().extension() != ".fusion") continue;
    std::ifstream in(entry.path());
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (int k = 0; k < 60; ++k) {
      std::string t = text;
      size_t at = std::uniform_int_distribution<size_t>(0, t.size() - 1)(rng);
      size_t len = std::uniform_int_distribution<size_t>(0, 3)(rng);
      t.replace(at, std::min(len, t.size() - at), junk[rng() % std::size(junk)]);
      ++total;
      try {
        parse_fusion(t, "mutant.fusion");
      } catch (const Error& e) {
        ++failures;
        ASSERT_TRUE(std::regex_search(std::string(e.what()), std::regex("^mutant\\.fusion:[0-9]+:[0-9]+: ")))
            << e.what() << "\n--- program:\n" << t;
      }
    }
  }
  EXPECT_GT(failures, total / 4);
}
