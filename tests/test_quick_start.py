"""README's quick start, run as a new user runs it: in a repository that is not kgtool, with
kgtool installed from this checkout into a fresh environment, every line of the block in
order, the hook from the README's configuration, then one commit that passes first try."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import GIT_ENV, PROJECT_ROOT, Repo
from test_hooks import HookSource, hook_source  # noqa: F401 (the fixture)

pytestmark = pytest.mark.slow

README = PROJECT_ROOT / "README.md"


def _blocks(section: str, language: str) -> list[str]:
    text = README.read_text()
    start = text.index(f"## {section}\n")
    end = text.find("\n## ", start + 1)
    body = text[start : end if end != -1 else len(text)]
    return re.findall(rf"```{language}\n(.*?)```", body, re.DOTALL)


def test_the_quick_start_works_as_written(
    make_repo,
    hook_source: HookSource,  # noqa: F811
    tmp_path: Path,
) -> None:
    [script] = _blocks("Quick start", "sh")
    [config] = _blocks("Quick start", "yaml")
    lines = [line.split("  #")[0].strip() for line in script.splitlines() if line.strip()]
    assert len(lines) <= 15, "the quick start is at most 15 lines"
    # What the README installs from GitHub, installed from this checkout (committed as is).
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    install = lines.pop(0)
    assert install.startswith("pip install ") and "kgtool" in install, install
    subprocess.run([venv / "bin" / "python", "-m", "pip", "install", "--quiet",
                    "--disable-pip-version-check", str(hook_source.repo)], check=True)  # fmt: skip
    # A small project where the README's example task has something to find.
    repo: Repo = make_repo({
        "app/providers/base.py": "class Provider:\n    def complete(self, prompt):\n"
                                 "        raise NotImplementedError\n",
        "app/providers/openai.py": "from app.providers.base import Provider\n\n\n"
                                   "class OpenAIProvider(Provider):\n"
                                   "    def complete(self, prompt):\n        return prompt\n",
        "app/llm.py": "from app.providers.openai import OpenAIProvider\n\n\n"
                      "def ask(prompt):\n    return OpenAIProvider().complete(prompt)\n",
        "app/orders.py": "class Order:\n    def total(self):\n        return 1\n",
    })  # fmt: skip
    repo.write(".pre-commit-config.yaml", config.replace("https://github.com/OWNER/kgtool",
               str(hook_source.repo)).replace("v0.1.0", hook_source.rev))  # fmt: skip
    repo.commit("the hook's configuration")
    env = {key: value for key, value in os.environ.items() if key != "ANTHROPIC_API_KEY"}
    env.update(GIT_ENV)
    # kgtool from the new environment first; pre-commit from this one's (the user's).
    env["PATH"] = os.pathsep.join([str(venv / "bin"), str(Path(sys.executable).parent),
                                   env.get("PATH", "")])  # fmt: skip
    env["PRE_COMMIT_HOME"] = str(hook_source.home)
    env.pop("PYTHONPATH", None)
    outputs = {}
    for line in lines:
        if line.startswith("cd "):
            continue  # the scratch repository is where every line runs
        done = subprocess.run(line, shell=True, cwd=repo.root, env=env, capture_output=True,
                              text=True, timeout=900)  # fmt: skip
        assert done.returncode == 0, (line, done.stdout, done.stderr)
        outputs[shlex.split(line)[1] if line.startswith("kgtool") else line] = done.stdout
    assert (repo.root / ".kg" / "MAP.md").is_file() and (repo.root / ".kg/ontology.yaml").is_file()
    # The README's example task finds what it is about.
    assert "matches the task's words" not in outputs["context"], outputs["context"]
    assert "app/" in outputs["context"], outputs["context"]
    # One commit, through the hook, that passes the first time and carries its .kg/.
    trimmed = "def ask(prompt):\n    return OpenAIProvider().complete(prompt.strip())\n"
    repo.write("app/llm.py", "from app.providers.openai import OpenAIProvider\n\n\n" + trimmed)
    committed = subprocess.run(["git", "commit", "-qam", "Trim prompts"], cwd=repo.root, env=env,
                               capture_output=True, text=True, timeout=900)  # fmt: skip
    assert committed.returncode == 0, committed.stdout + committed.stderr
    changed = repo.git("show", "--name-only", "--format=", "HEAD").split()
    assert "app/llm.py" in changed and any(p.startswith(".kg/") for p in changed), changed
    assert repo.git("status", "--porcelain").strip() == ""
