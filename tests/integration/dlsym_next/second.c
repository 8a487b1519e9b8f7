/* The next definition of which_lib() after libdlsym_first.so. */
int which_lib(void) { return 2; }
