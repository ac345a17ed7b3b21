"""Layer 3 on scripted histories: labels with evidence, drift, lineage, and people's word."""

from __future__ import annotations

import json
import random
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from communities_helpers import clique, communities, community_of, update
from conftest import Repo
from fake_anthropic import (
    FakeAnthropic,
    batch,
    fake_anthropic_fixture,  # noqa: F401 (the fake_anthropic fixture)
    server_error,
)

from kgtool.ontology.evidence import community_evidence, jaccard
from kgtool.ontology.model import Ontology, dump_ontology, parse_ontology

SETTINGS = ".kgtool.yaml"
# Every edge gets a phrase in these small repositories.
PHRASE_ALL = "ontology:\n  min_edge_count: 1\n"


def packages() -> dict[str, str]:
    return {
        SETTINGS: PHRASE_ALL,
        **clique("alpha", ["a0", "a1", "a2", "a3"], {"a0": ["beta.b0.beta_b0"]}),
        **clique("beta", ["b0", "b1", "b2", "b3"]),
        **clique("gamma", ["g0", "g1", "g2", "g3"], {"g1": ["beta.b2.beta_b2"]}),
    }


def ontology_of(repo: Repo) -> dict:
    return yaml.safe_load((repo.root / ".kg" / "ontology.yaml").read_text())


def label(repo: Repo, *args: str) -> str:
    result = repo.kg("label", *args)
    assert result.code == 0, result.out + result.err
    return result.out


def kg_bytes(repo: Repo) -> dict[str, bytes]:
    kg = repo.root / ".kg"
    return {
        str(p.relative_to(kg)): p.read_bytes()
        for p in sorted(kg.rglob("*"))
        if p.is_file() and "cache" not in p.parts
    }


@pytest.fixture
def labelled(make_repo: Callable[..., Repo]) -> Repo:
    repo = make_repo(packages())
    update(repo)
    label(repo, "--offline")
    repo.commit("labels")
    return repo


def test_offline_labels_carry_evidence_and_name_the_map(make_repo: Callable[..., Repo]) -> None:
    repo = make_repo(packages())
    update(repo)
    assert "(unlabelled)" in (repo.root / ".kg" / "MAP.md").read_text()
    assert not (repo.root / ".kg" / "ontology.yaml").exists()  # update never writes layer 3
    out = label(repo, "--offline")
    assert "wrote .kg/ontology.yaml: 4 names, 2 phrases (offline)" in out
    document = ontology_of(repo)
    beta = community_of(repo, "beta/b0.py")
    entry = document["communities"][beta]
    head = repo.git("rev-parse", "HEAD").strip()
    assert entry["by"] == "offline" and entry["at"] == head[:12]
    assert entry["evidence"]["members"] == [f"beta/b{i}.py" for i in range(4)]
    assert entry["evidence"]["in"] == {"calls": {"EXTRACTED": 2}, "imports": {"EXTRACTED": 2}}
    alpha = community_of(repo, "alpha/a0.py")
    edge = document["edges"][f"{alpha}->{beta}"]
    assert edge["evidence"]["types"] == {"calls": {"EXTRACTED": 1}, "imports": {"EXTRACTED": 1}}
    map_text = (repo.root / ".kg" / "MAP.md").read_text()
    assert f"[{beta} · {entry['name']}](communities/{beta}.md) |" in map_text
    assert ") (unlabelled)" not in map_text and ") (drifted)" not in map_text
    assert f"{edge['phrase']}: calls×1" in map_text
    # Nothing left to do; a second run writes nothing.
    before = kg_bytes(repo)
    assert "nothing to label" in label(repo, "--offline")
    assert kg_bytes(repo) == before


def test_offline_labelling_is_deterministic_and_check_writes_nothing(
    make_repo: Callable[..., Repo],
) -> None:
    repo = make_repo(packages())
    label(repo, "--offline")  # label refreshes .kg/ first, as update does
    first = kg_bytes(repo)
    shutil.rmtree(repo.root / ".kg")
    label(repo, "--offline")
    assert kg_bytes(repo) == first
    repo.commit("labels")
    labelled = repo
    first = kg_bytes(labelled)
    check = labelled.kg("check")
    assert check.code == 0, check.out
    assert "ok: labels" in check.out and "drifted" not in check.out
    assert kg_bytes(labelled) == first


