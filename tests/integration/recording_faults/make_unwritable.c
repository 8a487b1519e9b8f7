// make_unwritable DIR -- COMMAND [ARGS...]
// Runs COMMAND unable to write into DIR, even as root (CI runs tests as
// root, and root ignores permission bits): DIR is made read-only (0555),
// and root gives up CAP_DAC_OVERRIDE for good (bounding set included, so
// COMMAND cannot get it back at exec), or, where that is not allowed,
// becomes the unprivileged user 65534. It then checks that creating a file
// in DIR really fails, and refuses (exit 125) rather than run COMMAND with
// DIR writable: a test relying on it can fail, never pass by accident.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static int drop_dac_override(void) {
  if (prctl(PR_CAPBSET_DROP, CAP_DAC_OVERRIDE, 0, 0, 0) != 0) return -1;
  struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct data[2];
  if (syscall(SYS_capget, &header, data) != 0) return -1;
  unsigned bit = 1u << (CAP_DAC_OVERRIDE % 32);
  data[CAP_DAC_OVERRIDE / 32].effective &= ~bit;
  data[CAP_DAC_OVERRIDE / 32].permitted &= ~bit;
  data[CAP_DAC_OVERRIDE / 32].inheritable &= ~bit;
  return (int)syscall(SYS_capset, &header, data);
}

static int become_nobody(void) {
  if (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0) return -1;
  return 0;
}

int main(int argc, char** argv) {
  if (argc < 4 || strcmp(argv[2], "--") != 0) {
    fprintf(stderr, "usage: make_unwritable DIR -- COMMAND [ARGS...]\n");
    return 2;
  }
  const char* dir = argv[1];
  if (chmod(dir, 0555) != 0) {
    fprintf(stderr, "make_unwritable: chmod %s: %s\n", dir, strerror(errno));
    return 125;
  }
  if (geteuid() == 0 && drop_dac_override() != 0 && become_nobody() != 0) {
    fprintf(stderr, "make_unwritable: cannot give up root's power to write anywhere: %s\n", strerror(errno));
    return 125;
  }
  char probe[4200];
  snprintf(probe, sizeof(probe), "%s/make_unwritable.probe", dir);
  int fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd >= 0) {
    close(fd);
    unlink(probe);
    fprintf(stderr, "make_unwritable: %s is still writable here; refusing to run the command\n", dir);
    return 125;
  }
  execvp(argv[3], argv + 3);
  fprintf(stderr, "make_unwritable: cannot run %s: %s\n", argv[3], strerror(errno));
  return 127;
}
