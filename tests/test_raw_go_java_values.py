"""Layer 1 for Go and Java: calls bound through declared types, construct by construct, exact
edges and tiers.

A call on a value is INFERRED at 0.95 when the value's type is declared (a variable, a field,
a parameter, a loop variable, a function's result) or follows from what creates it
(``&Store{}``, ``new Store()``, ``NewStore()``): variables are scoped by function, not by block,
so a name given two types in one function lists both methods (AMBIGUOUS). A call on a value the
syntax itself types (``Store{}.Save()``, ``v.(*Store).Save()``, ``new Store().save()``) is
EXTRACTED. A call on an interface binds the interface's method, never its implementations:
which one runs is decided at run time. What nothing states stays unresolved: a value of an
anonymous interface, an untyped lambda parameter, a method reached through reflection; and a
method the receiver's known type lacks is never another type's method of the same name.
"""

from __future__ import annotations

from conftest import Repo

GO_MOD = "module example.com/app\n\ngo 1.22\n"

STORE_GO = """\
    package store

    // Saver is what a store can do.
    type Saver interface {
        Save(key string)
    }

    type Store struct {
        journal *Journal
    }

    type Journal struct{}

    func New() *Store { return &Store{journal: &Journal{}} }

    func Open(name string) (*Store, error) { return New(), nil }

    func (s *Store) Save(key string) { s.journal.Record(key) }

    func (s *Store) Journal() *Journal { return s.journal }

    func (j *Journal) Record(key string) {}

    type Disk struct{}

    func (d *Disk) Save(key string) {}
    """


def calls_of(repo: Repo, src: str) -> set[tuple]:
    """(callee, tier, line) of each call edge out of ``src``; AMBIGUOUS ones list candidates."""
    return {
        (edge.get("dst") or tuple(edge["candidates"]), edge["tier"], edge["line"])
        for edge in repo.edges("calls")
        if edge["src"] == src
    }


S = "store/store.go"


def test_go_locals_typed_by_declaration_literal_result_and_assertion(repo: Repo) -> None:
    repo.build(
        {
            "go.mod": GO_MOD,
            S: STORE_GO,
            "main.go": """\
                package main

                import "example.com/app/store"

                func main() {
                    var a store.Store
                    a.Save("a")
                    b := store.New()
                    b.Save("b")
                    c := &store.Store{}
                    c.Save("c")
                    d := store.Store{}
                    d.Save("d")
                    e, err := store.Open("e")
                    e.Save("e")
                    var f = store.New()
                    f.Save("f")
                    g := f
                    g.Save("g")
                    store.New().Journal().Record("h")
                    (&store.Store{}).Save("i")
                    var boxed interface{} = a
                    boxed.(*store.Store).Save("j")
                    k, ok := boxed.(*store.Store)
                    k.Save("k")
                    _, _ = err, ok
                }
                """,
        }
    )
    save, new = f"{S}::Store.Save", f"{S}::New"
    assert calls_of(repo, "main.go::main") == {
        (save, "INFERRED", 7),  # var a store.Store
        (new, "EXTRACTED", 8),
        (save, "INFERRED", 9),  # b := store.New(), New declared to return *Store
        (f"{S}::Store", "EXTRACTED", 10),
        (save, "INFERRED", 11),  # c := &store.Store{}
        (f"{S}::Store", "EXTRACTED", 12),
        (save, "INFERRED", 13),  # d := store.Store{}
        (f"{S}::Open", "EXTRACTED", 14),
        (save, "INFERRED", 15),  # e, err := store.Open(...): the first result
        (new, "EXTRACTED", 16),
        (save, "INFERRED", 17),  # var f = store.New()
        (save, "INFERRED", 19),  # g := f
        (new, "EXTRACTED", 20),
        (f"{S}::Store.Journal", "INFERRED", 20),  # through New's result
        (f"{S}::Journal.Record", "INFERRED", 20),  # through Journal's result
        (f"{S}::Store", "EXTRACTED", 21),
        (save, "EXTRACTED", 21),  # a composite literal states its type
        (save, "EXTRACTED", 23),  # so does a type assertion
        (save, "INFERRED", 25),  # k, ok := any.(*store.Store)
    }
    assert all(e["confidence"] == 0.95 for e in repo.edges("calls") if e["tier"] == "INFERRED")


