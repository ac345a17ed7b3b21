"""Small repositories with a known community structure, for the layer-2 tests."""

from __future__ import annotations

import json
import re
from pathlib import Path

from conftest import Repo


def clique(package: str, names: list[str], calls_out: dict[str, list[str]] | None = None) -> dict:
    """Files ``package/<name>.py`` that all import and call each other: one obvious community.

    ``calls_out`` adds calls from a file to functions elsewhere ("pkg.mod.func").
    """
    files = {}
    for name in names:
        others = [n for n in names if n != name]
        lines = [f"from {package}.{other} import {package}_{other}" for other in others]
        extra = (calls_out or {}).get(name, [])
        for target in extra:
            module, func = target.rsplit(".", 1)
            lines.append(f"from {module} import {func}")
        lines.append(f"def {package}_{name}():")
        lines += [f"    {package}_{other}()" for other in others]
        lines += [f"    {target.rsplit('.', 1)[1]}()" for target in extra]
        lines.append("    return 1")
        files[f"{package}/{name}.py"] = "\n".join(lines) + "\n"
    return files


def communities(repo: Repo) -> dict:
    return json.loads((repo.root / ".kg" / "communities.json").read_text())


def community_of(repo: Repo, path: str) -> str:
    return communities(repo)["files"][path]


def members(repo: Repo) -> dict[str, list[str]]:
    return {cid: c["members"] for cid, c in communities(repo)["communities"].items()}


def update(repo: Repo, *args: str) -> str:
    result = repo.kg("update", *args)
    assert result.code == 0, result.err
    return result.out


LINK = re.compile(r"\]\(([^)]+)\)")


def broken_links(kg: Path) -> list[str]:
    broken = []
    for page in [kg / "MAP.md", *sorted((kg / "communities").glob("*.md"))]:
        for target in LINK.findall(page.read_text()):
            if not (page.parent / target).resolve().is_file():
                broken.append(f"{page.name} -> {target}")
    return broken


def plugin_folder(names: list[str], with_tests: bool = True) -> dict:
    """A plugin-style package: ``app/plugins/<name>.py`` each subclassing ``NotifyBase``
    (defined in ``app/plugins/base.py`` on top of ``app/url.py``'s ``URLBase``), a core that
    loads them, and ``tests/test_<name>.py`` exercising one plugin each."""
    files = {
        "app/url.py": "class URLBase:\n    def quote(self, text):\n        return text\n",
        "app/plugins/__init__.py": "",
        "app/plugins/base.py": (
            "from app.url import URLBase\n\n"
            "class NotifyBase(URLBase):\n"
            "    def send(self, body):\n        return self.quote(body)\n"
        ),
        "app/core.py": (
            "from app.plugins.base import NotifyBase\n\n"
            "def notify_all(plugins, body):\n"
            "    return [NotifyBase.send(p, body) for p in plugins]\n"
        ),
    }
    for name in names:
        files[f"app/plugins/{name}.py"] = plugin_source(name)
        if with_tests:
            files[f"tests/test_{name}.py"] = (
                f"from app.plugins.{name} import Notify{name.title()}\n\n"
                f"def test_{name}():\n    assert Notify{name.title()}().send('x')\n"
            )
    return files


def plugin_source(name: str) -> str:
    return (
        "from app.plugins.base import NotifyBase\n\n"
        f"class Notify{name.title()}(NotifyBase):\n"
        "    def send(self, body):\n        return self.quote(body)\n"
    )