def test_a_small_change_does_not_drift_a_large_one_does(labelled: Repo) -> None:
    beta = community_of(labelled, "beta/b0.py")
    labelled.write_files(clique("beta", ["b0", "b1", "b2", "b3", "b4"]))
    labelled.commit("beta grows by one")
    update(labelled)
    check = labelled.kg("check")
    assert check.code == 0 and "drifted" not in check.out, check.out
    labelled.write_files(clique("beta", [f"b{i}" for i in range(8)]))
    labelled.commit("beta doubles")
    out = update(labelled)
    assert "1 label(s) drifted; run `kgtool label`" in out
    check = labelled.kg("check")
    assert check.code == 0  # a warning by default
    line = next(
        n
        for n, text in enumerate((labelled.root / ".kg/ontology.yaml").read_text().splitlines(), 1)
        if text.strip() == f"{beta}:"
    )
    name = ontology_of(labelled)["communities"][beta]["name"]
    expected = (
        f".kg/ontology.yaml:{line}: warning: L301 label '{name}' of {beta} drifted: "
        "members 0.50 > 0.30 "
        "(written for 4 files, now 8: 4 joined, 0 left)"
    )
    assert expected in check.out
    map_text = (labelled.root / ".kg" / "MAP.md").read_text()
    assert f"[{beta} · {name}](communities/{beta}.md) (drifted)" in map_text
    page = (labelled.root / ".kg" / "communities" / f"{beta}.md").read_text()
    assert "Drifted: this label was written for a community that has changed" in page
    labelled.write(SETTINGS, PHRASE_ALL + "  fail_on_drift: true\n")
    failed = labelled.kg("check")
    assert failed.code == 1 and "FAILED: labels" in failed.out
    # Relabelling writes fresh evidence; the drift is gone.
    out = label(labelled, "--offline")
    assert f"{beta}:" in out
    assert ontology_of(labelled)["communities"][beta]["evidence"]["members"] == [
        f"beta/b{i}.py" for i in range(8)
    ]
    assert labelled.kg("check").code == 0


def test_member_drift_is_read_from_the_settings(labelled: Repo) -> None:
    beta = community_of(labelled, "beta/b0.py")
    labelled.write_files(clique("beta", ["b0", "b1", "b2", "b3", "b4"]))
    labelled.commit("beta grows by one")
    update(labelled)
    assert "drifted" not in labelled.kg("check").out  # 0.20, under the default 0.3
    labelled.write(SETTINGS, PHRASE_ALL + "  member_drift: 0.1\n")
    update(labelled)
    check = labelled.kg("check").out
    assert f"of {beta} drifted: members 0.20 > 0.10 (written for 4 files, now 5" in check, check
    labelled.write_files(clique("beta", [f"b{i}" for i in range(8)]))
    labelled.write(SETTINGS, PHRASE_ALL + "  member_drift: 0.6\n")
    labelled.commit("beta doubles")
    update(labelled)
    assert "drifted" not in labelled.kg("check").out  # 0.50, under 0.6


def test_edge_drift_is_read_from_the_settings(labelled: Repo) -> None:
    alpha, beta = community_of(labelled, "alpha/a0.py"), community_of(labelled, "beta/b0.py")
    # Every alpha file now calls beta: the edge goes from calls×1 + imports×1 to ×4 each.
    labelled.write_files(clique("alpha", ["a0", "a1", "a2", "a3"],
                                {f"a{i}": ["beta.b0.beta_b0"] for i in range(4)}))  # fmt: skip
    labelled.commit("all of alpha calls beta")
    update(labelled)
    assert community_of(labelled, "alpha/a3.py") == alpha
    check = labelled.kg("check").out
    assert f"of {alpha}->{beta} drifted: counts 0.75 > 0.50" in check, check
    labelled.write(SETTINGS, PHRASE_ALL + "  edge_drift: 0.8\n")
    update(labelled)
    assert "drifted" not in labelled.kg("check").out  # 0.75 (and 0.60 into beta), under 0.8
    labelled.write(SETTINGS, PHRASE_ALL + "  edge_drift: 0.7\n")
    update(labelled)
    check = labelled.kg("check").out
    assert f"of {alpha}->{beta} drifted: counts 0.75 > 0.70" in check, check


