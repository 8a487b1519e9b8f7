/* The two ways compat/ replaces a glibc symbol (see glibc_compat.c). */
#pragma once

#define SS_HIDDEN __attribute__((visibility("hidden")))
/* The replacement of SYM, written by hand. */
#define SS_WRAP(sym) __wrap_##sym

/* __wrap_SYM: a tail jump to SYM@VER, for any signature. */
#define SS_FORWARD(sym, ver)                                                     \
  __asm__(".symver syncscope_old_" #sym ", " #sym "@" #ver "\n"                  \
          ".text\n"                                                              \
          ".globl __wrap_" #sym "\n"                                             \
          ".hidden __wrap_" #sym "\n"                                            \
          ".type __wrap_" #sym ", @function\n"                                   \
          "__wrap_" #sym ":\n"                                                   \
          "  jmp syncscope_old_" #sym "@PLT\n"                                   \
          ".size __wrap_" #sym ", . - __wrap_" #sym "\n")
