#include "bench/text_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>

namespace solder::bench {
namespace {

bool looks_numeric(const std::string& s) {
  if (s.empty()) return false;
  size_t i = (s[0] == '-' || s[0] == '+') ? 1 : 0;
  return i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.');
}

// Display width: UTF-8 continuation bytes (e.g. in "µs") take no column.
size_t width(const std::string& s) {
  return static_cast<size_t>(std::count_if(s.begin(), s.end(), [](char ch) { return (ch & 0xC0) != 0x80; }));
}

std::string pad(const std::string& s, size_t w, bool right) {
  std::string fill(w > width(s) ? w - width(s) : 0, ' ');
  return right ? fill + s : s + fill;
}

// Markdown cells may not hold a raw '|'.
std::string md_escape(const std::string& s) {
  std::string out;
  for (char ch : s) {
    if (ch == '|') out += '\\';
    out += ch;
  }
  return out;
}

}  // namespace

TextTable::TextTable(std::vector<std::string> header) : header_(std::move(header)) {}

void TextTable::add_row(std::vector<std::string> cells) {
  cells.resize(header_.size());
  rows_.push_back(std::move(cells));
}

bool TextTable::numeric_column(size_t c) const {
  bool any = false;
  for (const auto& r : rows_) {
    if (r[c].empty() || r[c] == "-") continue;
    if (!looks_numeric(r[c])) return false;
    any = true;
  }
  return any;
}

std::string TextTable::terminal() const {
  std::vector<size_t> w(header_.size());
  for (size_t c = 0; c < header_.size(); ++c) {
    w[c] = width(header_[c]);
    for (const auto& r : rows_) w[c] = std::max(w[c], width(r[c]));
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (size_t c = 0; c < cells.size(); ++c) {
      if (c) out += "  ";
      out += pad(cells[c], w[c], numeric_column(c));
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out = line(header_);
  std::vector<std::string> rule;
  for (size_t c = 0; c < header_.size(); ++c) rule.push_back(std::string(w[c], '-'));
  out += line(rule);
  for (const auto& r : rows_) out += line(r);
  return out;
}

std::string TextTable::markdown() const {
  auto line = [](const std::vector<std::string>& cells) {
    std::string out = "|";
    for (const auto& c : cells) {
      out += ' ';
      out += md_escape(c);  // appended piecewise: GCC 12 warns falsely on "a" + s + "b"
      out += " |";
    }
    return out + "\n";
  };
  std::string out = line(header_);
  out += "|";
  for (size_t c = 0; c < header_.size(); ++c) out += numeric_column(c) ? " ---: |" : " --- |";
  out += "\n";
  for (const auto& r : rows_) out += line(r);
  return out;
}

std::string cell(double v, int precision) {
  if (!std::isfinite(v)) return "-";
  return fmt::format("{:.{}f}", v, precision);
}

std::string cell(const std::optional<double>& v, int precision) { return v ? cell(*v, precision) : "-"; }

}  // namespace solder::bench
