"""Java in layer 1: packages, imports (single, wildcard, static, nested), this/super, edges."""

from __future__ import annotations

from conftest import Repo

APP_DIR = "src/main/java/com/acme/app"
UTIL_DIR = "src/main/java/com/acme/util"
APP = f"{APP_DIR}/App.java"
BASE = f"{APP_DIR}/Base.java"
HELPER = f"{APP_DIR}/Helper.java"
STRINGS = f"{UTIL_DIR}/Strings.java"
NUMBERS = f"{UTIL_DIR}/Numbers.java"
TEXT = "src/main/java/com/acme/text/Strings.java"
APP_TEST = "src/test/java/com/acme/app/AppTest.java"

APP_SOURCE = """\
package com.acme.app;

import com.acme.util.Strings;
import com.acme.util.*;
import static com.acme.util.Strings.trim;
import java.util.List;
import java.util.ArrayList;

public class App extends Base implements Runnable {
    private Helper helper = new Helper();

    public App() { super(); init(); }

    static class Inner {
        void go() { make(); }
        static Inner make() { return new Inner(); }
    }

    @Override
    public void run() {
        helper();
        this.helper();
        super.close();
        Strings.trim("a");
        trim("b");
        Numbers.parse("1");
        List<String> xs = new ArrayList<>();
        xs.add("a");
        helper.assist();
        this.helper.assist();
        Inner.make().go();
        App.Inner.make();
        var w = new Worker();
        w.work();
        System.out.println("x");
        unknown.thing();
        close();
    }

    void helper() {}
    void init() {}
}
"""

FILES = {
    APP: APP_SOURCE,
    BASE: "package com.acme.app;\n\npublic abstract class Base {\n    void close() {}\n}\n",
    HELPER: (
        "package com.acme.app;\n\n"
        "class Helper {\n    void assist() { new Worker().work(); }\n}\n\n"
        "class Worker { void work() {} }\n"
    ),
    STRINGS: (
        "package com.acme.util;\n\n"
        "public final class Strings {\n"
        "    public static String trim(String s) { return s; }\n}\n"
    ),
    NUMBERS: (
        "package com.acme.util;\n\n"
        "public final class Numbers {\n"
        "    public static int parse(String s) { return Strings.trim(s).length(); }\n}\n"
    ),
    # The same class and method name in another package: never confused with util's.
    TEXT: (
        "package com.acme.text;\n\n"
        "public final class Strings {\n"
        "    public static String trim(String s) { return s; }\n}\n"
    ),
    APP_TEST: (
        "package com.acme.app;\n\n"
        "import com.acme.text.Strings;\n\n"
        "class AppTest {\n"
        "    void test() { new App().run(); new Helper().assist(); Strings.trim(null); }\n}\n"
    ),
    "Shapes.java": (
        "interface Shape extends Comparable<Shape> { double area(); }\n"
        "enum Unit implements Shape { ONE; public double area() { return 1; } }\n"
        "record Point(int x) implements Shape {\n"
        "    Point { check(); }\n"
        "    static void check() {}\n"
        "    public double area() { return 0; }\n}\n"
    ),
    "Broken.java": "class Broken {\n    void ok() {}\n    void bad( {\n}\n",
}


