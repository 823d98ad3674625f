#pragma once
// Tokens of the fusion text format (see parser.h). The lexer only splits text; what a token
// means is the parser's business.
#include <string>
#include <vector>

namespace solder {

struct TextPos {
  int line = 1, col = 1;
};

struct Token {
  enum Kind { Ident, Number, Punct, End } kind;
  std::string text;  // identifier, number spelling, or the punctuation character
  TextPos pos;
  bool is(const char* s) const { return kind != End && text == s; }
};

// Splits `text` into tokens ending with one End token. '#' starts a comment to the end of the
// line. Numbers are unsigned ("1.5e-3"); a leading '-' is its own token. Throws solder::Error
// "file:line:col: ..." on a character that starts no token.
std::vector<Token> lex_fusion_text(const std::string& text, const std::string& filename);

// "file:line:col: " — the prefix of every located error.
std::string located(const std::string& filename, TextPos pos);

}  // namespace solder
