// Known sync sites in the libraries people train with (Transformers,
// Accelerate, Lightning, torch.utils.data, torchvision, torch itself), each
// with the setting or API that removes the sync. The table is data:
// sites/known_sites.json, compiled in (sites/CMakeLists.txt), one entry
// per site with the library versions it was checked against. A finding
// whose frames match an entry gets the entry's fix as its hint; one with no
// entry keeps its operation's hint (sites/sync_operation.h).
#pragma once

#include <string>
#include <vector>

#include "detectors/finding.h"
#include "sites/site_frames.h"
#include "sites/sync_operation.h"

namespace syncscope {

struct KnownSite {
  std::string id;        // "hf-trainer-nan-inf-filter"
  std::string library;   // "transformers"
  std::string file;      // path suffix after site-packages/: "transformers/trainer.py"
  std::string function;  // the frame's function; "" matches any
  std::string source;    // a part of the line's text; "" matches any (also when the text is unreadable)
  std::vector<std::string> operations;  // operation names it makes; empty matches any
  std::string fix;                      // what to do, naming the setting
  // The fix the setting makes, as the prediction replays it (a name of
  // whatif::fix_name: "drop-statement" where the setting removes the whole
  // check, "drop-read-back" where the statement stays); "": the
  // operation's fix (whatif/finding_fixes.h), where the hint's setting does
  // what it does (log every N steps).
  std::string replay;
  // The library's operations that launch work and that the setting removes
  // besides the replayed read (GradScaler under bf16: its scale's multiply,
  // the inverse scale's double, reciprocal and float, found_inf's fill, the
  // unscale and the scale update, torch/amp/grad_scaler.py): the replay
  // takes each off the host at the program's own cost of an operation
  // (whatif/what_if.h, SiteFix::drops_operations). 0: none.
  uint32_t drops_operations = 0;
  std::vector<std::pair<std::string, std::string>> checked;  // package -> version checked against
};

// The compiled-in table; parsed once. Aborts never: a malformed table is
// an empty one, which known_sites_error() explains (a unit test keeps the
// shipped table well-formed).
const std::vector<KnownSite>& known_sites();
const std::string& known_sites_error();

// Parses a table in the JSON form of sites/known_sites.json; false and
// `error` set when malformed.
bool parse_known_sites(const std::string& json, std::vector<KnownSite>* out, std::string* error);

// The entry matching the site: a Python frame from the innermost one to the
// sync frame (PyTorch's own frames included: torch.save, clip_grad_norm_),
// whose file ends with the entry's file (at a directory boundary), with
// the entry's function and source text, for an operation the entry makes.
// nullptr when none, and for a default-stream finding: an entry's fix
// removes a wait or a pageable copy, and a copy queued on the compute
// stream at the same line (Accelerate's send_to_device) keeps its stream
// whatever non_blocking says.
const KnownSite* match_known_site(const std::vector<KnownSite>& table, const SiteFrames& site, Operation op,
                                  Category category);

}  // namespace syncscope
