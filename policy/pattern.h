// Suppression patterns, matched the way the sanitizers match theirs: '*'
// matches any run of characters, a leading '^' or trailing '$' anchors the
// pattern, and an unanchored pattern may match anywhere in the text.
#pragma once

#include <string_view>

namespace syncscope {

bool pattern_matches(std::string_view pattern, std::string_view text);

}  // namespace syncscope