def test_go_struct_fields_parameters_and_receivers(repo: Repo) -> None:
    repo.build(
        {
            "go.mod": GO_MOD,
            S: STORE_GO,
            "server.go": """\
                package main

                import "example.com/app/store"

                type Server struct {
                    store *store.Store
                    saver store.Saver
                }

                func (s *Server) Handle(key string) {
                    s.store.Save(key)
                    s.saver.Save(key)
                    s.log(key)
                    st := s.store
                    st.Save(key)
                }
                """,
            # Methods and functions in another file of the package than the struct.
            "handlers.go": """\
                package main

                import "example.com/app/store"

                func (s *Server) log(key string) {
                    s.store.Journal().Record(key)
                }

                func serve(srv *Server, st *store.Store) {
                    srv.store.Save("x")
                    srv.Handle("y")
                    st.Save("z")
                }

                func local() {
                    srv := &Server{}
                    srv.store.Save("w")
                }
                """,
        }
    )
    save = f"{S}::Store.Save"
    assert calls_of(repo, "server.go::Server.Handle") == {
        (save, "INFERRED", 11),  # s.store: the field's declared type
        # An interface-typed field binds the interface's method, not an implementation.
        (f"{S}::Saver.Save", "INFERRED", 12),
        ("handlers.go::Server.log", "EXTRACTED", 13),  # the receiver's own method
        (save, "INFERRED", 15),  # st := s.store
    }
    assert calls_of(repo, "handlers.go::Server.log") == {
        (f"{S}::Store.Journal", "INFERRED", 6),
        (f"{S}::Journal.Record", "INFERRED", 6),
    }
    assert calls_of(repo, "handlers.go::serve") == {
        (save, "INFERRED", 10),  # a parameter's field
        ("server.go::Server.Handle", "INFERRED", 11),
        (save, "INFERRED", 12),  # a parameter of a package-qualified type
    }
    assert calls_of(repo, "handlers.go::local") == {
        ("server.go::Server", "EXTRACTED", 16),
        (save, "INFERRED", 17),
    }
    # The interface call lists no implementation (Store, Disk): none is chosen, none is added.
    assert not any(e.get("dst") == f"{S}::Disk.Save" for e in repo.edges("calls"))


def test_go_a_name_given_two_types_in_one_function_lists_both(repo: Repo) -> None:
    repo.build(
        {
            "go.mod": GO_MOD,
            S: STORE_GO,
            "main.go": """\
                package main

                import "example.com/app/store"

                func pick(fast bool) {
                    if fast {
                        s := &store.Store{}
                        s.Save("a")
                    } else {
                        s := &store.Disk{}
                        s.Save("b")
                    }
                }
                """,
        }
    )
    both = (f"{S}::Disk.Save", f"{S}::Store.Save")
    assert calls_of(repo, "main.go::pick") == {
        (f"{S}::Store", "EXTRACTED", 7),
        (both, "AMBIGUOUS", 8),  # blocks are not followed: both types are possible
        (f"{S}::Disk", "EXTRACTED", 10),
        (both, "AMBIGUOUS", 11),
    }


