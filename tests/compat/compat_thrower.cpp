// A shared library linked as libsyncscope.so is (static libstdc++ and
// libgcc_eh, compat/'s wrappers): exceptions thrown in it, through it and
// into it must be caught (compat_test.cpp).
#include <stdexcept>
#include <string>

extern "C" int syncscope_compat_find_object_fallback_only;

extern "C" __attribute__((visibility("default"))) void compat_thrower_use_fallback(int on) {
  syncscope_compat_find_object_fallback_only = on;
}

// Throws inside the library, catches inside the library.
extern "C" __attribute__((visibility("default"))) int compat_thrower_own(int value) {
  try {
    if (value >= 0) throw std::runtime_error("thrown in the library " + std::to_string(value));
  } catch (const std::runtime_error& e) {
    return static_cast<int>(std::string(e.what()).size());
  }
  return -1;
}

// Calls back into the program, whose callback throws: caught here, after
// unwinding the program's frames (found through the program's unwind tables).
extern "C" __attribute__((visibility("default"))) int compat_thrower_call(void (*callback)(int), int value) {
  try {
    callback(value);
  } catch (int caught) {
    return caught;
  } catch (...) {
    return -2;
  }
  return -1;
}

// Throws out of the library, to be caught in the program.
extern "C" __attribute__((visibility("default"))) void compat_thrower_throw(int value) {
  throw std::invalid_argument("from the library " + std::to_string(value));
}
