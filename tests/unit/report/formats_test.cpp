// Every report format from one synthetic two-rank report
// (tests/unit/report/two_rank_job.h): golden files
// (SYNCSCOPE_UPDATE_GOLDEN=1 rewrites them) and structural checks (SARIF
// 2.1.0's required fields, well-formed JUnit XML, GitHub command syntax).
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "report/github_report.h"
#include "report/json_report.h"
#include "report/html_escape.h"
#include "report/junit_report.h"
#include "report/sarif_report.h"
#include "report/text_report.h"
#include "tests/unit/report/two_rank_job.h"

namespace syncscope::testing {
namespace {

std::string normalise(std::string text) {
  for (size_t at; (at = text.find(kGolden)) != std::string::npos;) text.replace(at, kGolden.size(), "<GOLDEN>");
  std::regex version("\"(syncscope_version|version)\": \"[0-9]+\\.[0-9]+\\.[0-9]+\"");
  return std::regex_replace(text, version, "\"$1\": \"<VERSION>\"");
}

void expect_golden(const std::string& name, const std::string& actual) {
  std::string path = kGolden + "/" + name;
  std::string text = normalise(actual);
  if (std::getenv("SYNCSCOPE_UPDATE_GOLDEN")) {
    std::ofstream(path) << text;
    return;
  }
  std::ifstream in(path);
  ASSERT_TRUE(in) << path << " missing; run with SYNCSCOPE_UPDATE_GOLDEN=1";
  std::stringstream expected;
  expected << in.rdbuf();
  EXPECT_EQ(text, expected.str()) << "golden " << name << " differs (SYNCSCOPE_UPDATE_GOLDEN=1 rewrites it)";
}

struct Fixture {
  std::vector<AnalysedTrace> traces = analysed({rank_trace(0), rank_trace(1)}, two_rank_policy().steps);
  Report report = build_report(traces, two_rank_policy());
};

TEST(Formats, TheModelCarriesPolicyAndRanks) {
  Fixture f;
  ASSERT_EQ(f.report.processes.size(), 2u);
  EXPECT_EQ(f.report.processes[0].label(), "rank 0 (pid 1000)");
  EXPECT_FALSE(f.report.processes[0].gate_failed);  // its only sync is in the baseline
  EXPECT_TRUE(f.report.processes[1].gate_failed);   // 2 native syncs per step the baseline does not know
  EXPECT_EQ(f.report.suppressed, 2u);               // train.py:7 in warm-up and steady state (the last step is a step)
  EXPECT_EQ(f.report.known, 4u);                    // train.py:6 in every phase it appears in
  EXPECT_TRUE(f.report.gate_failed);
  ASSERT_EQ(f.report.ranks.outliers.size(), 1u);
  EXPECT_EQ(f.report.ranks.outliers[0].process, 1u);
}

TEST(Formats, Golden) {
  Fixture f;
  std::ostringstream text;
  render_text_report(f.report, TextReportOptions{}, text);
  expect_golden("expected.txt", text.str());
  expect_golden("expected.json", findings_json(f.report).dump(2) + "\n");
  expect_golden("expected.sarif", findings_sarif(f.report).dump(2) + "\n");
  expect_golden("expected.xml", findings_junit(f.report));
  expect_golden("expected.github", findings_github(f.report, ""));
}

// SARIF 2.1.0: the schema's required properties of each object used.
TEST(Formats, SarifHasEveryRequiredField) {
  Fixture f;
  nlohmann::json log = findings_sarif(f.report);
  ASSERT_EQ(log.at("version"), "2.1.0");
  ASSERT_TRUE(log.at("runs").is_array());
  ASSERT_EQ(log["runs"].size(), 1u);
  const nlohmann::json& run = log["runs"][0];
  const nlohmann::json& driver = run.at("tool").at("driver");
  ASSERT_TRUE(driver.at("name").is_string());
  const nlohmann::json& rules = driver.at("rules");
  for (const auto& rule : rules) {
    EXPECT_TRUE(rule.at("id").is_string());
    EXPECT_TRUE(rule.at("shortDescription").at("text").is_string());
    EXPECT_TRUE(rule.at("help").at("text").is_string());
  }
  ASSERT_FALSE(run.at("results").empty());
  const std::set<std::string> levels = {"none", "note", "warning", "error"};
  for (const auto& result : run["results"]) {
    const nlohmann::json& message = result.at("message");
    EXPECT_TRUE(message.contains("text") || message.contains("id"));
    EXPECT_TRUE(levels.count(result.at("level").get<std::string>()));
    size_t index = result.at("ruleIndex").get<size_t>();
    ASSERT_LT(index, rules.size());
    EXPECT_EQ(rules[index].at("id"), result.at("ruleId"));
    for (const auto& location : result.at("locations")) {
      if (!location.contains("physicalLocation")) continue;
      const nlohmann::json& physical = location["physicalLocation"];
      EXPECT_TRUE(physical.at("artifactLocation").at("uri").is_string());
      EXPECT_GE(physical.at("region").at("startLine").get<int>(), 1);
      if (physical["artifactLocation"].contains("uriBaseId")) {
        EXPECT_TRUE(run.at("originalUriBaseIds").contains(physical["artifactLocation"]["uriBaseId"]));
      }
    }
    if (result.contains("baselineState")) {
      std::string state = result["baselineState"];
      EXPECT_TRUE(state == "new" || state == "unchanged" || state == "updated" || state == "absent") << state;
    }
    for (const auto& s : result.value("suppressions", nlohmann::json::array())) {
      std::string kind = s.at("kind");
      EXPECT_TRUE(kind == "inSource" || kind == "external") << kind;
    }
  }
}

// A small well-formedness checker: balanced tags, quoted attributes, only
// the predefined entities. Returns the element names in document order.
std::vector<std::string> check_xml(const std::string& xml) {
  std::vector<std::string> stack, names;
  size_t i = xml.find("?>");
  EXPECT_EQ(xml.rfind("<?xml", 0), 0u);
  i = i == std::string::npos ? 0 : i + 2;
  std::regex entity("&(amp|lt|gt|quot|apos);");
  while (i < xml.size()) {
    size_t open = xml.find('<', i);
    std::string text = xml.substr(i, open == std::string::npos ? std::string::npos : open - i);
    EXPECT_EQ(std::regex_replace(text, entity, "").find('&'), std::string::npos) << text;
    EXPECT_EQ(text.find('>'), std::string::npos) << text;
    if (open == std::string::npos) break;
    size_t close = xml.find('>', open);
    EXPECT_NE(close, std::string::npos);
    std::string tag = xml.substr(open + 1, close - open - 1);
    if (tag[0] == '/') {
      EXPECT_FALSE(stack.empty());
      if (!stack.empty()) {
        EXPECT_EQ(stack.back(), tag.substr(1));
        stack.pop_back();
      }
    } else {
      bool self_closing = tag.back() == '/';
      std::string name = tag.substr(0, tag.find_first_of(" /"));
      names.push_back(name);
      std::regex attributes(R"(^[A-Za-z_:][-A-Za-z0-9_:.]*(\s+[A-Za-z_:][-A-Za-z0-9_:.]*="[^"<]*")*\s*/?$)");
      EXPECT_TRUE(std::regex_match(tag, attributes)) << tag;
      if (!self_closing) stack.push_back(name);
    }
    i = close + 1;
  }
  EXPECT_TRUE(stack.empty());
  return names;
}

TEST(Formats, JunitIsWellFormedWithATestcasePerCategoryPerProcess) {
  Fixture f;
  std::string xml = findings_junit(f.report);
  std::vector<std::string> names = check_xml(xml);
  EXPECT_EQ(std::count(names.begin(), names.end(), "testsuites"), 1);
  EXPECT_EQ(std::count(names.begin(), names.end(), "testsuite"), 2);
  EXPECT_EQ(std::count(names.begin(), names.end(), "testcase"), 8);
  long failures = std::count(names.begin(), names.end(), "failure");
  EXPECT_EQ(failures, 1);
  EXPECT_NE(xml.find("failures=\"" + std::to_string(failures) + "\" errors=\"0\">"), std::string::npos);
  EXPECT_EQ(xml_escape("a<b & \"c\" 'd'>\x01"), "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;");
}

TEST(Formats, GithubAnnotationsAreOneCommandPerLine) {
  Fixture f;
  std::istringstream lines(findings_github(f.report, kGolden));
  std::regex command(R"(^::(error|warning|notice) (file=[^,:]+,line=[0-9]+,)?title=[^:]*::[^\r\n]*$)");
  int n = 0;
  for (std::string line; std::getline(lines, line); ++n) EXPECT_TRUE(std::regex_match(line, command)) << line;
  EXPECT_GE(n, 1);
  EXPECT_EQ(github_escape_data("50% done\r\nnext"), "50%25 done%0D%0Anext");
  EXPECT_EQ(github_escape_property("a:b,c"), "a%3Ab%2Cc");
}

}  // namespace
}  // namespace syncscope::testing