def test_go_values_nothing_types_stay_unresolved(repo: Repo) -> None:
    repo.build(
        {
            "go.mod": GO_MOD,
            S: STORE_GO,
            "dyn.go": """\
                package main

                import (
                    "reflect"
                    "sync"

                    "example.com/app/store"
                )

                type guarded struct {
                    sync.Mutex
                }

                type bare struct{}

                func (b *bare) Lock() {}

                func dynamic(x interface{ Save(string) }, v interface{}, s *store.Store) {
                    x.Save("a")
                    v.(interface{ Save(string) }).Save("b")
                    y, _ := v.(interface{ Save(string) })
                    y.Save("c")
                    reflect.ValueOf(s).MethodByName("Save").Call(nil)
                    g := &guarded{}
                    g.Lock()
                    b := bare{}
                    b.Save("d")
                }
                """,
        }
    )
    # Only the constructions bind: the anonymous interfaces, reflection, a method promoted
    # from a struct outside the repository and a method the type lacks bind to nothing, not
    # even by the method's name (Store.Save, Disk.Save, bare.Lock).
    assert calls_of(repo, "dyn.go::dynamic") == {
        ("dyn.go::guarded", "EXTRACTED", 24),
        ("dyn.go::bare", "EXTRACTED", 26),
    }
    node = repo.nodes()["dyn.go::dynamic"]
    assert node["unresolved_calls"] == {"Save": 4}
    # reflect.ValueOf, its MethodByName and Call, and the Mutex's Lock.
    assert node["external_calls"] == 4


JAVA_DIR = "src/main/java/com/acme"
STORE_JAVA = f"{JAVA_DIR}/store/Store.java"
DISK_JAVA = f"{JAVA_DIR}/store/DiskStore.java"
REPO_JAVA = f"{JAVA_DIR}/store/Repo.java"

JAVA_STORE_FILES = {
    REPO_JAVA: """\
        package com.acme.store;

        public interface Repo {
            void save(String key);
        }
        """,
    STORE_JAVA: """\
        package com.acme.store;

        public class Store implements Repo {
            public void save(String key) {}

            public Store self() { return this; }

            public static Store open() { return new Store(); }
        }
        """,
    DISK_JAVA: """\
        package com.acme.store;

        public class DiskStore extends Store implements AutoCloseable {
            public void flush() {}

            public void close() {}
        }
        """,
}


def test_java_locals_parameters_fields_and_results(repo: Repo) -> None:
    repo.build(
        {
            **JAVA_STORE_FILES,
            f"{JAVA_DIR}/app/Base.java": """\
                package com.acme.app;

                import com.acme.store.Store;

                abstract class Base {
                    protected Store shared;

                    Store getStore() { return shared; }
                }
                """,
            f"{JAVA_DIR}/app/App.java": """\
                package com.acme.app;

                import com.acme.store.DiskStore;
                import com.acme.store.Repo;
                import com.acme.store.Store;
                import java.util.List;

                class App extends Base {
                    private Store store = new Store();

                    void run(Repo repo, List<Store> all) {
                        Store a = new Store();
                        a.save("a");
                        var b = new DiskStore();
                        b.save("b");
                        b.flush();
                        store.save("c");
                        this.store.save("d");
                        repo.save("e");
                        getStore().save("f");
                        this.getStore().save("g");
                        Store.open().self().save("h");
                        shared.save("i");
                        var c = Store.open();
                        c.save("j");
                        for (Store each : all) {
                            each.save("k");
                        }
                        try (DiskStore d = new DiskStore()) {
                            d.flush();
                        }
                        Object o = a;
                        if (o instanceof DiskStore disk) {
                            disk.flush();
                        }
                        all.get(0).save("l");
                    }
                }
                """,
        }
    )
    app, save = f"{JAVA_DIR}/app/App.java", f"{STORE_JAVA}::Store.save"
    flush = f"{DISK_JAVA}::DiskStore.flush"
    assert calls_of(repo, f"{app}::App.run") == {
        (f"{STORE_JAVA}::Store", "EXTRACTED", 12),
        (save, "INFERRED", 13),  # Store a = new Store()
        (f"{DISK_JAVA}::DiskStore", "EXTRACTED", 14),
        (save, "INFERRED", 15),  # var b = new DiskStore(): inherited through extends
        (flush, "INFERRED", 16),
        (save, "INFERRED", 17),  # a field, with an implicit this
        (save, "INFERRED", 18),  # this.store
        (f"{REPO_JAVA}::Repo.save", "INFERRED", 19),  # an interface: its method only
        (f"{JAVA_DIR}/app/Base.java::Base.getStore", "EXTRACTED", 20),  # inherited
        (save, "INFERRED", 20),  # through getStore's declared result
        (f"{JAVA_DIR}/app/Base.java::Base.getStore", "EXTRACTED", 21),
        (save, "INFERRED", 21),
        (f"{STORE_JAVA}::Store.open", "EXTRACTED", 22),
        (f"{STORE_JAVA}::Store.self", "INFERRED", 22),
        (save, "INFERRED", 22),
        (save, "INFERRED", 23),  # a field of the base class
        (f"{STORE_JAVA}::Store.open", "EXTRACTED", 24),
        (save, "INFERRED", 25),  # var c = Store.open()
        (save, "INFERRED", 27),  # a loop variable
        (f"{DISK_JAVA}::DiskStore", "EXTRACTED", 29),
        (flush, "INFERRED", 30),  # a resource
        (flush, "INFERRED", 34),  # a pattern variable
        # all.get(0): List is the JDK's, and its element type is not followed (erased).
    }
    assert calls_of(repo, f"{app}::App") == {(f"{STORE_JAVA}::Store", "EXTRACTED", 9)}
    run = repo.nodes()[f"{app}::App.run"]
    # all.get is external; what it gives back may be one of the repository's objects (a
    # List<Store>'s is), so save on it is neither external nor bound by its name.
    assert run["external_calls"] == 1
    assert run["unresolved_calls"] == {"save": 1}
    # An interface call binds no implementation (Store.save).
    assert not any(
        e["src"] == f"{app}::App.run" and e["line"] == 19 and e.get("dst") == save
        for e in repo.edges("calls")
    )


