#include "ir/text_lexer.h"

#include <cctype>

#include "solder/error.h"

namespace solder {

std::string located(const std::string& filename, TextPos pos) {
  return filename + ":" + std::to_string(pos.line) + ":" + std::to_string(pos.col) + ": ";
}

namespace {
bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// 'c' when printable ASCII, else its byte value (a binary file must not put raw bytes, and
// invalid UTF-8, into the message).
std::string quoted_byte(char c) {
  const auto u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7f) return "'" + std::string(1, c) + "'";
  static const char* hex = "0123456789abcdef";
  return std::string("byte 0x") + hex[u >> 4] + hex[u & 15];
}
}  // namespace

std::vector<Token> lex_fusion_text(const std::string& text, const std::string& filename) {
  std::vector<Token> out;
  TextPos pos;
  size_t i = 0;
  auto advance = [&](size_t n) {
    for (size_t k = 0; k < n && i < text.size(); ++k, ++i) {
      if (text[i] == '\n') {
        ++pos.line;
        pos.col = 1;
      } else {
        ++pos.col;
      }
    }
  };
  while (i < text.size()) {
    char c = text[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      advance(1);
    } else if (c == '#') {
      while (i < text.size() && text[i] != '\n') advance(1);
    } else if (ident_start(c)) {
      size_t j = i;
      while (j < text.size() && ident_char(text[j])) ++j;
      out.push_back({Token::Ident, text.substr(i, j - i), pos});
      advance(j - i);
    } else if (digit(c) || (c == '.' && i + 1 < text.size() && digit(text[i + 1]))) {
      // digits [. digits] [e [+-] digits]; the parser converts and range-checks.
      size_t j = i;
      while (j < text.size() && digit(text[j])) ++j;
      if (j < text.size() && text[j] == '.')
        for (++j; j < text.size() && digit(text[j]);) ++j;
      if (j < text.size() && (text[j] == 'e' || text[j] == 'E')) {
        size_t k = j + 1;
        if (k < text.size() && (text[k] == '+' || text[k] == '-')) ++k;
        if (k < text.size() && digit(text[k])) {
          while (k < text.size() && digit(text[k])) ++k;
          j = k;
        }
      }
      out.push_back({Token::Number, text.substr(i, j - i), pos});
      advance(j - i);
    } else if (std::string("{}()[],=:*+-").find(c) != std::string::npos) {
      out.push_back({Token::Punct, std::string(1, c), pos});
      advance(1);
    } else {
      throw Error(located(filename, pos) + "unexpected character " + quoted_byte(c));
    }
  }
  out.push_back({Token::End, "", pos});
  return out;
}

}  // namespace solder