def test_an_edge_type_appearing_drifts_the_phrase(labelled: Repo) -> None:
    alpha, beta = community_of(labelled, "alpha/a0.py"), community_of(labelled, "beta/b0.py")
    labelled.write(
        "beta/b0.py", (labelled.root / "beta/b0.py").read_text() + "class Base:\n    pass\n"
    )
    labelled.write(
        "alpha/a3.py",
        (labelled.root / "alpha/a3.py").read_text()
        + "from beta.b0 import Base\nclass Thing(Base):\n    pass\n"
        + "class Other(Base):\n    pass\n",
    )
    labelled.commit("alpha extends a beta class")
    update(labelled)
    check = labelled.kg("check")
    assert f"phrase '{ontology_of(labelled)['edges'][f'{alpha}->{beta}']['phrase']}'" in check.out
    assert f"of {alpha}->{beta} drifted: counts: inherits appeared" in check.out


def test_a_split_child_inherits_its_parents_label_marked_drifted(
    make_repo: Callable[..., Repo],
) -> None:
    names = [f"s{i}" for i in range(8)]
    repo = make_repo({**packages(), **clique("big", names)})
    update(repo)
    parent = community_of(repo, "big/s0.py")
    label(repo, "--set", parent, "Big engine")
    repo.commit("named")
    repo.write_files({**clique("big", names[:5]), **clique("big", names[5:])})
    repo.commit("split big")
    update(repo)
    child = community_of(repo, "big/s5.py")
    assert communities(repo)["communities"][child]["split_from"] == parent
    map_text = (repo.root / ".kg" / "MAP.md").read_text()
    assert f"[{child} · Big engine](communities/{child}.md) (drifted)" in map_text
    check = repo.kg("check")
    assert f"{child} shows the label 'Big engine' of {parent} drifted: split" in check.out
    # The labeler names the child; the parent's human label is flagged, never overwritten.
    out = label(repo, "--offline")
    labels = ontology_of(repo)["communities"]
    assert labels[child]["by"] == "offline" and labels[child]["name"] != "Big engine"
    assert labels[parent]["name"] == "Big engine" and labels[parent]["by"] == "human"
    assert f"human label 'Big engine' of {parent} drifted" in out
    label(repo, "--accept", parent)
    assert "drifted" not in repo.kg("check").out


def test_a_merge_flags_the_survivor_and_retires_the_absorbed_label(
    make_repo: Callable[..., Repo],
) -> None:
    repo = make_repo(
        {
            SETTINGS: PHRASE_ALL,
            **clique("left", [f"l{i}" for i in range(8)]),
            **clique("right", ["r0", "r1"], {"r0": ["left.l0.left_l0"]}),
            **clique("other", ["o0", "o1", "o2", "o3"]),
        }
    )
    update(repo)
    left, right = community_of(repo, "left/l0.py"), community_of(repo, "right/r0.py")
    label(repo, "--set", left, "Left side")
    label(repo, "--set", right, "Right side")
    repo.commit("named")
    calls = {f"r{i}": [f"left.l{j}.left_l{j}" for j in range(8)] for i in range(2)}
    repo.write_files(clique("right", ["r0", "r1"], calls))
    repo.commit("right merges into left")
    update(repo)
    assert communities(repo)["retired"][right] == {"merged_into": left}
    check = repo.kg("check")
    assert f"label 'Left side' of {left} drifted: " in check.out
    assert f"merged (absorbed {right} ('Right side'))" in check.out
    # A retired ID's label stays, marked retired, and never moves to another community.
    label(repo, "--accept", left)
    labels = ontology_of(repo)["communities"]
    assert labels[right] == {**labels[right], "retired": True, "merged_into": left}
    assert "drifted" not in repo.kg("check").out
    repo.write_files(clique("fresh", ["f0", "f1", "f2"]))
    repo.commit("a new package")
    update(repo)
    fresh = community_of(repo, "fresh/f0.py")
    assert fresh != right
    map_text = (repo.root / ".kg" / "MAP.md").read_text()
    assert "Right side" not in map_text
    assert f"[{fresh} · " in map_text and f"{fresh}.md) (unlabelled)" in map_text


def test_set_and_accept_are_a_persons_word(labelled: Repo) -> None:
    beta = community_of(labelled, "beta/b0.py")
    alpha = community_of(labelled, "alpha/a0.py")
    label(labelled, "--set", beta, "Beta core", "--summary", "The shared beta functions.")
    label(labelled, "--set", f"{alpha}->{beta}", "builds on")
    labels = ontology_of(labelled)
    assert labels["communities"][beta]["name"] == "Beta core"
    assert labels["communities"][beta]["by"] == "human"
    assert labels["edges"][f"{alpha}->{beta}"] == {
        **labels["edges"][f"{alpha}->{beta}"],
        "phrase": "builds on",
        "by": "human",
    }
    assert "builds on: calls×1" in (labelled.root / ".kg" / "MAP.md").read_text()
    bad = labelled.kg("label", "--set", beta, "**Beta** [core](http://x)")
    assert bad.code == 2 and bad.err.count("\n") == 1 and beta in bad.err
    taken = labelled.kg("label", "--set", alpha, "beta CORE")
    assert taken.code == 2 and "already" in taken.err
    unknown = labelled.kg("label", "--accept", "c99")
    assert unknown.code == 2 and "c99 is not a community" in unknown.err
    # The labeler never overwrites a human label, even with --relabel.
    label(labelled, "--offline", "--relabel")
    assert ontology_of(labelled)["communities"][beta]["name"] == "Beta core"


