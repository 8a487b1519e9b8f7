// Whose code a Python source file is: PyTorch's own, the standard
// library's, an installed library's (transformers, lightning, ...), or the
// user's. A finding names two lines from this (sites/site_frames.h): the
// line that syncs (the innermost frame outside PyTorch and the standard
// library, which may be inside a library the user trains with) and the
// user's line that reached it (the innermost frame of the user's own files).
// Told apart by where a file is installed, never by a list of package
// names; --user-code / --library-code name the exceptions.
#pragma once

#include <string>
#include <vector>

namespace syncscope {

enum class CodeOwner {
  kFramework,  // PyTorch's own package (torch/, triton/), syncscope's own hook
  kStdlib,     // the standard library, frozen modules, generated code
  kLibrary,    // installed under site-packages/dist-packages, or named with --library-code
  kUser,       // everything else, or named with --user-code
};

struct CodeOwnershipOptions {
  // Path prefixes (as recorded, or absolute) that are the user's own code
  // although installed (an editable package, a vendored copy), and that
  // are a library although outside site-packages. The user's list wins.
  std::vector<std::string> user_code;
  std::vector<std::string> library_code;
};

struct CodeOwnership {
  CodeOwner owner = CodeOwner::kUser;
  // For kLibrary: the package, the first path component after
  // site-packages/ ("transformers", "lightning"), or the last component of
  // the --library-code prefix that matched. Empty otherwise.
  std::string library;
};

// `file` as Python recorded it (co_filename); `cwd` the process's working
// directory, against which relative files and relative option paths are
// resolved.
CodeOwnership code_owner(const std::string& file, const CodeOwnershipOptions& options, const std::string& cwd = "");

// The innermost frame at or after which a finding's line stands: frames
// that are neither PyTorch's nor the standard library's sync on their own
// account.
inline bool outside_framework(CodeOwner owner) { return owner == CodeOwner::kLibrary || owner == CodeOwner::kUser; }

}  // namespace syncscope
