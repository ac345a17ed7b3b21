"""Bases no import binds: found by name across the repository (INFERRED, or AMBIGUOUS when
several classes share the name), and Rust impl blocks for types kgtool cannot bind."""

from __future__ import annotations

from conftest import Repo
from test_lang_rust import FILES as RUST_FILES


def test_a_base_no_import_binds_is_found_by_its_name(repo: Repo) -> None:
    repo.build(
        {
            "a.py": "class Base:\n    pass\n",
            "b.py": "class Child(Base):\n    pass\n\n\nclass Other(Twice):\n    pass\n",
            "c.py": "class Twice:\n    pass\n",
            "d.py": "class Twice:\n    pass\n",
        }
    )
    assert repo.edge_rows("inherits") == [
        ("b.py::Child", "a.py::Base", "INFERRED", 1),
        ("b.py::Other", ("c.py::Twice", "d.py::Twice"), "AMBIGUOUS", 5),
    ]
    # docs/layer1-raw-graph.md: 0.95 for the only top-level definition of the name.
    assert {e["src"]: e["confidence"] for e in repo.edges("inherits")} == {
        "b.py::Child": 0.95,
        "b.py::Other": 0.0,
    }


def test_an_impl_for_an_unknown_type_does_not_hide_the_other_impls(repo: Repo) -> None:
    # Unknown types on both sides of the known one, whatever order the impls are read in.
    extra = (
        "use crate::config::{Config, Named};\n\n"
        "pub trait Loud {}\n\n"
        "impl Loud for Absent {}\n\n"  # no such type anywhere: no edge
        "impl Loud for Config {}\n\n"  # a type of config.rs, brought in by use
        "impl Loud for Zombie {}\n"
    )
    repo.build({**RUST_FILES, "src/extra.rs": extra})
    assert repo.edge_rows("inherits") == [
        ("src/config.rs::Config", "src/config.rs::Named", "EXTRACTED", 18),
        ("src/config.rs::Config", "src/extra.rs::Loud", "EXTRACTED", 7),
        ("src/net/client.rs::Plain", "src/config.rs::Named", "EXTRACTED", 22),
    ]
