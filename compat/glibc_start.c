/* Executables only (part of the list in glibc_compat.c, which see).
 *
 * glibc 2.34 changed how a program starts: its crt1.o passes no init
 * function to __libc_start_main@GLIBC_2.34, which runs the program's
 * constructors itself. Before 2.34 (and in the old GLIBC_2.2.5 version that
 * 2.34+ keep) the init function passed in runs them; the dynamic linker never
 * runs the main program's. So the old version gets an init function that runs
 * them: .preinit_array, _init, .init_array, as __libc_csu_init did. The
 * destructors stay with the dynamic linker (_dl_fini runs the main program's
 * .fini_array in every version), so fini is passed on as it is. */
#include <stddef.h>

#include "compat/glibc_compat.h"

typedef int (*syncscope_main_fn)(int, char**, char**);
typedef void (*syncscope_array_fn)(int, char**, char**);

extern int syncscope_old_libc_start_main(syncscope_main_fn main, int argc, char** argv,
                                         void (*init)(int, char**, char**), void (*fini)(void),
                                         void (*rtld_fini)(void), void* stack_end);
__asm__(".symver syncscope_old_libc_start_main, __libc_start_main@GLIBC_2.2.5");

extern syncscope_array_fn __preinit_array_start[] __attribute__((visibility("hidden")));
extern syncscope_array_fn __preinit_array_end[] __attribute__((visibility("hidden")));
extern syncscope_array_fn __init_array_start[] __attribute__((visibility("hidden")));
extern syncscope_array_fn __init_array_end[] __attribute__((visibility("hidden")));
extern void _init(void);

static void syncscope_csu_init(int argc, char** argv, char** envp) {
  for (syncscope_array_fn* f = __preinit_array_start; f < __preinit_array_end; ++f) (*f)(argc, argv, envp);
  _init();
  for (syncscope_array_fn* f = __init_array_start; f < __init_array_end; ++f) (*f)(argc, argv, envp);
}

SS_HIDDEN int SS_WRAP(__libc_start_main)(syncscope_main_fn main, int argc, char** argv,
                                                                   void (*init)(int, char**, char**),
                                                                   void (*fini)(void), void (*rtld_fini)(void),
                                                                   void* stack_end) {
  return syncscope_old_libc_start_main(main, argc, argv, init != NULL ? init : syncscope_csu_init, fini, rtld_fini,
                                       stack_end);
}
