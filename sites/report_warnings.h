// Warnings found while a report is made that are not recording problems
// (the recording is complete; something at report time is off, such as a
// module file rebuilt since the recording): said once each on standard
// error, the report still printed. The CLI routes them into its logger.
#pragma once

#include <string>

namespace syncscope {

using ReportWarningSink = void (*)(const std::string& message);

// Where warnings go; nullptr restores the default ("syncscope: warning:
// ..." on standard error).
void set_report_warning_sink(ReportWarningSink sink);

// Says `message` unless this process said the same message before (several
// ranks' traces name the same library: one warning, not one per rank).
void warn_once(const std::string& message);

}  // namespace syncscope
