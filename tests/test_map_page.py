"""``kgtool map``: MAP.md's picture on stdout, and ``--html``'s page, loaded in a real headless
Chromium with no network: the areas are drawn, a click and a search open the right
community, a change is coloured, nothing the repository names runs as script, and no error
reaches the console. Each browser test keeps a screenshot (in ``KGTOOL_TEST_ARTIFACTS``, or
beside the test's repository).

Chromium comes from the system's packages (`.ci/run` installs Debian's); the DevTools client
is Playwright's, driving that binary (it never downloads a browser). Without Chromium the
browser tests are skipped, unless ``KGTOOL_REQUIRE_BROWSER`` is set, as CI sets it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from communities_helpers import clique, communities, update
from conftest import Repo, assert_one_line_error
from test_communities_areas import PYPROJECT, linked_cliques
from test_map_diagram import assert_grammar

# A file whose path would end the data's <script> element and run its own, were it pasted in
# as markup: the page must show it as text.
HOSTILE = 'docs/a</script><img src=x onerror="window.pwned=1">.md'
# Line and paragraph separators: JSON, but the end of a line of script to older engines.
SEPARATORS = "docs/line\u2028and\u2029paragraph.md"
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_path() -> str | None:
    return os.environ.get("KGTOOL_CHROMIUM") or next(
        filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))), None
    )


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    executable = chromium_path()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        executable = None
    if executable is None:
        if os.environ.get("KGTOOL_REQUIRE_BROWSER"):
            pytest.fail("KGTOOL_REQUIRE_BROWSER is set but Chromium or Playwright is missing")
        pytest.skip("no Chromium (or Playwright) on this machine: `.ci/run` installs them")
    with sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=executable, args=CHROMIUM_FLAGS)
        yield launched
        launched.close()


class Page:
    """One page of the map open in the browser, with what it asked of the network and said
    on its console."""

    def __init__(self, browser: Any, path: Path, artifacts: Path) -> None:
        self.context = browser.new_context(viewport={"width": 1280, "height": 820})
        self.requests: list[str] = []
        self.errors: list[str] = []
        self.artifacts = artifacts

        def only_the_file(route: Any) -> None:
            url = route.request.url
            if url.startswith("file:"):
                route.continue_()
            else:
                self.requests.append(url)
                route.abort()

        self.context.route("**/*", only_the_file)
        self.page = self.context.new_page()
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda error: self.errors.append(f"pageerror: {error}"))
        self.page.goto(path.as_uri())
        self.page.wait_for_selector("body[data-ready]")

    def _console(self, message: Any) -> None:
        if message.type in ("error", "warning"):
            self.errors.append(f"{message.type}: {message.text}")

    def view(self) -> str:
        return str(self.page.evaluate("document.body.dataset.view"))

    def opened(self, view: str, hash_part: str = "") -> bool:
        """Waits for the page to draw ``view`` (a click sets the address; the page draws on
        its hashchange event, a moment later) at an address holding ``hash_part``."""
        self.page.wait_for_function(
            "([view, part]) => document.body.dataset.view === view && "
            "document.body.dataset.drawn === location.hash && location.hash.includes(part)",
            arg=[view, hash_part],
            timeout=5000,
        )
        return True

    def heading(self) -> str:
        return str(self.page.locator("#panel h2").inner_text())

    def screenshot(self, name: str) -> None:
        self.artifacts.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(self.artifacts / f"{name}.png"))

    def __enter__(self) -> Page:
        return self

    def __exit__(self, *exc: object) -> None:
        self.context.close()


def artifacts_dir(repo: Repo) -> Path:
    given = os.environ.get("KGTOOL_TEST_ARTIFACTS")
    return Path(given) if given else repo.root.parent / "screenshots"


def map_repo(make_repo: Callable[..., Repo]) -> Repo:
    """Four rings of four cliques (four areas, sixteen communities, typed edges between
    them), docs, a file named to break out of the page's script and one named with the
    separators that end a line of script."""
    files = linked_cliques(groups=4, per_group=4)
    files["README.md"] = "# Demo\n"
    files["docs/guide.md"] = "# Guide\n"
    files[HOSTILE] = "# Hostile\n"
    files[SEPARATORS] = "# Separators\n"
    for i in range(25):  # a community of many files, drawn folder by folder
        files[f"docs/guide/page{i}.md"] = f"# Page {i}\n"
        files[f"docs/api/page{i}.md"] = f"# API {i}\n"
    repo = make_repo(files)
    update(repo)
    return repo


def write_page(repo: Repo, *args: str) -> Path:
    out = repo.root.parent / "map.html"
    result = repo.kg("map", "--html", "--out", str(out), *args)
    assert result.code == 0, result.err
    assert result.out.startswith(f"wrote {out} (")
    return out


def page_json(path: Path) -> dict[str, Any]:
    text = path.read_text()
    found = re.search(r'<script type="application/json" id="kg-data">(.*?)</script>', text, re.S)
    assert found is not None
    return json.loads(found.group(1))


def test_the_page_is_one_file_the_same_bytes_every_time_and_nothing_ends_its_script(
    make_repo: Callable[..., Repo],
) -> None:
    repo = map_repo(make_repo)
    first = write_page(repo).read_bytes()
    assert write_page(repo).read_bytes() == first
    text = first.decode()
    # Self-contained: no address to load anything from, and a policy that forbids it.
    assert not re.search(r'\b(?:src|href)="(?:https?:)?//', text)
    assert "default-src 'none'" in text
    # The hostile path is in the data, escaped: one </script> for each element, no more.
    assert text.count("</script>") == 2
    data = page_json(repo.root.parent / "map.html")
    assert HOSTILE in data["paths"]
    assert f"<title>{repo.root.name} · code map</title>" in text  # the checkout's folder
    # The separators are written escaped, and read back as the name they are part of.
    assert "\u2028" not in text and "\u2029" not in text
    assert SEPARATORS in data["paths"]
    document = communities(repo)
    assert sorted(data["paths"]) == sorted(document["files"])
    assert {a["id"] for a in data["areas"]} == {*document["areas"], "data"}
    # Largest first, in each box: the treemap lays out the biggest where it has most room.
    for box in data["areas"]:
        sizes = [len(data["communities"][cid]["files"]) for cid in box["communities"]]
        assert sizes == sorted(sizes, reverse=True), box
    assert box["id"] == "data" and len(sizes) > 1 and sizes[0] > sizes[-1]
    # Every community carries what the panel shows, named as the page's script reads it.
    fields = {"name", "mark", "why", "summary", "files", "main"}
    assert all(set(c) == fields for c in data["communities"].values())
    # Fixed bytes: the data's keys are written sorted, at every level.
    embedded = re.search(r'id="kg-data">(.*?)</script>', text, re.S)
    assert embedded is not None and embedded.group(1).startswith('{"areas":[{"communities":[')


def test_the_picture_on_stdout_is_the_one_that_opens_map_md(
    make_repo: Callable[..., Repo],
) -> None:
    repo = map_repo(make_repo)
    result = repo.kg("map")
    assert result.code == 0, result.err
    block = result.out.splitlines()
    assert_grammar(block)
    assert result.out in (repo.root / ".kg" / "MAP.md").read_text()
    assert_one_line_error(repo.kg("map", "--diff", "HEAD"), says="--html")
    (repo.root / ".kg" / "communities.json").unlink()
    assert_one_line_error(repo.kg("map", "--html"), says="kgtool update")


def test_in_a_browser_the_areas_open_into_communities_and_communities_into_files(
    make_repo: Callable[..., Repo], browser: Any
) -> None:
    repo = map_repo(make_repo)
    document = communities(repo)
    with Page(browser, write_page(repo), artifacts_dir(repo)) as page:
        assert page.view() == "overview"
        drawn = page.page.locator("svg g[data-area]")
        assert drawn.count() == len(document["areas"]) + 1  # and the docs and data
        assert page.page.locator("svg g[data-id]").count() == len(document["communities"])
        page.screenshot("overview")

        # Hovering a community names it and draws its strongest dependencies.
        cid = max(
            (c for c in document["communities"] if document["communities"][c]["kind"] == "code"),
            key=lambda c: sum(1 for e in document["edges"] if c in (e["src"], e["dst"])),
        )
        page.page.hover(f'svg g[data-id="{cid}"] rect')
        assert page.page.locator("#tip").is_visible()
        assert page.page.locator("#tip b").inner_text().startswith(f"{cid} · ")
        assert page.page.locator("svg line.arrow").count() >= 1
        assert re.search(
            r"(calls|imports) ×\d+", page.page.locator("svg text.arrow").first.text_content() or ""
        )

        # A click on an area opens its communities; one on a community, its files.
        area = document["communities"][cid]["area"]
        page.page.click(f'svg g[data-area="{area}"] rect.headband')
        assert page.opened("area", f"area={area}")
        shown = page.page.locator("svg g[data-id]")
        assert sorted(
            shown.nth(i).get_attribute("data-id") for i in range(shown.count())
        ) == sorted(document["areas"][area]["communities"])
        page.page.click(f'svg g[data-id="{cid}"] rect')
        assert page.opened("community", f"community={cid}")
        assert page.heading().startswith(f"{cid} · ")
        files = page.page.locator("svg g[data-file]")
        assert files.count() == document["communities"][cid]["size"]
        page.screenshot("community")

        # A community of many files shows them folder by folder, every file drawn.
        docs = document["files"]["docs/api/page0.md"]
        page.page.goto(f"{page.page.url.split('#')[0]}#community={docs}")
        assert page.opened("community", f"community={docs}")
        folders = page.page.locator("svg g[data-folder]")
        drawn = sorted(folders.nth(i).get_attribute("data-folder") for i in range(folders.count()))
        members = document["communities"][docs]["members"]
        assert drawn == sorted({path.rpartition("/")[0] for path in members})
        assert len(drawn) >= 3
        assert (
            page.page.locator("svg g[data-file]").count() == document["communities"][docs]["size"]
        )

        # The way back is the breadcrumb.
        page.page.click("#crumbs a >> text=map")
        assert page.opened("overview")
        assert page.errors == [] and page.requests == []
        assert page.page.evaluate("window.pwned") is None


def test_in_a_browser_a_search_finds_a_symbol_and_shows_where_it_lives(
    make_repo: Callable[..., Repo], browser: Any
) -> None:
    repo = map_repo(make_repo)
    document = communities(repo)
    with Page(browser, write_page(repo), artifacts_dir(repo)) as page:
        page.page.fill("#search", "g1m2_f3")
        first = page.page.locator("#results li").first
        assert first.inner_text().startswith("g1m2_f3")
        page.page.keyboard.press("Enter")
        cid = document["files"]["g1m2/f3.py"]
        assert page.opened("community", f"community={cid}&file=")
        assert page.heading().startswith(f"{cid} · ")
        assert page.page.locator("#file code").first.inner_text() == "g1m2/f3.py"
        assert page.page.locator("svg g.selected[data-file]").count() == 1
        page.screenshot("search")

        # The hostile file is found by its name, and shown as the text it is.
        page.page.fill("#search", "onerror")
        assert page.page.locator("#results li").first.inner_text().startswith(HOSTILE)
        page.page.keyboard.press("Enter")
        assert page.opened("community", f"community={document['files'][HOSTILE]}&file=")
        assert page.page.locator("#file code").first.inner_text() == HOSTILE
        assert page.page.evaluate("window.pwned") is None
        assert page.errors == [] and page.requests == []


def test_in_a_browser_a_change_is_coloured_with_its_communities(
    make_repo: Callable[..., Repo], browser: Any
) -> None:
    repo = map_repo(make_repo)
    base = repo.git("rev-parse", "HEAD").strip()
    path = "g2m0/f1.py"
    repo.write(path, (repo.root / path).read_text() + "\n# touched\n")
    repo.commit("touch one file")
    update(repo)
    document = communities(repo)
    cid = document["files"][path]
    with Page(browser, write_page(repo, "--diff", base), artifacts_dir(repo)) as page:
        hit = page.page.locator("svg g.hit[data-id]")
        assert [hit.nth(i).get_attribute("data-id") for i in range(hit.count())] == [cid]
        assert page.page.locator("svg g.faded[data-id]").count() == len(document["communities"]) - 1
        assert "1 file touched in 1 community" in page.page.locator("#panel").inner_text()
        page.screenshot("diff")
        page.page.click(f'svg g[data-id="{cid}"] rect')
        assert page.opened("community", f"community={cid}")
        touched = page.page.locator("svg g.hit[data-file]")
        assert touched.count() == 1
        assert page.errors == [] and page.requests == []


def test_a_diff_names_renames_deletions_and_leaves_out_names_that_are_not_utf8(
    make_repo: Callable[..., Repo],
) -> None:
    repo = map_repo(make_repo)
    base = repo.git("rev-parse", "HEAD").strip()
    repo.git("mv", "g0m0/f3.py", "g0m0/f4.py")
    repo.git("rm", "-q", "docs/guide.md")
    os.close(os.open(os.path.join(os.fsencode(repo.root), b"caf\xe9.txt"), os.O_CREAT))
    repo.commit("rename, delete, and a name git hands over as bytes")
    update(repo)
    data = page_json(write_page(repo, "--diff", base))
    changed = {data["paths"][int(index)]: word for index, word in data["diff"]["files"].items()}
    assert changed == {"g0m0/f4.py": "renamed"}
    assert data["diff"]["gone"] == ["docs/guide.md"]  # the rename's old path is not deleted
    assert data["diff"]["outside"] == []  # the undecodable name is not on the page at all


def test_the_page_names_each_area_and_its_package_as_map_md_does(
    make_repo: Callable[..., Repo],
) -> None:
    """A workspace of three packages and a loose tool: each area's box has the name MAP.md
    gives it and the package it is, then the docs and data."""
    files: dict[str, str] = {}
    for name in ("alpha", "beta", "gamma"):
        files[f"{name}/pyproject.toml"] = PYPROJECT.format(name=name)
        files.update(clique(name, ["a", "b", "c"], {"a": ["beta.a.beta_a"]}))
    files.update(clique("tools", ["x", "y"]))
    files["docs/guide.md"] = "# Guide\n"
    repo = make_repo(files)
    update(repo)
    document = communities(repo)
    data = page_json(write_page(repo))
    text = (repo.root / ".kg" / "MAP.md").read_text()
    *areas, docs = data["areas"]
    assert sorted(box["id"] for box in areas) == sorted(document["areas"])
    for box in areas:
        assert f"**{box['id']} · {box['name']}**" in text, box
        assert box["package"] == document["areas"][box["id"]]["package"]
    assert sorted(box["package"] for box in areas) == ["", "alpha", "beta", "gamma"]
    assert (docs["id"], docs["name"]) == ("data", "docs and data")


def two_cliques(make_repo: Callable[..., Repo]) -> Repo:
    """Two communities, alpha's three files calling beta's four; beta/b2.py, not first by
    name, is the longest file."""
    files = {**clique("alpha", ["a0", "a1", "a2"], {"a0": ["beta.b0.beta_b0"]})}
    files.update(clique("beta", ["b0", "b1", "b2", "b3"]))
    files["beta/b2.py"] += "".join(f"\n\nVALUE_{n} = {n}\n" for n in range(5))
    repo = make_repo(files)
    update(repo)
    return repo


def test_two_communities_draw_their_edge_and_a_file_deleted_since_the_map_is_only_gone(
    make_repo: Callable[..., Repo],
) -> None:
    """A map of two communities draws the edge between them (it names every community there
    is), and each community's files largest first. A file deleted in the working tree but
    still in .kg/ is said gone, not modified."""
    repo = two_cliques(make_repo)
    document = communities(repo)
    alpha, beta = document["files"]["alpha/a0.py"], document["files"]["beta/b0.py"]
    assert sorted(document["communities"]) == sorted([alpha, beta])
    data = page_json(write_page(repo))
    assert [edge[:2] for edge in data["edges"]] == [[alpha, beta]]
    files = [data["paths"][i] for i in data["communities"][beta]["files"]]
    assert files[0] == "beta/b2.py"
    lines = [data["lines"][i] for i in data["communities"][beta]["files"]]
    assert lines == sorted(lines, reverse=True) and lines[0] > lines[1]
    repo.git("rm", "-q", "beta/b2.py")  # .kg/ not updated: the map still holds it
    data = page_json(write_page(repo, "--diff", "HEAD"))
    assert "beta/b2.py" in data["paths"]
    assert data["diff"]["gone"] == ["beta/b2.py"] and data["diff"]["files"] == {}


def test_a_layer_2_from_before_areas_and_kinds_draws_its_code_in_one_box(
    make_repo: Callable[..., Repo],
) -> None:
    """Layer 2 of format 2 has no areas, and its communities no kind: they are code, as
    MAP.md reads them, and the page opens on all of them in one box, largest first."""
    repo = two_cliques(make_repo)
    path = repo.root / ".kg" / "communities.json"
    document = json.loads(path.read_text())
    document["format"] = 2
    for key in ("areas", "next_area_id", "retired_areas"):
        del document[key]
    for community in document["communities"].values():
        del community["area"], community["kind"]
    path.write_text(json.dumps(document))
    alpha, beta = document["files"]["alpha/a0.py"], document["files"]["beta/b0.py"]
    data = page_json(write_page(repo))
    assert data["areas"] == [
        {"id": "all", "name": "code", "package": "", "communities": [beta, alpha]}
    ]


def test_a_damaged_layer_1_is_a_one_line_error_not_a_page_of_empty_files(
    make_repo: Callable[..., Repo],
) -> None:
    """Layer 1 holds the files' lines and symbols: a page drawn without them would show every
    file empty. A record that cannot be read, or a shard cut short, is said as the other
    read commands say it, and no page is written."""
    repo = make_repo(clique("pkg", ["a", "b", "c"]))
    update(repo)
    shard = repo.root / ".kg" / "raw" / "pkg.jsonl"
    good = shard.read_bytes()
    lines = good.split(b"\n")
    file_node = next(i for i, line in enumerate(lines) if b'"id":"pkg/a.py","kind":"file"' in line)
    lines[file_node] = lines[file_node][:-1]  # its closing brace gone: not JSON
    out = repo.root.parent / "map.html"
    for damaged in (b"\n".join(lines), good[:-1]):
        shard.write_bytes(damaged)
        result = repo.kg("map", "--html", "--out", str(out))
        assert_one_line_error(result, says="is damaged or has a format this kgtool does not know")
        assert result.err == repo.kg("impact", "pkg/a.py").err
        assert not out.exists()


def test_in_a_browser_a_hand_edited_map_file_cannot_break_the_page(
    make_repo: Callable[..., Repo], browser: Any
) -> None:
    """``.kg/communities.json`` is whatever a pull request commits: an edge to a community it
    does not hold is left out (the others drawn), sizes that say nothing true draw what the
    members say, and a code community no area holds is drawn in a box of its own."""
    repo = map_repo(make_repo)
    path = repo.root / ".kg" / "communities.json"
    document = json.loads(path.read_text())
    first, second = sorted(document["communities"], key=lambda c: int(c[1:]))[:2]
    drawn = len(document["edges"])
    document["edges"].insert(
        0, {"src": first, "dst": "c999", "total": 5, "types": {"calls": {"EXTRACTED": 5}}}
    )
    document["communities"][first]["size"] = 0
    document["communities"][second]["size"] = -(10**30)
    left_out = document["areas"]["A1"]["communities"].pop()
    path.write_text(json.dumps(document))
    data = page_json(write_page(repo))
    assert all("c999" not in edge[:2] for edge in data["edges"])
    assert len(data["edges"]) == drawn
    boxes = {box["id"]: (box["name"], box["communities"]) for box in data["areas"]}
    assert boxes["all"] == ("other code", [left_out])
    sizes = {cid: len(c["files"]) for cid, c in data["communities"].items()}
    assert sizes[first] == len(document["communities"][first]["members"]) > 0
    with Page(browser, repo.root.parent / "map.html", artifacts_dir(repo)) as page:
        page.page.hover(f'svg g[data-id="{first}"] rect')
        page.page.click(f'svg g[data-id="{first}"] rect')
        assert page.opened("community", f"community={first}")
        assert page.page.locator("svg g[data-file]").count() == sizes[first]
        page.page.click("#crumbs a >> text=map")
        assert page.opened("overview")
        assert page.page.locator(f'svg g[data-id="{second}"]').count() == 1
        assert page.errors == [] and page.requests == []
