#include "tools/pipe_signal.h"

#include <csignal>

namespace syncscope {
namespace {
struct sigaction g_inherited {};
bool g_saved = false;
}  // namespace

void ignore_sigpipe() {
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigemptyset(&ignore.sa_mask);
  g_saved = sigaction(SIGPIPE, &ignore, &g_inherited) == 0;
}

void restore_sigpipe() {
  if (g_saved) sigaction(SIGPIPE, &g_inherited, nullptr);
}

}  // namespace syncscope
