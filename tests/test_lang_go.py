"""Go in layer 1: packages across files, receivers, go.mod import paths, exact edges."""

from __future__ import annotations

from conftest import Repo

MAIN = """\
package main

import (
	"fmt"

	db "example.com/app/internal/database"
	"example.com/app/store"
	. "example.com/app/util"
	_ "embed"
)

func main() {
	s := store.New()
	srv := &Server{}
	srv.Start()
	fmt.Println(s)
	db.Open()
	store.Open()
	helper()
	Clamp(3)
	f := pick()
	f()
	len("x")
}
"""

SERVER = """\
package main

type Base struct{}

func (b *Base) Close() {}

type Server struct {
	Base
	name string
}

func (s *Server) Start() {
	s.helper()
	s.Close()
	s.name.Trim()
}
"""

HELPERS = """\
package main

func (s *Server) helper() {}

func helper() {}

func pick() func() { return nil }
"""

STORE = """\
package store

type Store struct{}

func New() *Store { return &Store{} }

func Open() {}

func (st *Store) Get() { st.check() }

func (st *Store) check() {}
"""

STORE_TEST = """\
package store_test

import "example.com/app/store"

func TestOpen() { store.Open() }
"""

STORE_INTERNAL_TEST = """\
package store

func TestNew() { New() }
"""

DATABASE = """\
package database

func Open() {}
"""

UTIL = """\
package util

func Clamp(n int) int { return n }
"""

TOOL = """\
package main

import (
	"example.com/app/store"
	"example.com/tools/gen"
)

func main() {
	store.Open()
	gen.Run()
}
"""

GEN = """\
package gen

func Run() {}
"""

FILES = {
    "go.mod": "module example.com/app\n\ngo 1.22\n",
    "main.go": MAIN,
    "server.go": SERVER,
    "helpers.go": HELPERS,
    "store/store.go": STORE,
    "store/store_test.go": STORE_TEST,
    "store/internal_test.go": STORE_INTERNAL_TEST,
    "internal/database/db.go": DATABASE,
    "util/util.go": UTIL,
    "tools/go.mod": "module example.com/tools\n\ngo 1.22\n",
    "tools/cmd/main.go": TOOL,
    "tools/gen/gen.go": GEN,
    "broken.go": "package main\n\nfunc ok() {}\n\nfunc broken( {\n",
}


def test_go_symbols_and_containment(repo: Repo) -> None:
    nodes = repo.build(FILES).nodes()
    symbols = {i: n["kind"] for i, n in nodes.items() if n["kind"] not in ("file", "package")}
    assert symbols == {
        "main.go::main": "function",
        "server.go::Base": "struct",
        "server.go::Base.Close": "method",
        "server.go::Server": "struct",
        "server.go::Server.Start": "method",
        "helpers.go::Server.helper": "method",
        "helpers.go::helper": "function",
        "helpers.go::pick": "function",
        "store/store.go::Store": "struct",
        "store/store.go::New": "function",
        "store/store.go::Open": "function",
        "store/store.go::Store.Get": "method",
        "store/store.go::Store.check": "method",
        "store/store_test.go::TestOpen": "function",
        "store/internal_test.go::TestNew": "function",
        "internal/database/db.go::Open": "function",
        "util/util.go::Clamp": "function",
        "tools/cmd/main.go::main": "function",
        "tools/gen/gen.go::Run": "function",
        "broken.go::ok": "function",
    }
    assert nodes["go.mod"]["lang"] == "gomod"
    assert nodes["broken.go"]["status"] == "partial"
    assert nodes["main.go"]["status"] == "ok"
    contains = {(s, d) for s, d, _, _ in repo.edge_rows("contains")}
    # A method declared in another file than its type hangs off the file it is written in.
    assert ("helpers.go", "helpers.go::Server.helper") in contains
    assert ("server.go::Server", "server.go::Server.Start") in contains
    assert all(tier == "EXTRACTED" for _, _, tier, _ in repo.edge_rows("contains"))


def test_go_imports_resolve_through_go_mod(repo: Repo) -> None:
    repo.build(FILES)
    assert repo.edge_rows("imports") == [
        ("main.go", "ext:go:embed", "EXTRACTED", 9),
        ("main.go", "ext:go:fmt", "EXTRACTED", 4),
        ("main.go", "internal/database/db.go", "EXTRACTED", 6),
        ("main.go", "store/store.go", "EXTRACTED", 7),
        ("main.go", "util/util.go", "EXTRACTED", 8),
        ("store/store_test.go", "store/store.go", "EXTRACTED", 3),
        # A second go.mod: each module path maps to its own folder.
        ("tools/cmd/main.go", "store/store.go", "EXTRACTED", 4),
        ("tools/cmd/main.go", "tools/gen/gen.go", "EXTRACTED", 5),
    ]
    nodes = repo.nodes()
    assert nodes["ext:go:fmt"]["external"] is True


