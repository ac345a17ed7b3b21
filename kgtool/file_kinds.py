"""What a path is by its folders and name alone: data and tests.

One definition for the three places that ask: layer 2 keeps data apart from code, layer 3's
offline labeler gives each file a role, and the miner tells a change's tests from its code.
Folder names are compared lower-cased (``Fixtures/`` is data too).
"""

from __future__ import annotations

import posixpath
import re

# Folders whose contents are inputs and recordings for tests, not the repository's code.
DATA_FOLDERS = frozenset(
    {
        "fixtures",
        "fixture",
        "testdata",
        "testcases",
        "test_cases",
        "test_data",
        "__fixtures__",
        "__snapshots__",
        "snapshots",
        "cassettes",
    }
)
# Folders a project keeps its documentation in.
DOC_FOLDERS = frozenset(
    {"docs", "doc", "documentation", "site", "website", "book", "guide", "guides", "manual"}
)
TEST_FOLDERS = frozenset(
    {"test", "tests", "__tests__", "spec", "specs", "e2e", "testing", "integration_tests"}
)
# A test file's name without its last extension: test_x, x_test, x.test, x-spec, conftest.
TEST_NAME = re.compile(r"^(test_.*|.*[_.-]tests?|.*[_.-]spec|conftest)$", re.I)
# JUnit's conventions, case and all: TestParser, ParserTest, ParserTests.
JVM_TEST_NAME = re.compile(r"^(Test[A-Z]\w*|\w+Tests?)$")
JVM_EXTENSIONS = (".java", ".kt", ".scala", ".groovy")


def folders_of(path: str) -> list[str]:
    """The folders ``path`` sits in, lower-cased, outermost first."""
    return [part.lower() for part in path.split("/")[:-1]]


def is_data_folder(folder: str) -> bool:
    """Whether ``folder`` (a repository-relative folder) is, or lies inside, a data folder."""
    return any(part.lower() in DATA_FOLDERS for part in folder.split("/") if part)


def in_data_folder(path: str) -> bool:
    return any(folder in DATA_FOLDERS for folder in folders_of(path))


def is_test(path: str) -> bool:
    """A test file: under a test folder, or named as test runners name them."""
    stem, ext = posixpath.splitext(posixpath.basename(path))
    return (
        any(folder in TEST_FOLDERS for folder in folders_of(path))
        or bool(TEST_NAME.match(stem))
        or (ext in JVM_EXTENSIONS and bool(JVM_TEST_NAME.match(stem)))
    )


# What a package manager writes for itself: never a change anyone sets out to make by hand.
LOCK_FILES = frozenset(
    {"package-lock.json", "npm-shrinkwrap.json", "pnpm-lock.yaml", "yarn.lock", "bun.lockb",
     "go.sum", "poetry.lock", "uv.lock", "cargo.lock", "gemfile.lock", "composer.lock",
     "pipfile.lock"}
)  # fmt: skip


def is_lock_file(path: str) -> bool:
    name = posixpath.basename(path).lower()
    return name in LOCK_FILES or name.endswith(".lock")


# Where a repository keeps its own machinery: CI, issue and pull-request templates, editor
# and bot settings. Changes there are upkeep of the project, not tasks in its code.
CI_FOLDERS = frozenset({".github", ".circleci", ".buildkite", ".gitlab", ".azure-pipelines"})
CI_FILES = frozenset(
    {".travis.yml", ".gitlab-ci.yml", "azure-pipelines.yml", "appveyor.yml", ".cirrus.yml",
     "jenkinsfile", ".pre-commit-config.yaml", "codecov.yml", ".codecov.yml", "renovate.json",
     ".mergify.yml", "tox.ini", "noxfile.py"}
)  # fmt: skip


def is_ci(path: str) -> bool:
    """A file of the project's own machinery (see CI_FOLDERS and CI_FILES)."""
    parts = path.split("/")
    return parts[0].lower() in CI_FOLDERS or parts[-1].lower() in CI_FILES


# A tool's settings written as code: test runners, bundlers, linters, formatters.
_TOOLS = (
    "vite|vitest|jest|webpack|rollup|tsup|esbuild|babel|eslint|prettier|postcss|tailwind|"
    "playwright|cypress|karma|next|nuxt|svelte|astro|docusaurus|vue|commitlint|stylelint|"
    "lint-staged|typedoc|knip|metro|wdio|turbo|unbuild|vuepress|storybook|nodemon|ava"
)
_TOOL_CONFIG = re.compile(
    rf"^(({_TOOLS})\.config|\.?(eslintrc|prettierrc|babelrc|stylelintrc|commitlintrc|"
    r"lintstagedrc|mocharc|swcrc)|karma\.conf|gulpfile|gruntfile)(\.[\w-]+)?\.[cm]?[jt]s$",
    re.I,
)


def is_tool_config(path: str) -> bool:
    """A tool's settings written as code (``vitest.config.ts``, ``.eslintrc.js``)."""
    return bool(_TOOL_CONFIG.match(posixpath.basename(path)))
