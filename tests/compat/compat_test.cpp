// compat/ (the glibc 2.28 link of what ships), run here on the build
// machine's newer glibc: this program and libcompat_thrower.so are linked
// exactly as bin/syncscope and libsyncscope.so are (syncscope_portable_link).
//  - C++ exceptions still work, in the program, in the library, through each
//    other's frames, with glibc's _dl_find_object and with the
//    dl_iterate_phdr fallback that glibc < 2.35 gets (libgcc_eh finds unwind
//    tables through it; if it fails, every exception terminates);
//  - the fallback finds the same object and unwind tables as glibc's own;
//  - the program's constructors run once (__libc_start_main@GLIBC_2.2.5 is
//    handed an init function) and its destructors once;
//  - the replaced functions answer as glibc's: stat and friends,
//    std::random_device (arc4random), a condition variable waiting on
//    steady_clock (pthread_cond_clockwait), threads.
// Plain C++ (no GoogleTest: it would bring its own libstdc++ into a program
// linked statically with it). Prints one line per check; exit 1 if any failed.
//   compat_test            the checks
//   compat_test destructor prints "destructor ran" from a static destructor
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>

extern "C" int syncscope_compat_find_object_fallback_only;
extern "C" int syncscope_find_object_by_phdr(void* pc, struct dl_find_object* result);

extern "C" void compat_thrower_use_fallback(int on);
extern "C" int compat_thrower_own(int value);
extern "C" int compat_thrower_call(void (*callback)(int), int value);
extern "C" void compat_thrower_throw(int value);

namespace {

int failures = 0;

void check(const char* what, bool ok, const std::string& detail = "") {
  failures += !ok;
  std::printf("%s  %s%s%s\n", ok ? "PASS" : "FAIL", what, detail.empty() ? "" : ": ", detail.c_str());
}

int constructed = 0;
struct Counted {
  Counted() { ++constructed; }
};
Counted counted;
__attribute__((constructor)) void count_constructor_attribute() { ++constructed; }

struct Announces {
  bool armed = false;
  ~Announces() {
    if (armed) std::puts("destructor ran");
  }
};
Announces announces;

__attribute__((noinline)) void throw_int(int value) { throw value; }

__attribute__((noinline)) int throw_and_catch_here(int value) {
  try {
    if (value >= 0) throw std::out_of_range("here " + std::to_string(value));
  } catch (const std::logic_error& e) {
    return static_cast<int>(std::strlen(e.what()));
  }
  return -1;
}

void exceptions(const char* mode) {
  std::string m(mode);
  check(("exception thrown and caught in the program (" + m + ")").c_str(), throw_and_catch_here(7) == 6);
  check(("exception thrown and caught in the library (" + m + ")").c_str(), compat_thrower_own(12) == 24);
  check(("exception from the program through the library's frames, caught there (" + m + ")").c_str(),
        compat_thrower_call(throw_int, 41) == 41);
  int caught = 0;
  try {
    compat_thrower_throw(5);
  } catch (const std::exception& e) {
    caught = std::strcmp(e.what(), "from the library 5") == 0 ? 1 : 2;
  }
  check(("exception from the library caught in the program (" + m + ")").c_str(), caught == 1);
}

void same_object(const char* what, void* pc) {
  auto real = reinterpret_cast<int (*)(void*, struct dl_find_object*)>(
      dlvsym(RTLD_DEFAULT, "_dl_find_object", "GLIBC_2.35"));
  struct dl_find_object mine{}, glibc{};
  int rc = syncscope_find_object_by_phdr(pc, &mine);
  if (real == nullptr) {
    check(what, rc == 0 && mine.dlfo_eh_frame != nullptr, "no _dl_find_object here: found by itself");
    return;
  }
  int glibc_rc = real(pc, &glibc);
  char detail[256];
  std::snprintf(detail, sizeof detail, "rc %d/%d map %p-%p / %p-%p eh_frame %p / %p", rc, glibc_rc, mine.dlfo_map_start,
                mine.dlfo_map_end, glibc.dlfo_map_start, glibc.dlfo_map_end, mine.dlfo_eh_frame, glibc.dlfo_eh_frame);
  check(what,
        rc == 0 && glibc_rc == 0 && mine.dlfo_map_start == glibc.dlfo_map_start &&
            mine.dlfo_map_end == glibc.dlfo_map_end && mine.dlfo_eh_frame == glibc.dlfo_eh_frame,
        detail);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "destructor") == 0) {
    announces.armed = true;
    return 0;
  }
  check("the program's constructors ran once each", constructed == 2, std::to_string(constructed));

  exceptions("glibc's _dl_find_object");
  syncscope_compat_find_object_fallback_only = 1;
  compat_thrower_use_fallback(1);
  exceptions("dl_iterate_phdr, as on glibc < 2.35");
  syncscope_compat_find_object_fallback_only = 0;
  compat_thrower_use_fallback(0);

  same_object("the fallback finds the program as glibc does", reinterpret_cast<void*>(&throw_and_catch_here));
  same_object("the fallback finds the library as glibc does", reinterpret_cast<void*>(&compat_thrower_own));
  same_object("the fallback finds libc as glibc does", reinterpret_cast<void*>(&std::fclose));
  struct dl_find_object none{};
  check("the fallback fails for an address in no object",
        syncscope_find_object_by_phdr(reinterpret_cast<void*>(16), &none) == -1);

  struct stat a{}, b{};
  int fd = open("/proc/self/exe", O_RDONLY);
  check("stat and fstat agree", stat("/proc/self/exe", &a) == 0 && fstat(fd, &b) == 0 && a.st_ino == b.st_ino &&
                                    a.st_size == b.st_size && a.st_size > 0);
  close(fd);
  check("lstat sees the link", lstat("/proc/self/exe", &a) == 0 && S_ISLNK(a.st_mode));
  check("fstatat", fstatat(AT_FDCWD, "/proc/self/exe", &a, 0) == 0 && a.st_ino == b.st_ino);
  check("stat fails as it should", stat("/nonexistent/compat", &a) == -1 && errno == ENOENT);

  std::random_device device;
  unsigned r1 = device(), r2 = device(), r3 = device();
  check("std::random_device", !(r1 == r2 && r2 == r3));

  std::mutex mutex;
  std::condition_variable cv;
  std::unique_lock<std::mutex> lock(mutex);
  auto start = std::chrono::steady_clock::now();
  bool woken = cv.wait_for(lock, std::chrono::milliseconds(200), [] { return false; });
  auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
  check("a steady_clock wait times out after its time", !woken && waited.count() >= 195 && waited.count() < 2000,
        std::to_string(waited.count()) + " ms");
  bool ready = false;
  std::thread notifier([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    std::lock_guard<std::mutex> guard(mutex);
    ready = true;
    cv.notify_one();
  });
  bool got = cv.wait_for(lock, std::chrono::seconds(10), [&] { return ready; });
  lock.unlock();
  notifier.join();
  check("a steady_clock wait is woken by a notify, from a std::thread", got);

  // The destructors of a program run once (by the dynamic linker).
  std::string command = std::string(argv[0]) + " destructor";
  FILE* child = popen(command.c_str(), "r");
  std::string out;
  char buffer[256];
  while (child != nullptr && std::fgets(buffer, sizeof buffer, child) != nullptr) out += buffer;
  int status = child != nullptr ? pclose(child) : -1;
  check("the program's static destructors run once", status == 0 && out == "destructor ran\n", out);

  std::printf("%d failed\n", failures);
  return failures == 0 ? 0 : 1;
}
