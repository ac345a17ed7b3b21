"""Settings: defaults, read from ``.kgtool.yaml`` or ``[tool.kgtool]`` in pyproject.toml.

Every setting has a default, so the file is optional. A key kgtool does not know, or a value of
the wrong type, is an error naming the file and line: a typo must never be silently ignored.
Every such error of the file is reported at once, not only the first.
"""

from __future__ import annotations

import copy
import math
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kgtool import bounded
from kgtool.errors import ManyErrors
from kgtool.findings import CODES, ERROR, FRESHNESS_CODES, UNSILENCEABLE_PREFIX, Finding

if TYPE_CHECKING:
    import yaml

CONFIG_FILE = ".kgtool.yaml"

# The schema is the defaults: a value's type is its default's type; a dict is a section.
DEFAULTS: dict[str, Any] = {
    # Globs (``**`` crosses folders) of tracked files to leave out of the graph.
    "exclude": [],
    # Files larger than this are file nodes with no symbols, skipped with a note.
    "max_file_bytes": 1_000_000,
    # Worker processes for parsing; 0 means one per core.
    "jobs": 0,
    # Finding codes (docs/findings.md) to silence everywhere: neither printed nor
    # counted for the exit code.
    "ignore": [],
    # A call that matches more definitions than this by name alone counts as unresolved.
    "max_candidates": 8,
    # Layer 2: how files are clustered into communities, and when a diff calls coupling changed.
    "communities": {
        # Weight of one edge of each type between two files; INFERRED edges are further scaled
        # by their confidence. "contains" never crosses files, so it carries no weight.
        "weights": {"imports": 1.0, "calls": 1.0, "inherits": 2.0, "contains": 0.0},
        # Weight of an edge type a language adds that ``weights`` does not name.
        "default_weight": 0.5,
        # Share of an AMBIGUOUS edge's weight, spread evenly over its candidates' files; 0 means
        # ambiguous calls never pull files together (a name coincidence is not coupling).
        "ambiguous_weight": 0.0,
        # Leiden resolution (RB configuration model): higher gives more, smaller communities.
        "resolution": 1.0,
        # Fixed random seed: with sorted input this makes every run byte-identical.
        "seed": 42,
        # Package roots no community spans two of: "auto" detects the repository's own
        # packages (workspaces, nested manifests); a list of root globs (e.g. "packages/*")
        # sets them by hand; "off" (or []) turns them off.
        "boundaries": "auto",
        # Families: at least ``family_min_size`` files of one folder that each derive from the
        # same base class (plugins, providers, commands) become one community, named on the
        # map, with the tests that target one of them. "off" leaves them to Leiden.
        "families": "auto",
        "family_min_size": 4,
        # A size a reader can hold: in a package of more than ``max_share_above`` code files,
        # no code community formed holds more than ``max_share`` of them: what Leiden forms
        # larger is cut again (an update lets one grow by a quarter before it is; see
        # docs/layer2-communities.md and bench/results/community-size.md).
        "max_share": 0.15,
        "max_share_above": 150,
        # Files with no edges are grouped by directory, in groups up to this share of all files
        # (code files, and docs and data with ``data_groups: folder``).
        "loose_group_share": 0.05,
        # Docs and data: "kind" groups them per package and kind (its test data, each docs
        # root, its setup files, the rest), "folder" along the directory tree as above.
        "data_groups": "kind",
        # A new community inherits an old ID only if this share of one of them is shared.
        "min_overlap": 0.5,
        # kgtool diff: a coupling counts as changed when its total moved by this share...
        "diff_change": 0.5,
        # ...and by at least this many edges (small counts jitter).
        "diff_min_edges": 3,
    },
    # Layer 3: names for communities and phrases for the edges between them, and when they
    # count as drifted (see docs/layer3-labels.md).
    "ontology": {
        # The Claude model ``kgtool label`` asks when ANTHROPIC_API_KEY is set.
        "model": "claude-haiku-4-5",
        # Output tokens per request; a batch of 20 communities needs about 1,500.
        "max_tokens": 4096,
        # Communities (and, separately, edges) per request.
        "batch_size": 20,
        # Retries of a failed request (rate limits, 5xx, timeouts), with the SDK's backoff.
        "max_retries": 2,
        # Seconds before one request counts as timed out.
        "timeout": 60.0,
        # What a request may contain besides paths, symbol names and counts: the first line of
        # each main file's docstring or header comment. Whole files are never sent.
        "send_docstrings": True,
        # Member paths sent (and shown to the offline labeler) per community.
        "max_paths": 40,
        # Edges that get a phrase: each community's this many strongest outgoing edges (ranked as
        # the map ranks them), when they hold at least ``min_edge_count`` layer-1 edges.
        "edges_per_community": 3,
        "min_edge_count": 3,
        # A label's evidence keeps a community's members exactly up to this size, and a
        # 128-value MinHash sketch above it (Jaccard estimated within about ±0.05).
        "exact_members": 200,
        # A community name drifts when the Jaccard distance between the members it was written
        # for and today's exceeds this...
        "member_drift": 0.3,
        # ...and an edge phrase (or a name, through the community's edges in and out) when
        # the weighted typed counts moved by more than this share...
        "edge_drift": 0.5,
        # ...or when an edge type that holds at least this share of the weight appeared or
        # vanished (calls becoming inherits is a different relationship, not a small change).
        "type_share": 0.2,
        # Drifted labels fail ``kgtool check`` (and the hook); false: they are warnings.
        "fail_on_drift": False,
    },
    # The miner (``kgtool mine-playbooks``).
    "mining": {
        # Ask Claude (the ``ontology`` section's model and limits) to reword each proposal's
        # intent and pitfalls; replies naming a commit, pull request or path not in the
        # evidence are refused. Off: the proposals are the miner's deterministic text.
        "llm_prose": False,
    },
    # Layer 4: playbooks, and how strictly ``kgtool playbooks check`` (and ``check``) reads them.
    "playbooks": {
        # Folder of playbooks, relative to the repository root; the miner's proposals go in
        # its "proposed/" subfolder.
        "dir": "playbooks",
        # A concept that names no layer-3 community name or community ID refuses the playbook
        # (false: it is a warning, because layer 3 may simply not be labelled yet).
        "fail_on_unresolved_concepts": False,
        # A concept whose layer-3 label has drifted refuses the playbook (false: a warning).
        "fail_on_stale_concepts": False,
        # Playbook files larger than this are refused without being read.
        "max_bytes": 262_144,
        # How far back to look for renames when a pointer is missing (0: all of history).
        "history_commits": 0,
    },
}


