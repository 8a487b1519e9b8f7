#pragma once

namespace syncscope::preload::cupti {

// CUPTI started on a thread with no CUDA context current, after the
// process's contexts were made (an attach session, a watch), recorded no
// GPU work on an H100. The thread that starts it borrows the device's
// primary context while it does, when that context already exists (never
// creating one: that would take GPU memory the program did not ask for).
// SYNCSCOPE_GPU_TIMELINE_BORROW_CONTEXT=0 turns this off.
class BorrowedContext {
 public:
  BorrowedContext();
  ~BorrowedContext();
  BorrowedContext(const BorrowedContext&) = delete;
  BorrowedContext& operator=(const BorrowedContext&) = delete;

 private:
  using Release = int (*)(int);
  using SetCurrent = int (*)(void*);
  Release release_ = nullptr;
  SetCurrent set_current_ = nullptr;
  int device_ = -1;
};

}  // namespace syncscope::preload::cupti
