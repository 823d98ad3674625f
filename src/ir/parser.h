#pragma once
// The fusion text format, parsing side (printer.h shows the format). Grammar:
//
//   file      := 'fusion' NAME '{' statement* '}'
//   statement := 'input' NAME ':' DTYPE '[' dims ']'
//              | NAME (',' NAME)* '=' OP '(' [operand (',' operand)*] [',' attr '=' value]* ')'
//              | 'output' NAME (',' NAME)*
//   '#' starts a comment that runs to the end of the line.
//
// Statements go through Fusion::input / Fusion::add / Fusion::output, so a program is
// validated, promoted and inferred exactly as the C++ builders would do it; names from the
// file are kept. Attributes a node leaves out take their defaults where one makes sense
// (lo=-inf, hi=inf, reduction axes=[] meaning all, keepdim=false, end=end, step=1); the
// others (dtype, value, shape, permute/squeeze axes, axis, start, correction) are required.
//
// Every error is a solder::Error "file:line:col: message"; builder validation errors are
// re-thrown with the position of the statement that caused them.
#include <string>

#include "solder/fusion.h"

namespace solder {

Fusion parse_fusion(const std::string& text, const std::string& filename = "<string>");

// Reads and parses a file; the error names the path when it cannot be read.
Fusion load_fusion_file(const std::string& path);

}  // namespace solder
