#pragma once
// A small table renderer shared by every report: aligned columns for a terminal, or a
// GitHub-flavoured markdown table. Columns whose cells are all numbers are right-aligned.
#include <optional>
#include <string>
#include <vector>

namespace solder::bench {

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header);
  void add_row(std::vector<std::string> cells);  // padded / truncated to the header's width
  size_t rows() const { return rows_.size(); }
  std::string terminal() const;  // two spaces between columns, a dashed rule under the header
  std::string markdown() const;  // | a | b |, with ---: under numeric columns

 private:
  bool numeric_column(size_t c) const;
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

// Number formatting for cells: fixed precision; "-" for a missing value.
std::string cell(double v, int precision = 1);
std::string cell(const std::optional<double>& v, int precision = 1);

}  // namespace solder::bench