def test_ignoring_drift_silences_it_even_when_drift_fails(labelled: Repo) -> None:
    labelled.write(".kgtool.yaml", "ontology:\n  fail_on_drift: true\n")
    labelled.write_files(clique("beta", [f"b{i}" for i in range(8)]))
    labelled.commit("beta doubles")
    assert "1 label(s) drifted" in update(labelled)
    failed = labelled.kg("check")
    assert failed.code == 1
    assert ": error: L301 label '" in failed.out and "FAILED: labels" in failed.out
    labelled.write(".kgtool.yaml", "ontology:\n  fail_on_drift: true\nignore: [L301]\n")
    labelled.commit("drift silenced")
    assert "drifted" not in update(labelled)
    passed = labelled.kg("check")
    assert passed.code == 0, passed.out
    assert "L301" not in passed.out and "ok: labels" in passed.out


def test_hand_edits_are_read_and_bad_ones_named_by_line(labelled: Repo) -> None:
    path = labelled.root / ".kg" / "ontology.yaml"
    beta = community_of(labelled, "beta/b0.py")
    text = path.read_text()
    head, _, rest = text.partition("\ncommunities:\n")
    path.write_text(f"{head}\ncommunities:\n  c77:\n    name: Ghost\n    colour: blue\n{rest}")
    check = labelled.kg("check")
    line = len(head.splitlines()) + 4
    assert check.code == 1
    assert (
        f".kg/ontology.yaml:{line}: error: L300 community 'c77': unknown field 'colour'"
        in check.out
    )
    assert "FAILED: labels" in check.out
    failed = labelled.kg("update")
    assert failed.code == 2 and f".kg/ontology.yaml:{line}:" in failed.err
    path.write_text(f"communities:\n  {beta}:\n    name: Hand written\n")
    update(labelled)
    assert f"[{beta} · Hand written]" in (labelled.root / ".kg" / "MAP.md").read_text()
    check = labelled.kg("check")
    assert check.code == 0
    assert f"'Hand written' ({beta}) has no evidence" in check.out


def test_diff_reports_label_changes_in_words(labelled: Repo) -> None:
    base = labelled.git("rev-parse", "HEAD").strip()
    beta = community_of(labelled, "beta/b0.py")
    old = ontology_of(labelled)["communities"][beta]["name"]
    label(labelled, "--set", beta, "Beta core")
    labelled.commit("rename beta")
    out = labelled.kg("diff", base, "HEAD")
    assert out.code == 0, out.err
    assert f"renamed: {beta} '{old}' -> 'Beta core'" in out.out


def test_a_playbook_concept_on_a_drifted_label_warns(labelled: Repo) -> None:
    beta = community_of(labelled, "beta/b0.py")
    label(labelled, "--set", beta, "Beta core")
    labelled.write(
        "playbooks/p.md",
        "---\nintent: Change beta.\nconcepts: [Beta core]\nkey_files: [beta/b0.py]\n"
        "validation: [pytest]\npitfalls: [none]\nrollback: nothing\n---\n",
    )
    labelled.write_files(clique("beta", [f"b{i}" for i in range(8)]))
    labelled.commit("beta doubles")
    update(labelled)
    check = labelled.kg("playbooks", "check")
    assert check.code == 0
    assert f"concept 'Beta core' ({beta}) is stale: members 0.50 > 0.30" in check.out


def test_the_ontology_file_round_trips() -> None:
    evidence = community_evidence(
        ["a.py", "b.py"], {"calls": {"EXTRACTED": 3}}, {"imports": {"INFERRED": 1}}, 10
    )
    from kgtool.ontology.model import CommunityLabel, EdgeLabel

    ontology = Ontology(
        {"c2": CommunityLabel("c2", "Two words", "A sentence.", "offline", "abc", evidence)},
        {"c2->c3": EdgeLabel("c2", "c3", "calls into", "human", "abc", evidence)},
    )
    data = dump_ontology(ontology)
    again = parse_ontology(data)
    assert dump_ontology(again) == data
    assert again.communities["c2"].evidence == evidence


