// What fixing a finding saves, in the HTML report (issue 27,
// docs/what-if.md): the saving's line as the text report words it, and a
// picture of the step as replayed and predicted without the fix; the same
// for every steady finding of a phase fixed at once.
#pragma once

#include <string>

#include "report/report_model.h"

namespace syncscope {

// " saves 16%" (a tag, its space before it) for a card's head; "" without a prediction.
std::string saving_tag_html(const Finding& f);
// The saving's line and the two bars; "" without a prediction.
std::string prediction_html(const ProcessReport& process, const Finding& f);
// Every steady finding of phase `index` fixed; "" when not predicted.
std::string all_fixed_html(const ProcessReport& process, size_t index);

}  // namespace syncscope