def test_java_symbols(repo: Repo) -> None:
    nodes = repo.build(FILES).nodes()
    symbols = {i: n["kind"] for i, n in nodes.items() if n["kind"] not in ("file", "package")}
    assert symbols == {
        f"{APP}::App": "class",
        f"{APP}::App.Inner": "class",
        f"{APP}::App.Inner.go": "method",
        f"{APP}::App.Inner.make": "method",
        f"{APP}::App.run": "method",
        f"{APP}::App.helper": "method",
        f"{APP}::App.init": "method",
        f"{BASE}::Base": "class",
        f"{BASE}::Base.close": "method",
        f"{HELPER}::Helper": "class",
        f"{HELPER}::Helper.assist": "method",
        f"{HELPER}::Worker": "class",
        f"{HELPER}::Worker.work": "method",
        f"{STRINGS}::Strings": "class",
        f"{STRINGS}::Strings.trim": "method",
        f"{NUMBERS}::Numbers": "class",
        f"{NUMBERS}::Numbers.parse": "method",
        f"{TEXT}::Strings": "class",
        f"{TEXT}::Strings.trim": "method",
        f"{APP_TEST}::AppTest": "class",
        f"{APP_TEST}::AppTest.test": "method",
        "Shapes.java::Shape": "interface",
        "Shapes.java::Shape.area": "method",
        "Shapes.java::Unit": "enum",
        "Shapes.java::Unit.area": "method",
        "Shapes.java::Point": "class",
        "Shapes.java::Point.check": "method",
        "Shapes.java::Point.area": "method",
        "Broken.java::Broken": "class",
        "Broken.java::Broken.ok": "method",
    }
    assert nodes["Broken.java"]["status"] == "partial"
    assert nodes[APP]["status"] == "ok"
    contains = {(s, d) for s, d, _, _ in repo.edge_rows("contains")}
    assert (f"{APP}::App", f"{APP}::App.Inner") in contains
    assert (f"{APP}::App.Inner", f"{APP}::App.Inner.make") in contains


def test_java_imports(repo: Repo) -> None:
    repo.build(FILES)
    assert repo.edge_rows("imports") == sorted(
        [
            (APP, "ext:java:java.util", "EXTRACTED", 6),
            (APP, "ext:java:java.util", "EXTRACTED", 7),
            (APP, NUMBERS, "EXTRACTED", 4),  # a wildcard import: every file of the package
            (APP, STRINGS, "EXTRACTED", 3),
            (APP, STRINGS, "EXTRACTED", 4),
            (APP, STRINGS, "EXTRACTED", 5),  # import static
            (APP_TEST, TEXT, "EXTRACTED", 3),
        ]
    )


def test_java_calls_exact(repo: Repo) -> None:
    repo.build(FILES)
    assert repo.edge_rows("calls") == sorted(
        [
            # A constructor is an initialiser: its calls belong to the class.
            (f"{APP}::App", f"{APP}::App.init", "EXTRACTED", 12),
            (f"{APP}::App", f"{BASE}::Base", "EXTRACTED", 12),  # super(): constructs the base
            (f"{APP}::App", f"{HELPER}::Helper", "EXTRACTED", 10),
            (f"{APP}::App.Inner.go", f"{APP}::App.Inner.make", "EXTRACTED", 15),
            (f"{APP}::App.Inner.make", f"{APP}::App.Inner", "EXTRACTED", 16),
            (f"{APP}::App.run", f"{APP}::App.Inner.make", "EXTRACTED", 31),
            # Inner.make().go(): through the type make is declared to return.
            (f"{APP}::App.run", f"{APP}::App.Inner.go", "INFERRED", 31),
            (f"{APP}::App.run", f"{APP}::App.Inner.make", "EXTRACTED", 32),
            (f"{APP}::App.run", f"{APP}::App.helper", "EXTRACTED", 21),  # implicit this
            (f"{APP}::App.run", f"{APP}::App.helper", "EXTRACTED", 22),  # this.helper()
            (f"{APP}::App.run", f"{BASE}::Base.close", "EXTRACTED", 23),  # super.close()
            (f"{APP}::App.run", f"{BASE}::Base.close", "EXTRACTED", 37),  # inherited, implicit this
            # A field (typed) and a variable (``var`` from ``new``) bind their methods, inferred.
            (f"{APP}::App.run", f"{HELPER}::Helper.assist", "INFERRED", 29),
            (f"{APP}::App.run", f"{HELPER}::Helper.assist", "INFERRED", 30),
            (f"{APP}::App.run", f"{HELPER}::Worker", "EXTRACTED", 33),  # same package, no import
            (f"{APP}::App.run", f"{HELPER}::Worker.work", "INFERRED", 34),
            (f"{APP}::App.run", f"{NUMBERS}::Numbers.parse", "EXTRACTED", 26),  # wildcard import
            (f"{APP}::App.run", f"{STRINGS}::Strings.trim", "EXTRACTED", 24),
            (f"{APP}::App.run", f"{STRINGS}::Strings.trim", "EXTRACTED", 25),  # static import
            (f"{HELPER}::Helper.assist", f"{HELPER}::Worker", "EXTRACTED", 4),
            # new Worker().work(): the syntax states the receiver's class.
            (f"{HELPER}::Helper.assist", f"{HELPER}::Worker.work", "EXTRACTED", 4),
            (f"{APP_TEST}::AppTest.test", f"{APP}::App.run", "EXTRACTED", 6),
            (f"{APP_TEST}::AppTest.test", f"{HELPER}::Helper.assist", "EXTRACTED", 6),
            (f"{NUMBERS}::Numbers.parse", f"{STRINGS}::Strings.trim", "EXTRACTED", 4),
            # The test source root shares the package: App and Helper need no import.
            (f"{APP_TEST}::AppTest.test", f"{APP}::App", "EXTRACTED", 6),
            (f"{APP_TEST}::AppTest.test", f"{HELPER}::Helper", "EXTRACTED", 6),
            (f"{APP_TEST}::AppTest.test", f"{TEXT}::Strings.trim", "EXTRACTED", 6),
            ("Shapes.java::Point", "Shapes.java::Point.check", "EXTRACTED", 4),
        ]
    )
    assert {e["confidence"] for e in repo.edges("calls") if e["tier"] == "INFERRED"} == {0.95}