def test_java_values_nothing_types_stay_unresolved(repo: Repo) -> None:
    repo.build(
        {
            **JAVA_STORE_FILES,
            f"{JAVA_DIR}/app/Dyn.java": """\
                package com.acme.app;

                import com.acme.store.Store;
                import java.util.ArrayList;
                import java.util.List;

                class Items extends ArrayList<Store> {}

                class Dyn {
                    void run(List<Store> all, Items items, Store store) throws Exception {
                        all.forEach(s -> s.save("a"));
                        all.forEach((s) -> s.flush());
                        Store.class.getMethod("save", String.class).invoke(store, "b");
                        items.clear();
                        store.flush();
                    }
                }
                """,
        }
    )
    dyn = f"{JAVA_DIR}/app/Dyn.java"
    # Untyped lambda parameters, reflection, a method inherited from a JDK class, a method
    # the type lacks: nothing binds, not even by name (Store.save, DiskStore.flush).
    assert calls_of(repo, f"{dyn}::Dyn.run") == set()
    node = repo.nodes()[f"{dyn}::Dyn.run"]
    assert node["unresolved_calls"] == {"flush": 2, "getMethod": 1, "invoke": 1, "save": 1}
    # all.forEach twice, and items.clear (Items extends ArrayList).
    assert node["external_calls"] == 3


VARS_GO = 'package main\n\nimport "example.com/app/store"\n\nvar fallback = &store.Store{}\n'


