/* Prints what RTLD_NEXT found from libdlsym_first.so: 2 (libdlsym_second.so)
   is right. An interposed dlsym that is not a tail call makes glibc search
   after the interposer instead, and finds libdlsym_first.so's own (1). */
#include <stdio.h>

int next_which_lib(void);

int main(void) {
  printf("next=%d\n", next_which_lib());
  return 0;
}
