#include "bench/progress.h"

#include <unistd.h>

#include <algorithm>

namespace solder::bench {

ProgressBar::ProgressBar(size_t total, std::string label)
    : ProgressBar(total, std::move(label), stderr, isatty(fileno(stderr)) != 0) {}

ProgressBar::ProgressBar(size_t total, std::string label, std::FILE* out, bool enabled)
    : total_(total), label_(std::move(label)), out_(out), enabled_(enabled) {}

ProgressBar::~ProgressBar() { finish(); }

std::string ProgressBar::render(size_t done, size_t total, const std::string& label, const std::string& current,
                                int width) {
  size_t shown = std::min(done, total);
  int filled = total ? static_cast<int>(width * shown / total) : width;
  std::string bar(filled, '#');
  bar += std::string(width - filled, '.');
  std::string name = current.size() > 40 ? current.substr(0, 37) + "..." : current;
  return label + " [" + bar + "] " + std::to_string(shown) + "/" + std::to_string(total) +
         (name.empty() ? "" : " " + name);
}

void ProgressBar::step(const std::string& current) {
  ++done_;
  if (!enabled_) return;
  // \r + clear-to-end-of-line redraws in place.
  std::fprintf(out_, "\r%s\x1b[K", render(done_, total_, label_, current).c_str());
  std::fflush(out_);
  drawn_ = true;
}

void ProgressBar::finish() {
  if (enabled_ && drawn_) std::fputc('\n', out_);
  drawn_ = false;
}

}  // namespace solder::bench
