/* Defines which_lib() and asks the dynamic linker for the *next* definition,
   the way interposers (and libraries wrapping libc) use RTLD_NEXT. */
#define _GNU_SOURCE
#include <dlfcn.h>

int which_lib(void) { return 1; }

int next_which_lib(void) {
  int (*next)(void) = (int (*)(void))dlsym(RTLD_NEXT, "which_lib");
  return next ? next() : -1;
}
