/* libm's part of the list in glibc_compat.c (which see), in an object of its
 * own so that a binary without libm (libsyncscope.so) never pulls it in.
 *
 * glibc 2.29 gave exp, exp2, log, log2 and pow new versions (no SVID error
 * handling, errno as C99 says); the old versions compute the same values. */
#include "compat/glibc_compat.h"

SS_FORWARD(exp, GLIBC_2.2.5);
SS_FORWARD(exp2, GLIBC_2.2.5);
SS_FORWARD(log, GLIBC_2.2.5);
SS_FORWARD(log2, GLIBC_2.2.5);
SS_FORWARD(pow, GLIBC_2.2.5);