def test_java_unbound_calls_are_counted(repo: Repo) -> None:
    nodes = repo.build(FILES).nodes()
    # unknown.thing(): nothing known.
    assert nodes[f"{APP}::App.run"]["unresolved_calls"] == {"thing": 1}
    # System.out.println, new ArrayList, and xs.add: xs is a List, a JDK type, so its add is
    # the JDK's, never a method of the repository that happens to be called add.
    assert nodes[f"{APP}::App.run"]["external_calls"] == 3
    assert "unresolved_calls" not in nodes[f"{APP_TEST}::AppTest.test"]
    # Strings.trim(s).length(): trim is declared to return a String, so length is the JDK's.
    assert "unresolved_calls" not in nodes[f"{NUMBERS}::Numbers.parse"]
    assert nodes[f"{NUMBERS}::Numbers.parse"]["external_calls"] == 1


def test_java_inherits(repo: Repo) -> None:
    repo.build(FILES)
    assert repo.edge_rows("inherits") == sorted(
        [
            (f"{APP}::App", f"{BASE}::Base", "EXTRACTED", 9),
            ("Shapes.java::Point", "Shapes.java::Shape", "EXTRACTED", 3),
            ("Shapes.java::Unit", "Shapes.java::Shape", "EXTRACTED", 2),
        ]
    )


def test_java_unimported_class_binds_by_name_only(make_repo) -> None:
    repo = make_repo(
        {
            "a/One.java": "package a;\n\npublic class One { public static void go() {} }\n",
            "b/Two.java": "package b;\n\nclass Two { void m() { One.go(); } }\n",
        }
    )
    assert repo.kg("update").code == 0
    assert repo.edge_rows("calls") == [("b/Two.java::Two.m", "a/One.java::One.go", "INFERRED", 3)]


def test_java_nested_class_import(make_repo) -> None:
    repo = make_repo(
        {
            "a/Outer.java": (
                "package a;\n\npublic class Outer {\n"
                "    public static class Inner { public static void go() {} }\n}\n"
            ),
            "b/Use.java": (
                "package b;\n\nimport a.Outer.Inner;\n\nclass Use { void m() { Inner.go(); } }\n"
            ),
        }
    )
    assert repo.kg("update").code == 0
    assert repo.edge_rows("imports") == [("b/Use.java", "a/Outer.java", "EXTRACTED", 3)]
    assert repo.edge_rows("calls") == [
        ("b/Use.java::Use.m", "a/Outer.java::Outer.Inner.go", "EXTRACTED", 5)
    ]