def test_go_calls_exact(repo: Repo) -> None:
    repo.build(FILES)
    assert repo.edge_rows("calls") == [
        ("main.go::main", "helpers.go::helper", "EXTRACTED", 19),
        ("main.go::main", "helpers.go::pick", "EXTRACTED", 21),
        ("main.go::main", "internal/database/db.go::Open", "EXTRACTED", 17),
        ("main.go::main", "server.go::Server", "EXTRACTED", 14),
        # srv := &Server{}: the variable could be rebound, so this is inferred.
        ("main.go::main", "server.go::Server.Start", "INFERRED", 15),
        ("main.go::main", "store/store.go::New", "EXTRACTED", 13),
        ("main.go::main", "store/store.go::Open", "EXTRACTED", 18),
        ("main.go::main", "util/util.go::Clamp", "EXTRACTED", 20),
        # Receivers: the method's own, a method in another file, a promoted embedded one.
        ("server.go::Server.Start", "helpers.go::Server.helper", "EXTRACTED", 13),
        ("server.go::Server.Start", "server.go::Base.Close", "EXTRACTED", 14),
        ("store/internal_test.go::TestNew", "store/store.go::New", "EXTRACTED", 3),
        ("store/store.go::New", "store/store.go::Store", "EXTRACTED", 5),
        ("store/store.go::Store.Get", "store/store.go::Store.check", "EXTRACTED", 9),
        ("store/store_test.go::TestOpen", "store/store.go::Open", "EXTRACTED", 5),
        ("tools/cmd/main.go::main", "store/store.go::Open", "EXTRACTED", 9),
        ("tools/cmd/main.go::main", "tools/gen/gen.go::Run", "EXTRACTED", 10),
    ]
    tiers = {e["tier"]: e["confidence"] for e in repo.edges("calls")}
    assert tiers == {"EXTRACTED": 1.0, "INFERRED": 0.95}


def test_go_unbound_calls_are_counted(repo: Repo) -> None:
    nodes = repo.build(FILES).nodes()
    # f() calls a function value: nothing binds it.
    assert nodes["main.go::main"]["unresolved_calls"] == {"f": 1}
    assert nodes["main.go::main"]["external_calls"] == 2  # fmt.Println, len
    # s.name.Trim(): the field is declared a string, so the call is not the repository's.
    start = nodes["server.go::Server.Start"]
    assert "unresolved_calls" not in start
    assert start["external_calls"] == 1


def test_go_inherits_embedded_struct(repo: Repo) -> None:
    repo.build(FILES)
    assert repo.edge_rows("inherits") == [("server.go::Server", "server.go::Base", "EXTRACTED", 8)]


def test_go_external_test_package_does_not_see_package_scope(make_repo) -> None:
    repo = make_repo(
        {
            "go.mod": "module m\n",
            "a/a.go": "package a\n\nfunc Open() {}\n",
            "b/b.go": "package b\n\nfunc Open() {}\n",
            "a/a_test.go": "package a_test\n\nfunc TestX() { Open() }\n",
            "a/b_test.go": "package a\n\nfunc TestY() { Open() }\n",
        }
    )
    assert repo.kg("update").code == 0
    calls = repo.edge_rows("calls")
    # package a_test has no import of a: the bare name binds only by name, never EXTRACTED.
    assert calls == [
        ("a/a_test.go::TestX", ("a/a.go::Open", "b/b.go::Open"), "AMBIGUOUS", 3),
        ("a/b_test.go::TestY", "a/a.go::Open", "EXTRACTED", 3),
    ]


def test_go_import_without_go_mod_module_is_external(make_repo) -> None:
    repo = make_repo(
        {
            "go.mod": "module example.com/app\n",
            "util/util.go": "package util\n\nfunc Run() {}\n",
            "main.go": (
                'package main\n\nimport "github.com/other/util"\n\nfunc main() { util.Run() }\n'
            ),
        }
    )
    assert repo.kg("update").code == 0
    assert repo.edge_rows("imports") == [
        ("main.go", "ext:go:github.com/other/util", "EXTRACTED", 3)
    ]
    assert repo.edge_rows("calls") == []
    assert repo.nodes()["main.go::main"]["external_calls"] == 1


def test_an_import_under_the_module_path_with_no_package_is_broken(repo: Repo) -> None:
    repo.write_files(
        {
            "go.mod": "module example.com/app\n\ngo 1.22\n",
            "main.go": (
                'package main\n\nimport (\n\t"example.com/app/gone"\n\t"github.com/x/y"\n)\n\n'
                "func main() {\n\tgone.Run()\n\ty.Z()\n}\n"
            ),
        }
    )
    repo.commit()
    result = repo.kg("update")
    assert result.code == 0, result.err
    assert repo.nodes()["main.go"]["broken_imports"] == [
        {"line": 4, "module": "example.com/app/gone"}
    ]
    assert "ext:go:github.com/x/y" in repo.nodes()
    assert not any(i.startswith("ext:go:example.com/app") for i in repo.nodes())
