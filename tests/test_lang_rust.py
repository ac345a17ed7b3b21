"""Rust in layer 1: mod/use over files, impl blocks, Self/self and path calls, exact edges."""

from __future__ import annotations

from conftest import Repo

LIB = """\
pub mod config;
mod util;
mod net;

use crate::config::Config;
use std::collections::HashMap;

pub fn run() {
    let c = Config::new();
    c.load();
    util::helper();
    net::client::connect();
    let m: HashMap<u8, u8> = HashMap::new();
    println!("{}", c.name());
    Some(1);
    crate::util::helper();
}
"""

CONFIG = """\
use super::util::{helper, other as renamed};
use crate::util;

pub trait Named {
    fn name(&self) -> String;
    fn shout(&self) -> String { self.name() }
}

pub struct Config { name: String }

impl Config {
    pub fn new() -> Self { Self::empty(); Config { name: String::new() } }
    fn empty() {}
    pub fn load(&self) { self.validate(); helper(); renamed(); util::other(); }
    fn validate(&self) {}
}

impl Named for Config {
    fn name(&self) -> String { self.shout() }
}
"""

UTIL = """\
pub fn helper() {}
pub fn other() {}

#[cfg(test)]
mod tests {
    use super::*;
    fn check() { helper(); }
}
"""

NET = """\
pub mod client;
pub fn helper() {}
"""

CLIENT = """\
use super::helper;
use crate::config::{self, Config, Named};

pub fn connect() {
    helper();
    super::helper();
    let c = config::Config::new();
    c.shout();
    let f = get();
    f();
    c.missing();
}

fn get() -> fn() { connect }

impl Config {
    fn reconnect(&self) { self.load(); connect(); }
}

pub struct Plain;

impl Named for Plain {
    fn name(&self) -> String { String::new() }
}
"""

FILES = {
    "Cargo.toml": '[package]\nname = "app"\nversion = "0.1.0"\n',
    "src/lib.rs": LIB,
    "src/config.rs": CONFIG,
    "src/util.rs": UTIL,
    "src/net/mod.rs": NET,
    "src/net/client.rs": CLIENT,
    "src/broken.rs": "fn ok() {}\nfn bad( {\n",
}


def test_rust_symbols(repo: Repo) -> None:
    nodes = repo.build(FILES).nodes()
    symbols = {i: n["kind"] for i, n in nodes.items() if n["kind"] not in ("file", "package")}
    assert symbols == {
        "src/lib.rs::run": "function",
        "src/config.rs::Named": "trait",
        "src/config.rs::Named.name": "method",
        "src/config.rs::Named.shout": "method",
        "src/config.rs::Config": "struct",
        "src/config.rs::Config.new": "method",
        "src/config.rs::Config.empty": "method",
        "src/config.rs::Config.load": "method",
        "src/config.rs::Config.validate": "method",
        "src/config.rs::Config.name": "method",
        "src/util.rs::helper": "function",
        "src/util.rs::other": "function",
        "src/util.rs::check": "function",  # inline test modules are part of their file
        "src/net/mod.rs::helper": "function",
        "src/net/client.rs::connect": "function",
        "src/net/client.rs::get": "function",
        "src/net/client.rs::Config.reconnect": "method",
        "src/net/client.rs::Plain": "struct",
        "src/net/client.rs::Plain.name": "method",
        "src/broken.rs::ok": "function",
    }
    assert nodes["src/broken.rs"]["status"] == "partial"
    assert nodes["src/lib.rs"]["status"] == "ok"
    contains = {(s, d) for s, d, _, _ in repo.edge_rows("contains")}
    assert ("src/config.rs::Config", "src/config.rs::Config.load") in contains
    # An impl block for a type of another file: its methods hang off the file.
    assert ("src/net/client.rs", "src/net/client.rs::Config.reconnect") in contains


