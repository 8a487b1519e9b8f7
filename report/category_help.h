// What each finding category means and what to do about it: SARIF rule
// descriptions and help, and the JUnit failure text.
#pragma once

#include "detectors/finding.h"

namespace syncscope {

struct CategoryHelp {
  const char* rule_name;    // "HiddenSync"
  const char* summary;      // one sentence
  const char* description;  // a paragraph: what is measured
  const char* help;         // what to do about it
};

const CategoryHelp& category_help(Category c);

}  // namespace syncscope