INT_MAX = 2**31 - 1  # the clustering library takes its seed as a C int
# Allowed ranges, (lowest, highest) with None for no bound; a value outside is an error naming
# the line, as a wrong type is. Every number must also be finite (YAML has .nan and .inf).
RANGES: dict[str, tuple[float | None, float | None]] = {
    "max_file_bytes": (1, None),
    "jobs": (0, 1024),
    "max_candidates": (1, None),
    "communities.weights.*": (0, None),
    "communities.default_weight": (0, None),
    "communities.ambiguous_weight": (0, 1),
    "communities.resolution": (1e-9, None),
    "communities.seed": (0, INT_MAX),
    "communities.family_min_size": (2, None),
    "communities.max_share": (1e-9, 1),
    "communities.max_share_above": (0, None),
    "communities.loose_group_share": (1e-9, 1),
    "communities.min_overlap": (0, 1),
    "communities.diff_change": (0, None),
    "communities.diff_min_edges": (0, None),
    "ontology.max_tokens": (1, None),
    "ontology.batch_size": (1, None),
    "ontology.max_retries": (0, None),
    "ontology.timeout": (1e-9, None),
    "ontology.max_paths": (1, None),
    "ontology.edges_per_community": (0, None),
    "ontology.min_edge_count": (0, None),
    "ontology.exact_members": (1, None),
    "ontology.member_drift": (0, 1),
    "ontology.edge_drift": (0, None),
    "ontology.type_share": (0, 1),
    "playbooks.max_bytes": (1, None),
    "playbooks.history_commits": (0, None),
}


class Config:
    __slots__ = ("source", "values")

    values: dict[str, Any]
    source: str  # where it came from, for messages: ".kgtool.yaml", "pyproject.toml", "defaults"

    def __init__(self, values: dict[str, Any], source: str) -> None:
        self.values, self.source = values, source

    def __getitem__(self, key: str) -> Any:
        return self.values[key]

    def section(self, name: str) -> dict[str, Any]:
        section: dict[str, Any] = self.values[name]
        return section


UNREADABLE = "K001"
UNKNOWN_KEY = "K002"
WRONG_TYPE = "K003"
OUT_OF_RANGE = "K004"
UNKNOWN_CODE = "K005"


