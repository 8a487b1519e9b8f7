// `syncscope dump` on recordings made here with the fake runtime: what it
// prints agrees with the trace reader and with the detectors' segmentation,
// stacks are symbolised and events name their Python line.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "detectors/analysis.h"
#include "harness.h"
#include "trace/api.h"

namespace syncscope::testing {
namespace {

using nlohmann::json;

json dump_json(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {syncscope_bin(), "dump", "--json"};
  argv.insert(argv.end(), args.begin(), args.end());
  RunResult r = run(argv);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  json doc = json::parse(r.out, nullptr, false);
  EXPECT_FALSE(doc.is_discarded()) << r.out.substr(0, 2000);
  return doc;
}

TEST(Dump, AgreesWithTheReaderAndTheSegmentation) {
  std::string dir = fresh_dir("dump-hidden-sync");
  RunResult r = run({syncscope_bin(), "run", "--no-report", "-o", dir + "/t", "--", example("hidden_sync_loop"), "40"},
                    fake_runtime_env());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto traces = load_traces(dir + "/t");
  ASSERT_EQ(traces.size(), 1u);
  const ProcessTrace& trace = traces[0];

  json doc = dump_json({"--events", "--stacks", "--phases", dir + "/t"});
  ASSERT_EQ(doc["traces"].size(), 1u);
  const json& t = doc["traces"][0];
  EXPECT_EQ(t["file"], trace.file);
  EXPECT_EQ(t["pid"], trace.header.pid);
  EXPECT_EQ(t["complete"], trace.complete);
  EXPECT_EQ(t["cuda_runtime"], "fake (simulated GPU)");
  EXPECT_EQ(t["counts"]["events"], trace.events.size());
  EXPECT_EQ(t["counts"]["stacks"], trace.stacks.size());
  EXPECT_EQ(t["counts"]["modules"], trace.modules.size());
  EXPECT_EQ(t["process_info"].size(), trace.process_info.size());

  // Per-API counts as the reader sees them.
  uint64_t total = 0;
  for (const auto& [name, a] : t["apis"].items()) total += a["count"].get<uint64_t>();
  EXPECT_EQ(total, trace.events.size());
  EXPECT_EQ(t["apis"]["cudaStreamSynchronize"]["count"], count_api(trace, ApiId::cudaStreamSynchronize));
  EXPECT_EQ(t["apis"]["cudaMemcpyAsync"]["count"], count_api(trace, ApiId::cudaMemcpyAsync));
  EXPECT_GE(t["apis"]["cudaMemcpyAsync"]["copies"]["D2H/pinned"].get<int>(), 40);
  uint64_t per_thread = 0;
  for (const json& th : t["threads"]) per_thread += th["events"].get<uint64_t>();
  EXPECT_EQ(per_thread, trace.events.size());

  // Events in the reader's order, every one.
  ASSERT_EQ(t["events"].size(), trace.events.size());
  for (size_t i = 0; i < trace.events.size(); ++i) {
    const Event& e = trace.events[i];
    const json& j = t["events"][i];
    ASSERT_EQ(j["api"], std::string(api_name(e.api))) << i;
    ASSERT_EQ(j["start_ns"], static_cast<int64_t>(e.start_ns - trace.header.start_monotonic_ns)) << i;
    ASSERT_EQ(j["duration_ns"], e.end_ns - e.start_ns) << i;
    ASSERT_EQ(j["stack_id"], e.stack_id) << i;
  }

  // Symbolised stacks: the example's own function is named.
  bool named = false;
  for (const json& s : t["stacks"]) {
    for (const json& f : s["native"]) {
      named |= f["symbol"].get<std::string>().find("read_loss_value") != std::string::npos;
    }
  }
  EXPECT_TRUE(named) << t["stacks"].dump(1).substr(0, 3000);
  bool in_symbols = false;
  for (const json& s : t["apis"]["cudaStreamSynchronize"]["stack_symbols"]) {
    in_symbols |= s.get<std::string>().find("read_loss_value") != std::string::npos;
  }
  EXPECT_TRUE(in_symbols);

  // The phases are the detectors' own.
  Analysis a = analyze(trace);
  ASSERT_FALSE(a.phases.empty());
  ASSERT_EQ(t["phases"]["phases"].size(), a.phases.size());
  for (size_t i = 0; i < a.phases.size(); ++i) {
    const json& p = t["phases"]["phases"][i];
    EXPECT_EQ(p["name"], a.phases[i].name);
    EXPECT_EQ(p["steps"], a.phases[i].steps);
    EXPECT_EQ(p["calls_per_step"], a.phases[i].calls_per_step);
    EXPECT_EQ(p["source"], step_source_name(a.phases[i].source));
    EXPECT_GT(p["events"].get<uint64_t>(), 0u);
  }

  RunResult text = run({syncscope_bin(), "dump", "--stacks", "--phases", "--events", "10", dir + "/t"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  for (const char* want : {"complete (clean shutdown)", "cudaStreamSynchronize", "read_loss_value", "events (10 of",
                           "calls per step", "hidden_sync_loop"}) {
    EXPECT_NE(text.out.find(want), std::string::npos) << want << "\n" << text.out.substr(0, 4000);
  }
}

TEST(Dump, EventsNameTheirPythonLine) {
  std::string script = SYNCSCOPE_SOURCE_DIR "/examples/python/ctypes_sync_loop.py";
  std::string dir = fresh_dir("dump-python");
  RunResult r =
      run({syncscope_bin(), "run", "--no-report", "-o", dir + "/t", "--", "/usr/bin/env", "python3", script, "20"},
          fake_runtime_env());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto traces = load_traces(dir + "/t");
  ASSERT_EQ(traces.size(), 1u);
  // A trace file, not its directory.
  json doc = dump_json({"--events", traces[0].file});
  const json& t = doc["traces"][0];
  EXPECT_GT(t["counts"]["python_code"].get<int>(), 0);
  size_t syncs_at_34 = 0;
  for (const json& e : t["events"]) {
    if (e["api"] != "cudaStreamSynchronize") continue;
    ASSERT_TRUE(e.contains("python")) << e.dump();
    EXPECT_EQ(e["python"]["file"], script);
    syncs_at_34 += e["python"]["line"] == 34 && e["python"]["function"] == "read_metric";
  }
  EXPECT_EQ(syncs_at_34, 20u);
  RunResult text = run({syncscope_bin(), "dump", "--events", traces[0].file});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("ctypes_sync_loop.py:34 read_metric"), std::string::npos) << text.out;
}

const std::string kStandIns = SYNCSCOPE_SOURCE_DIR "/tests/integration/python";

// Records a stand-in program of tests/integration/python under `syncscope
// run` (its line watch on: sys.monitoring, or fake_monitoring.py before
// Python 3.12) and returns its one trace file.
std::string record_stand_in(const std::string& script, const std::vector<std::string>& args,
                            std::map<std::string, std::string> env) {
  env["PYTHONPATH"] = kStandIns;
  std::string dir = fresh_dir("dump-lines");
  std::vector<std::string> argv = {syncscope_bin(), "run", "--no-report", "-o", dir + "/t", "--", "/usr/bin/env",
                                   "python3", script};
  argv.insert(argv.end(), args.begin(), args.end());
  RunResult r = run(argv, env);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto traces = load_traces(dir + "/t");
  EXPECT_EQ(traces.size(), 1u);
  return traces.empty() ? std::string() : traces[0].file;
}

TEST(Dump, LineEventsNameTheLineTheyMark) {
  // The line watch's events (Python 3.12+'s sys.monitoring, a stand-in on
  // older Pythons) carry a code object and a line, not a stack.
  const std::string script = kStandIns + "/print_loop.py";
  std::map<std::string, std::string> env = fake_runtime_env();
  env["PRINT_LOOP_LINE_WATCH"] = "1";
  const std::string trace = record_stand_in(script, {"20", "broken"}, env);
  ASSERT_FALSE(trace.empty());
  json doc = dump_json({"--events", trace});
  size_t print_lines = 0, returns = 0;
  for (const json& e : doc["traces"][0]["events"]) {
    if (e["api"] != "syncscope_python_line") continue;
    ASSERT_TRUE(e.contains("python")) << e.dump();
    if (e["python"]["file"] != script) continue;
    print_lines += e["python"]["line"] == 49 && e["python"]["function"] == "main";
    returns += e["python"]["line"] == 0;
  }
  EXPECT_GE(print_lines, 18u) << "the print's line, each step after the watch began";
  EXPECT_GE(returns, 1u) << "main returned";
  RunResult text = run({syncscope_bin(), "dump", "--events", trace});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("print_loop.py:49 main"), std::string::npos);
  EXPECT_NE(text.out.find("print_loop.py:return main"), std::string::npos);
}

TEST(Dump, LineWatchSeesALoopThatStartsLater) {
  // A warm-up loop of 8 steps in one function, then the main loop in
  // another: the watch's first looks see only the warm-up's frames, a later
  // look (every 64th step marker) the main loop's.
  const std::string script = kStandIns + "/two_stage_loop.py";
  const std::string trace = record_stand_in(script, {"8", "200"}, fake_runtime_env());
  ASSERT_FALSE(trace.empty());
  json doc = dump_json({"--events", trace});
  std::map<std::string, size_t> lines;
  for (const json& e : doc["traces"][0]["events"]) {
    if (e["api"] == "syncscope_python_line" && e["python"]["file"] == script) ++lines[e["python"]["function"]];
  }
  EXPECT_GE(lines["stage_one"], 8u) << "the warm-up's loop, from its first step";
  EXPECT_GE(lines["stage_two"], 2u * 100) << "the main loop, from the first look that landed in it";
}

}  // namespace
}  // namespace syncscope::testing
