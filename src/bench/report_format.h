#pragma once
// A BenchReport for people and spreadsheets: CSV (every field, one row per case), a markdown
// table for docs/PRs, and a compact aligned table for the terminal. Columns that no record
// fills (peers not run, host time not measured) are left out of the markdown/terminal tables.
#include <string>

#include "bench/record.h"

namespace solder::bench {

std::string report_csv(const BenchReport& r);
std::string report_markdown(const BenchReport& r);
std::string report_terminal(const BenchReport& r);

// RFC 4180 quoting: fields holding a comma, quote or newline are quoted, quotes doubled.
std::string csv_escape(const std::string& field);

}  // namespace solder::bench