def load_config(root: Path) -> Config:
    yaml_path = root / CONFIG_FILE
    if os.path.lexists(yaml_path):
        text = _read(root, CONFIG_FILE)
        try:
            node = bounded.compose_yaml(text, CONFIG_FILE)
            data = bounded.construct(node)
        except bounded.Unreadable as exc:
            raise _unreadable(exc.message, CONFIG_FILE, exc.line or 0) from None
        lines = _yaml_lines(node)
        return Config(_validated(data or {}, CONFIG_FILE, lambda key: lines.get(key)), CONFIG_FILE)
    pyproject = root / "pyproject.toml"
    if os.path.lexists(pyproject):
        text = _read(root, "pyproject.toml")
        try:
            data = bounded.load_toml(text, "pyproject.toml")
        except bounded.Unreadable as exc:
            raise _unreadable(exc.message, "pyproject.toml", exc.line or 0) from None
        section = data.get("tool", {}).get("kgtool")
        if section is not None:
            return Config(
                _validated(section, "pyproject.toml", lambda key: _toml_line(text, key)),
                "pyproject.toml",
            )
    return Config(copy.deepcopy(DEFAULTS), "defaults")


def _unreadable(message: str, source: str, line: int = 0) -> ManyErrors:
    return ManyErrors([Finding(source, line, ERROR, UNREADABLE, message)])


def _read(root: Path, name: str) -> str:
    """The settings file: a regular file of the repository (a link out of it could make
    a pull request's check read, and echo, any file of the runner)."""
    if not bounded.inside(root, root / name):
        raise _unreadable("leads outside the repository (a symlink); not read", name)
    try:
        data = bounded.read_file(root / name, name, bounded.SETTINGS_BYTES)
    except bounded.Unreadable as exc:
        raise _unreadable(exc.message, name) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise _unreadable("is not valid UTF-8", name, line) from exc


class _Problems:
    """The settings errors of one file, collected so that all are reported together."""

    def __init__(self, source: str, line_of: Any) -> None:
        self.source = source
        self.line_of = line_of
        self.found: list[Finding] = []

    def add(self, code: str, dotted: str, message: str) -> None:
        line = self.line_of(dotted) or 0
        self.found.append(Finding(self.source, line, ERROR, code, message))


def _validated(data: Any, source: str, line_of: Any) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise _unreadable("the settings must be a mapping of keys to values", source, 1)
    problems = _Problems(source, line_of)
    values = _merge(DEFAULTS, data, problems, "")
    if problems.found:
        # In file order: the order the user reads (and fixes) them in.
        raise ManyErrors(sorted(problems.found, key=lambda f: f.line))
    return values


def _merge(
    defaults: dict[str, Any], data: dict[str, Any], problems: _Problems, prefix: str
) -> dict[str, Any]:
    result = copy.deepcopy(defaults)
    for key, value in data.items():
        dotted = f"{prefix}{key}"
        if key not in defaults:
            problems.add(UNKNOWN_KEY, dotted, _unknown_key(str(key), dotted, defaults))
            continue
        default = defaults[key]
        if dotted == "communities.boundaries":
            boundaries = _boundaries(value)
            if boundaries is None:
                message = f"'{dotted}' must be auto, off, or a list of package root globs"
                problems.add(WRONG_TYPE, dotted, message)
            else:
                result[key] = boundaries
            continue
        if dotted == "communities.families":
            families = _families(value)
            if families is None:
                close = _close_matches(str(value), list(FAMILIES), n=1)
                hint = f": did you mean '{close[0]}'?" if close else ""
                message = f"'{dotted}' must be auto or off, not {value!r}{hint}"
                problems.add(WRONG_TYPE, dotted, message)
            else:
                result[key] = families
            continue
        if dotted == "communities.data_groups" and value not in DATA_GROUPS:
            close = _close_matches(str(value), list(DATA_GROUPS), n=1)
            hint = f": did you mean '{close[0]}'?" if close else ""
            message = f"'{dotted}' must be kind or folder, not {value!r}{hint}"
            problems.add(WRONG_TYPE, dotted, message)
            continue
        if isinstance(default, dict):
            if not isinstance(value, dict):
                problems.add(WRONG_TYPE, dotted, f"'{dotted}' must be a mapping")
            else:
                result[key] = _merge(default, value, problems, f"{dotted}.")
            continue
        if not _same_type(default, value):
            problems.add(
                WRONG_TYPE,
                dotted,
                f"'{dotted}' must be {_type_name(default)}, not {_type_name(value)}",
            )
            continue
        if isinstance(default, list) and not all(isinstance(item, str) for item in value):
            problems.add(WRONG_TYPE, dotted, f"'{dotted}' must be a list of strings")
            continue
        problem = _out_of_range(dotted, value)
        if problem:
            problems.add(OUT_OF_RANGE, dotted, f"'{dotted}' {problem}, not {value!r}")
            continue
        if dotted == "ignore" and not _codes_known(value, problems):
            continue
        result[key] = value
    return result