def test_rust_imports_mod_and_use(repo: Repo) -> None:
    repo.build(FILES)
    assert repo.edge_rows("imports") == [
        ("src/config.rs", "src/util.rs", "EXTRACTED", 1),  # use super::util::{...}
        ("src/config.rs", "src/util.rs", "EXTRACTED", 2),  # use crate::util
        ("src/lib.rs", "ext:rust:std", "EXTRACTED", 6),
        ("src/lib.rs", "src/config.rs", "EXTRACTED", 1),  # pub mod config;
        ("src/lib.rs", "src/config.rs", "EXTRACTED", 5),
        ("src/lib.rs", "src/net/mod.rs", "EXTRACTED", 3),
        ("src/lib.rs", "src/util.rs", "EXTRACTED", 2),
        ("src/lib.rs", "src/util.rs", "EXTRACTED", 16),  # crate::util::helper() in passing
        ("src/net/client.rs", "src/config.rs", "EXTRACTED", 2),
        ("src/net/client.rs", "src/net/mod.rs", "EXTRACTED", 1),
        ("src/net/client.rs", "src/net/mod.rs", "EXTRACTED", 6),  # super::helper()
        ("src/net/mod.rs", "src/net/client.rs", "EXTRACTED", 1),
    ]


def test_rust_calls_exact(repo: Repo) -> None:
    repo.build(FILES)
    assert repo.edge_rows("calls") == [
        ("src/config.rs::Config.load", "src/config.rs::Config.validate", "EXTRACTED", 14),
        ("src/config.rs::Config.load", "src/util.rs::helper", "EXTRACTED", 14),
        ("src/config.rs::Config.load", "src/util.rs::other", "EXTRACTED", 14),  # aliased
        # self.shout() is the trait's default method, reached through impl Named for Config.
        ("src/config.rs::Config.name", "src/config.rs::Named.shout", "EXTRACTED", 19),
        ("src/config.rs::Config.new", "src/config.rs::Config", "EXTRACTED", 12),
        ("src/config.rs::Config.new", "src/config.rs::Config.empty", "EXTRACTED", 12),
        ("src/config.rs::Named.shout", "src/config.rs::Named.name", "EXTRACTED", 6),
        # let c = Config::new(): the variable's type is inferred from the constructor.
        ("src/lib.rs::run", "src/config.rs::Config.load", "INFERRED", 10),
        ("src/lib.rs::run", "src/config.rs::Config.new", "EXTRACTED", 9),
        ("src/lib.rs::run", "src/net/client.rs::connect", "EXTRACTED", 12),
        ("src/lib.rs::run", "src/util.rs::helper", "EXTRACTED", 11),
        ("src/lib.rs::run", "src/util.rs::helper", "EXTRACTED", 16),
        ("src/net/client.rs::Config.reconnect", "src/config.rs::Config.load", "EXTRACTED", 17),
        ("src/net/client.rs::Config.reconnect", "src/net/client.rs::connect", "EXTRACTED", 17),
        ("src/net/client.rs::connect", "src/config.rs::Config.new", "EXTRACTED", 7),
        ("src/net/client.rs::connect", "src/config.rs::Named.shout", "INFERRED", 8),
        ("src/net/client.rs::connect", "src/net/client.rs::get", "EXTRACTED", 9),
        # Same-named helper in two modules: each call binds to the one its path names.
        ("src/net/client.rs::connect", "src/net/mod.rs::helper", "EXTRACTED", 5),
        ("src/net/client.rs::connect", "src/net/mod.rs::helper", "EXTRACTED", 6),
        ("src/util.rs::check", "src/util.rs::helper", "EXTRACTED", 7),
    ]
    assert {e["confidence"] for e in repo.edges("calls") if e["tier"] == "INFERRED"} == {0.95}


def test_rust_unbound_and_external_calls_are_counted(repo: Repo) -> None:
    nodes = repo.build(FILES).nodes()
    # Macros are not calls; HashMap::new and Some are outside the repository.
    assert nodes["src/lib.rs::run"]["external_calls"] == 2
    assert "unresolved_calls" not in nodes["src/lib.rs::run"]
    # f(): a function value; c.missing(): no such method on Config.
    assert nodes["src/net/client.rs::connect"]["unresolved_calls"] == {"f": 1, "missing": 1}


def test_rust_impl_trait_for_type_inherits(repo: Repo) -> None:
    repo.build(FILES)
    assert repo.edge_rows("inherits") == [
        ("src/config.rs::Config", "src/config.rs::Named", "EXTRACTED", 18),
        ("src/net/client.rs::Plain", "src/config.rs::Named", "EXTRACTED", 22),
    ]
