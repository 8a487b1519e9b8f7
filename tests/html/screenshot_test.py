#!/usr/bin/env python3
"""The HTML report (--format html) as a browser shows it.

Records examples/python/ctypes_sync_loop.py against the fake CUDA runtime and
its fake CUPTI (a GPU timeline), writes the HTML report and the JSON findings,
then has headless Chromium take a screenshot and dump the rendered DOM:

  * the PNG exists, has the window's size, and is a picture rather than a
    blank page: many colours, the per-step bars' colours among them;
  * the DOM holds every steady finding's Python line (file:line and its
    source text) and category, and no script.

Standard library only: the PNG is decoded with zlib and struct. Run by ctest
(tests/html/CMakeLists.txt); a missing Chromium is a failure, never a skip.
"""
import argparse
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import zlib

WIDTH, HEIGHT = 1280, 2000
# The per-step bars' colours (report/html_report.cpp): GPU busy, then idle in
# a sync, a pageable copy, a free, launching, another call, no call.
BAR_COLOURS = [(0x2E, 0x7D, 0x32), (0xC6, 0x28, 0x28), (0xEF, 0x6C, 0x00), (0x8E, 0x24, 0xAA), (0x15, 0x65, 0xC0),
               (0x6D, 0x4C, 0x41), (0xBD, 0xBD, 0xBD)]
# The chart is about 920 x 110 pixels: how it splits depends on the fake
# runtime's timing, but together its colours must cover half of it (counted
# in pixels sampled every other one both ways, a quarter of them).
BAR_PIXELS = 920 * 110 // 4 // 2


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def run(argv, env=None, timeout=180):
    started = time.monotonic()
    result = subprocess.run(argv, env=env, capture_output=True, timeout=timeout)
    return result, time.monotonic() - started


def chromium_flags(profile):
    # --headless is the new headless mode in current Chromium; root in a
    # container needs --no-sandbox; the profile stays out of $HOME.
    return ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars",
            "--no-first-run", "--no-default-browser-check", f"--user-data-dir={profile}"]


