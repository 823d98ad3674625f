// tests/errors/*.fusion: programs that must fail. Line 1 is "# error: <substring of the
// message>"; an optional "# at: LINE:COL" line pins the reported position. Every message must
// start with "path:line:col: ".
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
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