def test_the_member_sketch_estimates_jaccard_within_its_stated_error() -> None:
    rng = random.Random(7)
    errors = []
    for _ in range(200):
        universe = [f"src/m{i}.py" for i in range(rng.randint(400, 900))]
        old = rng.sample(universe, rng.randint(220, 280))
        keep = rng.sample(old, int(len(old) * rng.uniform(0.4, 1.0)))
        new = keep + rng.sample([p for p in universe if p not in old], rng.randint(0, 80))
        sketched = community_evidence(sorted(old), {}, {}, exact_members=200)
        assert sketched.sketch and not sketched.members
        exact = len(set(old) & set(new)) / len(set(old) | set(new))
        errors.append(abs(jaccard(sketched, new) - exact))
    errors.sort()
    assert errors[len(errors) // 2] < 0.03  # median
    assert errors[int(len(errors) * 0.95)] < 0.09  # about two standard errors


def test_update_never_writes_the_ontology(labelled: Repo) -> None:
    before = (labelled.root / ".kg" / "ontology.yaml").read_bytes()
    labelled.write_files(clique("beta", [f"b{i}" for i in range(8)]))
    labelled.commit("change")
    update(labelled)
    assert (labelled.root / ".kg" / "ontology.yaml").read_bytes() == before


LLM_SETTINGS = PHRASE_ALL + "  max_retries: 0\n  timeout: 3\n"


@pytest.fixture
def claude(fake_anthropic: FakeAnthropic, monkeypatch: pytest.MonkeyPatch) -> FakeAnthropic:
    """``kgtool label`` talks to the fake API through the SDK's own environment variables."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake_anthropic.url)
    return fake_anthropic


def test_label_asks_claude_when_a_key_is_set(
    make_repo: Callable[..., Repo], claude: FakeAnthropic
) -> None:
    repo = make_repo({**packages(), SETTINGS: LLM_SETTINGS})
    out = label(repo)
    assert "(llm:claude-haiku-4-5)" in out
    beta = community_of(repo, "beta/b0.py")
    entry = ontology_of(repo)["communities"][beta]
    assert entry["name"] == f"Group {beta} code" and entry["by"] == "llm:claude-haiku-4-5"
    assert entry["evidence"]["members"] == [f"beta/b{i}.py" for i in range(4)]
    # Communities first, then the edges, phrased with the names just written.
    sent = [batch(body) for body in claude.requests]
    assert "edges" in sent[-1] and "communities" not in sent[-1]
    assert f"Group {beta} code" in json.dumps(sent[-1])
    assert f"[{beta} · Group {beta} code]" in (repo.root / ".kg" / "MAP.md").read_text()


def test_a_failing_api_changes_no_label(labelled: Repo, claude: FakeAnthropic) -> None:
    labelled.write(SETTINGS, LLM_SETTINGS)
    labelled.write_files(clique("beta", [f"b{i}" for i in range(8)]))
    labelled.commit("beta doubles: its label drifts")
    update(labelled)
    before = kg_bytes(labelled)
    claude.script(server_error())
    failed = labelled.kg("label")
    assert failed.code == 4, failed.out + failed.err
    assert failed.err.count("\n") == 1 and "HTTP 500" in failed.err
    assert "no label was changed" in failed.err
    assert kg_bytes(labelled) == before


def test_dry_run_says_what_would_be_sent_without_a_key(
    make_repo: Callable[..., Repo], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    repo = make_repo(packages())
    update(repo)
    before = kg_bytes(repo)
    out = label(repo, "--dry-run")
    assert "would label 4 communities" in out and "would phrase 2 edges" in out
    assert "would send 2 requests to claude-haiku-4-5" in out and "input tokens" in out
    assert kg_bytes(repo) == before


def test_a_folder_group_drifts_when_its_folders_change_not_its_files(
    make_repo: Callable[..., Repo],
) -> None:
    notes = {f"changelog/{n}.md": f"# change {n}\n" for n in range(4)}
    repo = make_repo({**packages(), **notes})
    label(repo, "--offline")
    repo.commit("labels")
    group = community_of(repo, "changelog/0.md")
    for n in range(2):
        (repo.root / f"changelog/{n}.md").unlink()
    repo.write_files({f"changelog/{n}.md": f"# change {n}\n" for n in range(10, 14)})
    repo.commit("a release: half the fragments go, four come")
    update(repo)
    assert community_of(repo, "changelog/10.md") == group
    assert "drifted" not in repo.kg("check").out
    repo.write_files({f"changelog/old/{n}.md": "# old\n" for n in range(3)})
    repo.write_files({f"changelog/new/{n}.md": "# new\n" for n in range(3)})
    repo.commit("fragments move into folders")
    update(repo)
    assert community_of(repo, "changelog/old/0.md") == group
    check = repo.kg("check").out
    assert f"of {group} drifted: folders " in check, check
    assert "changelog/, changelog/new/, changelog/old/)" in check


def test_one_call_vanishing_is_not_a_new_relationship(labelled: Repo) -> None:
    alpha, beta = community_of(labelled, "alpha/a0.py"), community_of(labelled, "beta/b0.py")
    edges = {(e["src"], e["dst"]): e for e in communities(labelled)["edges"]}
    assert edges[(alpha, beta)]["types"] == {"calls": {"EXTRACTED": 1}, "imports": {"EXTRACTED": 1}}
    # calls was half of the edge's weight (over type_share) but one edge, under MIN_EDGES.
    text = (labelled.root / "alpha/a0.py").read_text().replace("    beta_b0()\n", "")
    labelled.write("alpha/a0.py", text)
    labelled.commit("alpha imports beta but no longer calls it")
    update(labelled)
    edges = {(e["src"], e["dst"]): e for e in communities(labelled)["edges"]}
    assert edges[(alpha, beta)]["types"] == {"imports": {"EXTRACTED": 1}}
    assert "drifted" not in labelled.kg("check").out


def test_label_retires_the_phrase_of_an_edge_that_is_gone(labelled: Repo) -> None:
    alpha, beta = community_of(labelled, "alpha/a0.py"), community_of(labelled, "beta/b0.py")
    key = f"{alpha}->{beta}"
    labelled.write_files(clique("alpha", ["a0", "a1", "a2", "a3"]))
    labelled.commit("alpha no longer uses beta")
    update(labelled)
    assert (alpha, beta) not in {(e["src"], e["dst"]) for e in communities(labelled)["edges"]}
    assert f"of {key} drifted: edge vanished" in labelled.kg("check").out
    assert "`kgtool label` retires it" in labelled.kg("check").out
    # Neither --accept nor --set can take a gone edge: the labeler must clear it.
    assert labelled.kg("label", "--accept", key).code == 2
    assert f"retired the phrases of 1 edge(s) that are gone: {key}" in label(labelled, "--offline")
    assert ontology_of(labelled)["edges"][key]["retired"] is True
    check = labelled.kg("check")
    assert check.code == 0 and "drifted" not in check.out, check.out
    assert "nothing to label" in label(labelled, "--offline")


def test_a_distance_exactly_at_the_threshold_is_not_drift(tmp_path: Path) -> None:
    from kgtool.config import load_config
    from kgtool.ontology.drift import community_drifts
    from kgtool.ontology.view import drift_settings

    old = [f"src/m{i}.py" for i in range(14)]
    new = old + [f"src/n{i}.py" for i in range(6)]  # Jaccard 14/20: distance 0.3 exactly
    settings = drift_settings(load_config(tmp_path))
    evidence = community_evidence(old, {}, {}, exact_members=200)
    assert community_drifts(evidence, new, {}, {}, settings) == []
    assert community_drifts(evidence, [*new, "src/x.py"], {}, {}, settings)


def test_a_first_labelling_is_one_line_per_kind_in_the_changelog(
    make_repo: Callable[..., Repo],
) -> None:
    from test_communities_guards import ring_of_triangles

    repo = make_repo({SETTINGS: PHRASE_ALL, **ring_of_triangles()})
    update(repo)
    repo.commit("map")
    base = repo.git("rev-parse", "HEAD").strip()
    label(repo, "--offline")
    repo.commit("labels")
    out = repo.kg("diff", base, "HEAD")
    assert out.code == 0, out.err
    named = [line.strip() for line in out.out.splitlines() if "named: " in line]
    count = len(json.loads((repo.root / ".kg" / "communities.json").read_text())["communities"])
    assert count > 5
    assert named == [
        f"named: {count} communities ({count} by offline; .kg/ontology.yaml lists them)"
    ]
    phrased = [line.strip() for line in out.out.splitlines() if "phrased: " in line]
    assert len(phrased) == 1 and phrased[0].endswith(" edges (.kg/ontology.yaml lists them)")