def test_a_changed_result_or_field_type_rebinds_callers_in_other_files(repo: Repo) -> None:
    repo.build(
        {
            "go.mod": GO_MOD,
            S: STORE_GO,
            "main.go": """\
                package main

                import "example.com/app/store"

                type Server struct {
                    backend *store.Store
                }

                func main() {
                    store.New().Save("a")
                }
                """,
            "serve.go": """\
                package main

                func (s *Server) serve() {
                    s.backend.Save("b")
                    fallback.Save("c")
                }
                """,
            "vars.go": VARS_GO,
            **JAVA_STORE_FILES,
            f"{JAVA_DIR}/app/Maker.java": """\
                package com.acme.app;

                import com.acme.store.Store;

                public class Maker {
                    public Store make() { return new Store(); }
                }
                """,
            f"{JAVA_DIR}/app/User.java": """\
                package com.acme.app;

                class User {
                    void use(Maker maker) {
                        maker.make().save("c");
                    }
                }
                """,
        }
    )
    user = f"{JAVA_DIR}/app/User.java::User.use"
    assert (f"{S}::Store.Save", "INFERRED", 10) in calls_of(repo, "main.go::main")
    # A package-level variable of another file of the package types its calls too.
    assert calls_of(repo, "serve.go::Server.serve") == {
        (f"{S}::Store.Save", "INFERRED", 4),
        (f"{S}::Store.Save", "INFERRED", 5),
    }
    assert (f"{STORE_JAVA}::Store.save", "INFERRED", 5) in calls_of(repo, user)
    # New returns a Disk now; the field holds a Disk; make returns the interface Repo.
    repo.write(
        S,
        STORE_GO.replace(
            "func New() *Store { return &Store{journal: &Journal{}} }",
            "func New() *Disk { return &Disk{} }",
        ),
    )
    main_go = (repo.root / "main.go").read_text()
    repo.write("main.go", main_go.replace("*store.Store", "*store.Disk"))
    vars_go = (repo.root / "vars.go").read_text()
    repo.write("vars.go", vars_go.replace("&store.Store{}", "&store.Disk{}"))
    repo.write(
        f"{JAVA_DIR}/app/Maker.java",
        "package com.acme.app;\n\nimport com.acme.store.Repo;\nimport com.acme.store.Store;\n\n"
        "public class Maker {\n    public Repo make() { return new Store(); }\n}\n",
    )
    repo.commit()
    assert repo.kg("update").code == 0
    assert (f"{S}::Disk.Save", "INFERRED", 10) in calls_of(repo, "main.go::main")
    # serve.go did not change: its calls re-bind through the field's and the variable's types.
    assert calls_of(repo, "serve.go::Server.serve") == {
        (f"{S}::Disk.Save", "INFERRED", 4),
        (f"{S}::Disk.Save", "INFERRED", 5),
    }
    # User.java did not change: its call re-binds through make's new result type.
    assert calls_of(repo, user) == {
        (f"{JAVA_DIR}/app/Maker.java::Maker.make", "INFERRED", 5),
        (f"{REPO_JAVA}::Repo.save", "INFERRED", 5),
    }
    assert repo.layer1() == repo.fresh_build()


def test_java_constructor_parameters_are_no_fields_and_overloads_of_two_kinds_bind_nothing(
    repo: Repo,
) -> None:
    repo.build(
        {
            **JAVA_STORE_FILES,
            f"{JAVA_DIR}/app/Node.java": """\
                package com.acme.app;

                import com.acme.store.Store;

                class Node {
                    private Store store;

                    Node(String store) {
                        this.store = Store.open();
                        store.trim();
                    }

                    String text() { return ""; }

                    Node text(String value) { return this; }

                    void use() {
                        store.save("a");
                        text().equals("b");
                    }
                }
                """,
        }
    )
    node = f"{JAVA_DIR}/app/Node.java"
    # The constructor's String parameter named like the field does not make the field a
    # String: store.save() binds; text() returns a String or a Node (two overloads), so
    # equals is neither String's for sure nor Node's: unresolved.
    assert calls_of(repo, f"{node}::Node.use") == {
        (f"{STORE_JAVA}::Store.save", "INFERRED", 18),
        (f"{node}::Node.text", "EXTRACTED", 19),
    }
    assert repo.nodes()[f"{node}::Node.use"]["unresolved_calls"] == {"equals": 1}


def test_a_package_variable_retyped_in_its_file_rebinds_the_package_s_other_files(
    repo: Repo,
) -> None:
    repo.build(
        {
            "go.mod": GO_MOD,
            S: STORE_GO,
            "vars.go": VARS_GO,
            "use.go": 'package main\n\nfunc use() {\n    fallback.Save("a")\n}\n',
        }
    )
    assert calls_of(repo, "use.go::use") == {(f"{S}::Store.Save", "INFERRED", 4)}
    repo.write("vars.go", (repo.root / "vars.go").read_text().replace("Store{}", "Disk{}"))
    repo.commit()
    assert repo.kg("update").code == 0
    assert calls_of(repo, "use.go::use") == {(f"{S}::Disk.Save", "INFERRED", 4)}
    assert repo.layer1() == repo.fresh_build()
