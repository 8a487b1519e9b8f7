#!/usr/bin/env bash
# The wheel with PyTorch on a GPU (issue 14): docs/python.md's API and pytest
# plugin on a real training step. From a relocatable bundle
# (scripts/make-bundle.sh build BUNDLE): the wheel found in BUNDLE (*.whl or
# dist/*.whl, as scripts/build-wheel.sh BUILD BUNDLE/dist leaves it) or else
# made from the bundle with scripts/make-wheel.py, installed with
# `pip install --no-deps --no-index` into a venv made with
# --system-site-packages (the machine's torch; no network needed). Then:
#   a. `syncscope run -- python train_item.py`: the .item() line found;
#   b. pytest on test_item_marker.py: the test calling .item() every step,
#      marked @pytest.mark.syncscope(fail_on="hidden-sync"), fails naming
#      that line; its fixed twin passes (plain, and under `syncscope run`);
#   c. `with syncscope.watch()` in a plain process (no preload): the same
#      line and count, import slots put back, no thread of the recorder
#      left, a second watch working;
#   e. (run after b) issue 25's marker semantics on test_marker_steady.py:
#      set-up copies and one read after the loop pass, the per-step
#      float(loss) fails as the test's own failure naming its line; -x, -k
#      and -p no:syncscope behave as before;
#   d. a watch's cost: interleaved processes running a timed training loop
#      after a watch() around a different part of the program, or after
#      that part bare; medians per step, and the watch's own time.
# Prints PASS/FAIL lines; exits 1 when any check failed. Under 5 minutes.
#
#   tests/gpu/check_python.sh BUNDLE_DIR OUT
set -uo pipefail
[[ $# -eq 2 ]] || { echo "usage: $0 BUNDLE_DIR OUT" >&2; exit 2; }
bundle=$(cd "$1" && pwd) || exit 2
mkdir -p "$2" && out=$(cd "$2" && pwd) || exit 2
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
scripts=$root/tests/gpu/python
budget_s=290  # the whole script's, below 5 minutes
failures=0

pass() { echo "PASS  $*"; }
fail() { echo "FAIL  $*"; failures=$((failures + 1)); }
# A timeout for the next step: WANT seconds, or what is left of the budget.
limit() {
  local left=$((budget_s - SECONDS))
  ((left < 10)) && left=10
  echo $(($1 < left ? $1 : left))
}
finish() {
  echo "== $failures check(s) failed, ${SECONDS}s"
  exit $((failures > 0))
}

nvidia-smi -L 2>/dev/null | head -1
unset LD_PRELOAD SYNCSCOPE_HOME PYTHONPATH
export SYNCSCOPE_LOG=quiet

# ---- the wheel, a venv, the install
wheel=$(ls "$bundle"/*.whl "$bundle"/dist/*.whl 2>/dev/null | head -1)
if [[ -z $wheel ]]; then
  version=$(sed -n 's/^project(syncscope VERSION \([0-9.]*\).*/\1/p' "$root/CMakeLists.txt")
  rm -rf "$out/dist"
  python3 "$root/scripts/make-wheel.py" "$bundle" "$out/dist" "${version:-0.0.0}" >"$out/make-wheel.log" 2>&1
  wheel=$(ls "$out"/dist/*.whl 2>/dev/null | head -1)
fi
[[ -n $wheel ]] && pass "the wheel: $(basename "$wheel")" || { fail "no wheel in $bundle, none made from it"; finish; }
venv=$out/venv
rm -rf "$venv"
# The machine's python3 may itself be a venv (torch in /opt/torch/.venv):
# --system-site-packages then reaches the base interpreter's packages, not
# torch, so a .pth file adds that venv's site-packages after the new one's.
parent_sites() {
  python3 -c 'import site, sys; print("\n".join(site.getsitepackages()) if sys.prefix != sys.base_prefix else "")'
}
if python3 -m venv --system-site-packages "$venv" >"$out/venv.log" 2>&1 &&
  parent_sites >"$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/machine_env.pth" &&
  "$venv/bin/python" -m pip install --no-deps --no-index -q "$wheel" >>"$out/venv.log" 2>&1; then
  pass "pip install --no-deps into a venv with the system's torch"
else
  fail "venv or pip install: $(tail -3 "$out/venv.log")"
  finish
fi
py=$venv/bin/python
ss=$venv/bin/syncscope
"$py" -c "import torch, syncscope; print('torch', torch.__version__, 'cuda', torch.version.cuda, torch.cuda.is_available())"
export PYTHONPATH=$scripts
line=$(grep -n '# the .item() line$' "$scripts/train_item.py" | cut -d: -f1)

# ---- a. syncscope run finds the .item() line
timeout "$(limit 90)" "$ss" run --force -o "$out/a-traces" --format "json=$out/a.json" -- \
  "$py" "$scripts/train_item.py" 40 >"$out/a.txt" 2>&1
"$py" - "$out/a.json" "$line" <<'EOF' && pass "a. syncscope run: the .item() line train_item.py:$line" || fail "a. syncscope run: train_item.py:$line not found (a.txt)"
import json, sys
doc, line = json.load(open(sys.argv[1])), int(sys.argv[2])
found = [f for p in doc["processes"] for f in p["findings"] if f["category"] == "hidden-sync" and
         (f.get("user_frame") or {}).get("file", "").endswith("train_item.py") and f["user_frame"].get("line") == line]
print("   ", [(f["user_frame"]["line"], f["count"], f.get("phase")) for f in found])
sys.exit(0 if found and max(f["count"] for f in found) >= 30 else 1)  # the steady finding: 40 steps less warm-up
EOF

# ---- b. the pytest marker: the .item() test fails naming the line, its twin passes
check_marker() {  # LABEL PREFIX...
  local label=$1; shift
  local xml=$out/b-$label.xml
  (cd "$out" && timeout "$(limit 120)" "$@" "$py" -m pytest -q -p no:cacheprovider -rfE --junitxml "$xml" \
    "$scripts/test_item_marker.py") >"$out/b-$label.txt" 2>&1
  "$py" - "$xml" "$line" <<'EOF' && pass "b. pytest marker ($label): the .item() test fails naming train_item.py:$line, the fixed twin passes" || fail "b. pytest marker ($label): see b-$label.txt"
import sys
import xml.etree.ElementTree as ET
cases = {c.get("name"): c for c in ET.parse(sys.argv[1]).iter("testcase")}
line = sys.argv[2]
item, fixed = cases.get("test_item_every_step"), cases.get("test_fixed_twin")
failure = item.find("failure") if item is not None else None
message = (failure.get("message", "") + (failure.text or "")) if failure is not None else ""
ok_item = failure is not None and ("train_item.py:" + line) in message
ok_fixed = fixed is not None and fixed.find("failure") is None and fixed.find("error") is None and fixed.find("skipped") is None
print("    item test:", message.strip().splitlines()[:2], "| fixed twin passed:", ok_fixed)
sys.exit(0 if ok_item and ok_fixed else 1)
EOF
}
if "$py" -c "import pytest" 2>/dev/null; then
  check_marker plain
  check_marker under-run "$ss" run --no-report --force -o "$out/b-traces" --
else
  fail "b. pytest marker: pytest is not installed for $(python3 --version 2>&1) (the system's site-packages)"
fi

# ---- e. issue 25's marker semantics: set-up copies and one final read pass,
# the per-step twin fails as the test's own failure naming its line once;
# -x, -k and -p no:syncscope behave as without the plugin's judging
steady=$scripts/test_marker_steady.py
steady_line=$(grep -n '# the per-step read$' "$steady" | cut -d: -f1)
run_steady() {  # LABEL PYTEST-ARGS...
  local label=$1; shift
  (cd "$out" && timeout "$(limit 90)" "$py" -m pytest -q -p no:cacheprovider -rfE "$@" "$steady") >"$out/e-$label.txt" 2>&1
}
if "$py" -c "import pytest" 2>/dev/null; then
  run_steady all
  if grep -q "1 failed, 1 passed" "$out/e-all.txt" && grep -q "FAILED.*test_float_loss_every_step" "$out/e-all.txt" &&
    [[ $(grep -c "test_marker_steady.py:$steady_line" "$out/e-all.txt") -ge 1 ]] &&
    ! grep -q "PluggyTeardownRaisedWarning" "$out/e-all.txt"; then
    pass "e. marker: set-up and a final read pass, the per-step float(loss) fails naming test_marker_steady.py:$steady_line"
  else
    fail "e. marker: see e-all.txt"
  fi
  grep -E "test_marker_steady.py:$steady_line|per step|steady" "$out/e-all.txt" | head -6 | sed 's/^/    /'
  run_steady x -x
  grep -q "1 failed in\|stopping after 1 failures" "$out/e-x.txt" && ! grep -q "passed" "$out/e-x.txt" &&
    pass "e. -x stops at the first failure" || fail "e. -x: see e-x.txt"
  run_steady k -k final_read
  grep -q "1 passed, 1 deselected" "$out/e-k.txt" && pass "e. -k selects as before" || fail "e. -k: see e-k.txt"
  run_steady no-plugin -p no:syncscope
  grep -q "2 passed" "$out/e-no-plugin.txt" && pass "e. -p no:syncscope: nothing judged, both pass" ||
    fail "e. -p no:syncscope: see e-no-plugin.txt"
fi

# ---- c. watch() in a plain process
timeout "$(limit 90)" "$py" "$scripts/watch_plain.py" >"$out/c.json" 2>"$out/c.err"
"$py" - "$out/c.json" <<'EOF' || fail "c. watch() in a plain process (c.json, c.err)"
import json, sys
try:
    r = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
except (ValueError, IndexError):
    sys.exit(1)
line, bad = r["item_line"], 0
def check(name, ok, detail=""):
    global bad
    bad += not ok
    print("%s  c. %s  %s" % ("PASS" if ok else "FAIL", name, detail))
hits = [f for f in r["findings"] if f["category"] == "hidden-sync" and (f["file"] or "").endswith("train_item.py")
        and f["line"] == line]
# The line's calls may be split by phase (the first step's call is warm-up
# to the segmentation): 20 in all.
check("watch() in a plain process finds train_item.py:%d, 20 calls" % line, not r["mapped_before"] and
      bool(hits) and sum(f["count"] for f in hits) == 20, hits)
check("import slots put back", r["slots_restored"] > 0 and r["slots_left"] == 0 and r["second_slots_restored"] > 0,
      (r["slots_restored"], r["slots_left"], r["second_slots_restored"]))
recorder = lambda names: [n for n in names if n.startswith("syncscope")]
check("the recorder's thread ran during the watch", bool(recorder(r["threads_during"])), recorder(r["threads_during"]))
check("no thread of the recorder left after each watch; as many threads as before",
      not recorder(r["threads_after"]) and not recorder(r["threads_after_second"]) and
      len(r["threads_after"]) == len(r["threads_before"]) == len(r["threads_after_second"]),
      (len(r["threads_before"]), len(r["threads_after"]), len(r["threads_after_second"]), recorder(r["threads_after"])))
check("a second watch on the fixed twin: no sync at the line",
      not [f for f in r["clean_findings"] if f["category"] == "hidden-sync" and f["line"] == line], r["clean_findings"])
sys.exit(1 if bad else 0)
EOF
[[ -s $out/c.err ]] && tail -5 "$out/c.err"

# ---- d. what a watch costs the loop around which it is not
rounds=0
: >"$out/d.jsonl"
while ((rounds < 3 && SECONDS < budget_s - 40)); do  # interleaved: drift falls on both alike
  rounds=$((rounds + 1))
  for mode in plain watch; do
    timeout "$(limit 60)" "$py" "$scripts/watch_overhead.py" "$mode" 5 100 2>>"$out/d.err" | tail -1 >>"$out/d.jsonl"
  done
done
"$py" - "$out/d.jsonl" "$rounds" <<'EOF' || fail "d. watch() overhead (d.jsonl, d.err)"
import json, statistics, sys
rows = []
for text in open(sys.argv[1]):
    try:
        rows.append(json.loads(text))
    except ValueError:
        pass
by = {m: [r for r in rows if r["mode"] == m] for m in ("plain", "watch")}
if not by["plain"] or len(by["plain"]) != int(sys.argv[2]) or len(by["watch"]) != int(sys.argv[2]):
    print("FAIL  d. every process ran: %d plain, %d watch" % (len(by["plain"]), len(by["watch"])))
    sys.exit(1)
plain = statistics.median(r["median_step_us"] for r in by["plain"])
watched = statistics.median(r["median_step_us"] for r in by["watch"])
watch_ms = statistics.median(r["median_watch_ms"] for r in by["watch"])
print("    per process, median step (us): plain %s | after watches %s" % (
    [round(r["median_step_us"], 1) for r in by["plain"]], [round(r["median_step_us"], 1) for r in by["watch"]]))
print("    median step: plain %.1f us, with watch() around another part %.1f us (x%.3f); a watch itself %.1f ms"
      % (plain, watched, watched / plain, watch_ms))
seen = sum(r["outside_seen"] for r in by["watch"])
print("%s  d. nothing recorded outside the watched block (the loop's .item() line in %d watch(es))"
      % ("PASS" if seen == 0 else "FAIL", seen))
sys.exit(1 if seen else 0)
EOF
finish