def png_pixels(path):
    """(width, height, rows of RGB(A) bytes) of an 8-bit RGB or RGBA PNG."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail(f"{path} is not a PNG")
    pos, idat, header = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace != 0:
        fail(f"unexpected PNG layout: depth {depth}, colour type {colour}, interlace {interlace}")
    bpp = 3 if colour == 2 else 4
    raw = zlib.decompress(b"".join(idat))
    stride = width * bpp
    rows, previous = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        if kind == 1:  # Sub
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 0xFF
        elif kind == 2:  # Up
            line = bytearray((a + b) & 0xFF for a, b in zip(line, previous))
        elif kind == 3:  # Average
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + previous[i]) >> 1)) & 0xFF
        elif kind == 4:  # Paeth
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b, c = previous[i], previous[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        elif kind != 0:
            fail(f"bad PNG filter {kind} in row {y}")
        rows.append(line)
        previous = line
    return width, height, bpp, rows


def check_screenshot(path):
    if not os.path.exists(path):
        fail(f"no screenshot at {path}")
    size = os.path.getsize(path)
    if size < 20000:
        fail(f"screenshot is only {size} bytes: a blank page?")
    width, height, bpp, rows = png_pixels(path)
    if (width, height) != (WIDTH, HEIGHT):
        fail(f"screenshot is {width}x{height}, not {WIDTH}x{HEIGHT}")
    colours, inked = {}, 0
    for y in range(0, height, 2):
        row = rows[y]
        for x in range(0, width, 2):
            pixel = tuple(row[x * bpp:x * bpp + 3])
            colours[pixel] = colours.get(pixel, 0) + 1
            inked += pixel != (255, 255, 255)
    sampled = sum(colours.values())
    if len(colours) < 16:
        fail(f"only {len(colours)} colours in the screenshot")
    if inked < sampled * 0.02:
        fail(f"only {inked} of {sampled} sampled pixels are not white")
    def near(want):
        return sum(n for c, n in colours.items() if all(abs(c[k] - want[k]) <= 4 for k in range(3)))
    bars = sum(near(want) for want in BAR_COLOURS)
    if bars < BAR_PIXELS:
        fail(f"the per-step bars' colours cover {bars} sampled pixels, fewer than {BAR_PIXELS}: no chart?")
    if near(BAR_COLOURS[0]) < 20:
        fail("the 'GPU busy' colour is absent: no legend?")
    print(f"bars' colours: {bars} sampled pixels")
    print(f"screenshot: {size} bytes, {width}x{height}, {len(colours)} colours, "
          f"{100 * inked / sampled:.1f}% of sampled pixels inked")


def dom_text(text):
    # How the serialised DOM writes a text node.
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\u00a0", "&nbsp;")


def check_dom(dom, findings):
    if "<script" in dom:
        fail("the page holds a script")
    steady = [f for p in findings["processes"] for f in p["findings"]
              if f["phase"] == "steady" and f["suppressed"] is None]
    if not steady:
        fail("the recording gave no steady finding to look for")
    for f in steady:
        user = f["user_frame"]
        if not user or user["language"] != "python":
            fail(f"finding without a Python line: {json.dumps(f)[:400]}")
        line = f"{os.path.basename(user['file'])}:{user['line']}"
        for want in (line, user["source"], f["category"], f["hint"][:60]):
            if want and dom_text(want) not in dom:
                fail(f"the rendered page lacks {want!r}")
        print(f"DOM: {f['category']} at {line}: {user['source']}")


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--syncscope", required=True)
    parser.add_argument("--fakecuda-dir", required=True)
    parser.add_argument("--example", required=True, help="examples/python/ctypes_sync_loop.py")
    parser.add_argument("--chromium", default="chromium")
    parser.add_argument("--work", help="directory for the outputs (default: a temporary one)")
    args = parser.parse_args()
    chromium = shutil.which(args.chromium)
    if chromium is None:
        fail(f"{args.chromium} not found: install Debian's chromium (scripts/install-deps.sh does)")
    work = args.work or tempfile.mkdtemp(prefix="syncscope-html-")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    html, findings = os.path.join(work, "report.html"), os.path.join(work, "findings.json")
    env = dict(os.environ, LD_LIBRARY_PATH=args.fakecuda_dir, SYNCSCOPE_GPU_TIMELINE="1", SYNCSCOPE_GPU_TIMELINE_SAMPLING="full")
    result, took = run([args.syncscope, "run", "--no-report", "-o", os.path.join(work, "t"),
                        "--format", f"html={html}", "--format", f"json={findings}", "--",
                        sys.executable, args.example, "40"], env=env)
    if result.returncode != 0:
        fail(f"syncscope run failed ({result.returncode}): {result.stderr.decode(errors='replace')}")
    print(f"recorded and reported in {took:.1f} s")
    url = "file://" + os.path.abspath(html)
    png = os.path.join(work, "report.png")
    profile = os.path.join(work, "profile")
    result, took = run([chromium, *chromium_flags(profile), f"--screenshot={png}",
                        f"--window-size={WIDTH},{HEIGHT}", url])
    if result.returncode != 0:
        fail(f"chromium --screenshot failed ({result.returncode}): {result.stderr.decode(errors='replace')[-2000:]}")
    print(f"screenshot taken in {took:.1f} s")
    check_screenshot(png)
    result, took = run([chromium, *chromium_flags(profile), "--dump-dom", url])
    if result.returncode != 0:
        fail(f"chromium --dump-dom failed ({result.returncode}): {result.stderr.decode(errors='replace')[-2000:]}")
    print(f"DOM dumped in {took:.1f} s")
    with open(findings) as f:
        check_dom(result.stdout.decode("utf-8", errors="replace"), json.load(f))
    print("PASS")


if __name__ == "__main__":
    main()
