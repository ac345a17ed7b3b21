"""The map page (``kgtool map --html``) on real repositories: its size, the time to write it,
and in headless Chromium the time to first render, to open the largest community and to
answer a search, with a screenshot of each page.

    python bench/map_page.py --out DIR REPO [REPO ...]    # each REPO mapped by kgtool update

Needs Playwright (the test extra) and a Chromium (``KGTOOL_CHROMIUM``, or ``chromium`` on
the PATH). Writes DIR/<repo>.html and DIR/<repo>-{overview,community}.png, and prints one
markdown table: medians of ``--runs`` loads, each in a fresh browser context (no cache).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--enable-precise-memory-info",  # performance.memory unrounded
]
VIEWPORT = {"width": 1280, "height": 820}

# The time from setting the address to the page's own hashchange listener having drawn the
# view: a listener added after the page's runs after it.
OPEN = """async (hash) => {
  const done = new Promise((resolve) => window.addEventListener("hashchange",
    () => resolve(performance.now()), { once: true }));
  const start = performance.now();
  location.hash = hash;
  return (await done) - start;
}"""
SEARCH = """(query) => {
  const box = document.getElementById("search");
  const start = performance.now();
  box.value = query;
  box.dispatchEvent(new Event("input"));
  return [performance.now() - start, document.querySelectorAll("#results li").length];
}"""


def write_page(repo: Path, out: Path) -> tuple[float, int]:
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "kgtool", "-C", str(repo), "map", "--html", "-q", "--out", str(out)],
        check=True,
    )
    return time.perf_counter() - start, out.stat().st_size


def measure(browser: Any, page_path: Path, shots: Path | None) -> dict[str, float]:
    context = browser.new_context(viewport=VIEWPORT)
    errors: list[str] = []
    page = context.new_page()
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(page_path.as_uri())
    page.wait_for_selector("body[data-ready]")
    # The first paint is recorded once a frame is drawn: wait for one.
    page.evaluate("new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)))")
    ready = page.evaluate("window.kgtoolReadyAt")
    paint = page.evaluate(
        "(performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime || 0"
    )
    heap = page.evaluate("performance.memory ? performance.memory.usedJSHeapSize : 0")
    data = json.loads(page.locator("#kg-data").text_content() or "{}")
    largest = max(data["communities"], key=lambda c: len(data["communities"][c]["files"]))
    if shots:
        page.screenshot(path=str(shots.with_name(shots.name + "-overview.png")))
    opened = page.evaluate(OPEN, f"community={largest}")
    if shots:
        page.screenshot(path=str(shots.with_name(shots.name + "-community.png")))
    query = sorted(data["paths"], key=lambda p: (-len(p), p))[0].rsplit("/", 1)[-1][:4]
    searched, hits = page.evaluate(SEARCH, query)
    context.close()
    if errors:
        raise SystemExit(f"{page_path}: errors on the console: {errors}")
    return {
        "ready": ready,
        "paint": paint,
        "heap": heap / 2**20,
        "open": opened,
        "largest": len(data["communities"][largest]["files"]),
        "search": searched,
        "hits": hits,
        "files": len(data["paths"]),
        "symbols": len(data["symbols"]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("repos", nargs="+", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    executable = os.environ.get("KGTOOL_CHROMIUM") or shutil.which("chromium")
    args.out.mkdir(parents=True, exist_ok=True)
    print(
        "| repository | files | symbols | page | write | first paint | drawn | JS heap "
        "| open largest (files) | search |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=executable, args=FLAGS)
        for repo in args.repos:
            name = repo.resolve().name
            page_path = args.out / f"{name}.html"
            writes, size = zip(*(write_page(repo, page_path) for _ in range(3)), strict=True)
            runs = [
                measure(browser, page_path, args.out / name if i == 0 else None)
                for i in range(args.runs)
            ]

            def median(key: str, runs: list[dict[str, float]] = runs) -> float:
                return statistics.median(run[key] for run in runs)

            print(
                f"| {name} | {runs[0]['files']:,} | {runs[0]['symbols']:,} "
                f"| {size[0] / 1024:,.0f} KB | {statistics.median(writes):.2f} s "
                f"| {median('paint'):.0f} ms | {median('ready'):.0f} ms "
                f"| {median('heap'):.1f} MB "
                f"| {median('open'):.0f} ms ({runs[0]['largest']:.0f}) "
                f"| {median('search'):.1f} ms ({runs[0]['hits']:.0f} shown) |"
            )
        browser.close()


if __name__ == "__main__":
    main()
