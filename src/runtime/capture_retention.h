#pragma once
// Device memory a CUDA graph capture must keep: a captured graph replays on the addresses it
// recorded, so the buffers the captured steps use (intermediates, outputs, temporary copies)
// must live as long as the graph. While a CaptureRetention is in scope on a thread, the
// executor and the steps that make temporaries hand their buffers to retain_for_capture,
// which keeps them in the retention's list; elsewhere it does nothing.
#include <memory>
#include <vector>

namespace solder {

class CaptureRetention {
 public:
  explicit CaptureRetention(std::vector<std::shared_ptr<void>>& keep);
  ~CaptureRetention();
  CaptureRetention(const CaptureRetention&) = delete;
  CaptureRetention& operator=(const CaptureRetention&) = delete;

 private:
  std::vector<std::shared_ptr<void>>* previous_;
};

// Whether a CaptureRetention is in scope on this thread: callers test it first, so the launch
// path makes no shared_ptr copies (atomic reference counts) when nothing is captured.
bool retaining_for_capture();
void retain_for_capture(const std::shared_ptr<void>& buffer);

}  // namespace solder
