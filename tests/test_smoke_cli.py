from __future__ import annotations

from conftest import Repo


def test_update_builds_raw_graph_then_reports_nothing_to_do(repo: Repo) -> None:
    repo.write_files({"app.py": "def main():\n    helper()\n\ndef helper():\n    pass\n"})
    repo.commit()
    first = repo.kg("update")
    assert first.code == 0, first.err
    assert "wrote .kg/raw.jsonl" in first.out
    edges = repo.edges("calls")
    assert [(e["src"], e["dst"], e["tier"]) for e in edges] == [
        ("app.py::main", "app.py::helper", "EXTRACTED")
    ]
    before = (repo.root / ".kg" / "raw.jsonl").stat().st_mtime_ns
    second = repo.kg("update")
    assert second.code == 0
    assert "nothing written" in second.out
    assert (repo.root / ".kg" / "raw.jsonl").stat().st_mtime_ns == before
