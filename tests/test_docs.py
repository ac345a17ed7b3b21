"""The documentation: README.md short, docs/ a site that builds in strict mode, and no snippet
left with a placeholder nobody says how to fill."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from conftest import PROJECT_ROOT

PAGES = [PROJECT_ROOT / "README.md", *sorted((PROJECT_ROOT / "docs").glob("*.md"))]


def test_readme_is_the_front_door() -> None:
    readme = (PROJECT_ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 250
    # The two set-up commands and the test command .ci/run runs.
    assert "pip install -e '.[test]' && pre-commit install" in readme
    ci = (PROJECT_ROOT / ".ci" / "run").read_text()
    assert "python -m pytest --cov=kgtool" in readme and "python -m pytest --cov=kgtool" in ci


def test_the_docs_build_in_strict_mode(tmp_path: Path) -> None:
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path)],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
    )
    assert built.returncode == 0, built.stderr
    assert (tmp_path / "miner" / "index.html").is_file()


def test_the_strict_build_fails_on_a_broken_link(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("# Home\n\nSee [the miner](miner.md#no-such-part).\n")
    (docs / "miner.md").write_text("# The miner\n")
    config = (PROJECT_ROOT / "mkdocs.yml").read_text()
    nav = re.sub(r"(?ms)^nav:\n(  - .*\n)+", "nav:\n  - index.md\n  - miner.md\n", config)
    (tmp_path / "mkdocs.yml").write_text(nav)
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "s")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert built.returncode != 0 and "no-such-part" in built.stderr


def test_no_snippet_keeps_a_placeholder() -> None:
    # The forms earlier READMEs left: <owner>/kgtool@<tag or commit>, <URL of kgtool's ...>.
    placeholder = re.compile(r"<(owner|URL of|tag or commit|ref|OWNER|your[- ][^>]*)\b[^>]*>")
    found = [
        f"{page.name}:{number}"
        for page in PAGES
        for number, line in enumerate(page.read_text().splitlines(), 1)
        if placeholder.search(line)
    ]
    assert found == []
    # OWNER stands for where kgtool's repository is hosted: each page using it says so.
    for page in PAGES:
        text = page.read_text()
        if "OWNER/kgtool" in text:
            assert re.search(r"OWNER\W[^\n]*(host|account|organi[sz]ation)", text), page.name