def _boundaries(value: Any) -> str | list[str] | None:
    """``communities.boundaries`` as layer 2 reads it ("auto" or a list); None if invalid.

    YAML 1.1 reads a bare ``off`` as false, so false means off too.
    """
    if value == "auto":
        return "auto"
    if value is False or value == "off":
        return []
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return value
    return None


FAMILIES = ("auto", "off")
DATA_GROUPS = ("kind", "folder")


def _families(value: Any) -> str | None:
    """``communities.families`` as layer 2 reads it ("auto" or "off"); None if invalid.

    YAML 1.1 reads a bare ``off`` as false, so false means off too.
    """
    if value is False:
        return "off"
    return value if value in FAMILIES else None


def _unknown_key(key: str, dotted: str, defaults: dict[str, Any]) -> str:
    close = _close_matches(key, list(defaults), n=1)
    if close:
        return f"unknown setting '{dotted}': did you mean '{close[0]}'?"
    return f"unknown setting '{dotted}' (known here: {', '.join(sorted(defaults))})"


def _codes_known(codes: list[str], problems: _Problems) -> bool:
    """Whether every entry of ``ignore`` is a finding code that may be silenced."""
    good = True
    for index, code in enumerate(codes):
        where = f"ignore[{index}]"
        if code.startswith(UNSILENCEABLE_PREFIX) and code in CODES:
            problems.add(UNKNOWN_CODE, where, f"'{code}' is a settings error: it cannot be ignored")
            good = False
        elif code in FRESHNESS_CODES:
            problems.add(
                UNKNOWN_CODE,
                where,
                f"'{code}' says .kg/ is not what `kgtool update` writes: it cannot be ignored",
            )
            good = False
        elif code not in CODES:
            close = _close_matches(code.upper(), list(CODES), n=1)
            hint = f": did you mean '{close[0]}'?" if close else " (docs/findings.md lists them)"
            problems.add(UNKNOWN_CODE, where, f"'ignore' names no finding code '{code}'{hint}")
            good = False
    return good


def _out_of_range(dotted: str, value: Any) -> str:
    """Why a number is not allowed for this setting; "" when it is (or is not a number)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return ""
    if not math.isfinite(value):
        return "must be a finite number"
    low, high = RANGES.get(dotted) or RANGES.get(dotted.rpartition(".")[0] + ".*") or (None, None)
    if low is not None and value < low:
        if high is not None:
            return f"must be between {_bound(low)} and {_bound(high)}"
        return "must be positive" if 0 < low < 1 else f"must be at least {_bound(low)}"
    if high is not None and value > high:
        return f"must be between {_bound(low)} and {_bound(high)}"
    return ""


def _bound(value: float | None) -> str:
    if value is not None and 0 < value < 1e-6:
        return "just above 0"
    return f"{value:g}" if isinstance(value, float) else str(value)


def _same_type(default: Any, value: Any) -> bool:
    if isinstance(default, bool) or isinstance(value, bool):
        return isinstance(default, bool) and isinstance(value, bool)
    if isinstance(default, float):
        return isinstance(value, (int, float))
    return isinstance(value, type(default))


def _type_name(value: Any) -> str:
    return {
        bool: "true or false",
        int: "a whole number",
        float: "a number",
        str: "a string",
        list: "a list",
        dict: "a mapping",
    }.get(type(value), type(value).__name__)


def _yaml_lines(node: yaml.Node | None, prefix: str = "") -> dict[str, int]:
    """Dotted key -> 1-based line of that key in the YAML document; ``key[i]`` -> the line of
    a list's i-th item."""
    import yaml

    lines: dict[str, int] = {}
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            dotted = f"{prefix}{key_node.value}"
            lines[dotted] = key_node.start_mark.line + 1
            if isinstance(value_node, yaml.SequenceNode):
                for index, item in enumerate(value_node.value):
                    lines[f"{dotted}[{index}]"] = item.start_mark.line + 1
            lines.update(_yaml_lines(value_node, f"{dotted}."))
    return lines


def _toml_line(text: str, dotted: str) -> int | None:
    key = re.escape(dotted.split("[", 1)[0].rsplit(".", 1)[-1])
    for number, line in enumerate(text.splitlines(), 1):
        if re.match(rf"\s*\"?{key}\"?\s*=", line):
            return number
    return None


def _close_matches(word: str, candidates: list[str], n: int) -> list[str]:
    """difflib's, imported only when a setting is misspelled."""
    import difflib

    return difflib.get_close_matches(word, candidates, n=n)
