#pragma once
// A one-line progress bar for long sweeps. It writes to stderr and only when stderr is a
// terminal, so logs and redirected output stay clean.
#include <cstdio>
#include <string>

namespace solder::bench {

class ProgressBar {
 public:
  // `enabled` defaults to isatty(stderr); tests pass a FILE* and force it on.
  explicit ProgressBar(size_t total, std::string label = "bench");
  ProgressBar(size_t total, std::string label, std::FILE* out, bool enabled);
  ~ProgressBar();  // finishes the line if something was drawn
  void step(const std::string& current);  // one unit done; `current` names what runs next
  void finish();
  static std::string render(size_t done, size_t total, const std::string& label, const std::string& current,
                            int width = 30);

 private:
  size_t total_, done_ = 0;
  std::string label_;
  std::FILE* out_;
  bool enabled_, drawn_ = false;
};

}  // namespace solder::bench
