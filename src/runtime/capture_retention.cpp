#include "runtime/capture_retention.h"

namespace solder {

namespace {
thread_local std::vector<std::shared_ptr<void>>* current = nullptr;
}

CaptureRetention::CaptureRetention(std::vector<std::shared_ptr<void>>& keep) : previous_(current) { current = &keep; }
CaptureRetention::~CaptureRetention() { current = previous_; }

bool retaining_for_capture() { return current != nullptr; }

void retain_for_capture(const std::shared_ptr<void>& buffer) {
  if (current && buffer) current->push_back(buffer);
}

}  // namespace solder
