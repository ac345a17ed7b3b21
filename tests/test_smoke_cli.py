from __future__ import annotations

from conftest import Repo


def test_update_builds_raw_graph_then_reports_nothing_to_do(repo: Repo) -> None:
    repo.write_files({"app.py": "def main():\n    helper()\n\ndef helper():\n    pass\n"})
    repo.commit()
    first = repo.kg("update")
    assert first.code == 0, first.err
    assert "wrote .kg/raw/" in first.out
    edges = repo.edges("calls")
    assert [(e["src"], e["dst"], e["tier"]) for e in edges] == [
        ("app.py::main", "app.py::helper", "EXTRACTED")
    ]
    before = (repo.root / ".kg" / "raw" / "_root.jsonl").stat().st_mtime_ns
    second = repo.kg("update")
    assert second.code == 0
    assert "nothing written" in second.out
    assert (repo.root / ".kg" / "raw" / "_root.jsonl").stat().st_mtime_ns == before


def test_quiet_update_prints_only_problems_even_when_it_writes(repo: Repo) -> None:
    repo.write_files({"app.py": "def main():\n    pass\n"})
    repo.write("logo.png", b"\x89PNG\r\n\x1a\n\x00\x00")  # skipped (binary): not a problem
    repo.commit()
    wrote = repo.kg("update", "--quiet")
    assert wrote.code == 0, wrote.err
    assert (repo.root / ".kg" / "raw").is_dir()
    assert wrote.out == ""
    repo.write("broken.py", "def main(:\n    pass\n")
    repo.commit("broken")
    broken = repo.kg("update", "--quiet", "--exit-code")
    assert broken.code == 1
    assert broken.out.splitlines() == [
        "broken.py:1: warning: R103 partially parsed: syntax errors at line 1",
        "kgtool rewrote .kg/: review it and add it to your commit (git add .kg)",
    ]
