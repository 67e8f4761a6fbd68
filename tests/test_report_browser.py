"""report.html in a real browser (headless Chromium): the page renders, the
tables are in the DOM and every embedded image decodes. Skipped (saying why)
when Chromium is absent outside CI; under CI=true a missing Chromium fails."""

import os
import re
import shutil
import subprocess


def browser(exe: str, profile, *args: str) -> subprocess.CompletedProcess:
    cmd = [
        exe,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        f"--user-data-dir={profile}",
        "--window-size=1280,2000",
        "--virtual-time-budget=10000",
        *args,
    ]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def test_report_renders_in_chromium(require_tool, quick_campaign, tmp_path):
    exe = require_tool("chromium", "chromium-browser", "google-chrome", install="apt-get install chromium")
    out, _, algs = quick_campaign
    url = (out / "report.html").resolve().as_uri()
    dom = browser(exe, tmp_path / "p1", "--dump-dom", url).stdout
    m = re.search(r'data-images-ok="(\d+)/(\d+)"', dom)
    assert m, dom[:2000]
    ok, total = map(int, m.groups())
    assert total >= 3 and ok == total, m.group(0)
    assert dom.count("<table") >= 4
    assert "Under these conditions" in dom
    shot = tmp_path / "report.png"
    browser(exe, tmp_path / "p2", f"--screenshot={shot}", url)
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000
    keep = os.environ.get("CCBENCH_KEEP_SCREENSHOT")
    if keep:
        shutil.copy(shot, keep)
