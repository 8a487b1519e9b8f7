#include "policy/input_file.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace syncscope {

bool is_regular_file(const std::string& path, std::string* why) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    *why = std::strerror(errno);
    return false;
  }
  if (S_ISREG(st.st_mode)) return true;
  *why = S_ISDIR(st.st_mode)    ? "a directory, not a file"
         : S_ISFIFO(st.st_mode) ? "a FIFO, not a regular file"
         : S_ISSOCK(st.st_mode) ? "a socket, not a regular file"
                                : "a device, not a regular file";
  return false;
}

absl::StatusOr<std::string> read_input_file(const std::string& path, const std::string& what) {
  std::string why;
  if (!is_regular_file(path, &why)) return absl::NotFoundError("cannot read " + what + " " + path + ": " + why);
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError("cannot read " + what + " " + path + ": " + std::strerror(errno));
  std::stringstream text;
  text << in.rdbuf();
  if (in.bad()) return absl::DataLossError("cannot read " + what + " " + path + ": read error");
  return text.str();
}

}  // namespace syncscope
