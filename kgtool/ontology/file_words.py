"""What a path says in words, for the offline labeler: the kind of file it is (code, test,
fixture, example, doc, setup, asset, data), the words of its folders and stem with acronyms,
compounds and numeronyms kept whole, and how a word is spelled in a name."""

from __future__ import annotations

import posixpath
import re

from kgtool import file_kinds
from kgtool.file_kinds import TEST_FOLDERS, in_data_folder, is_test

_CODE_EXTENSIONS = """.py .pyi .pyx .js .mjs .cjs .jsx .ts .mts .cts .tsx .go .java .rs .kt .kts
.scala .swift .c .h .cc .cpp .cxx .hpp .hh .cs .rb .php .m .mm .ex .exs .erl .lua .dart .vue .svelte
.clj .hs .ml .r .jl .zig .nim"""
CODE_EXTENSIONS = frozenset(_CODE_EXTENSIONS.split())
_DOC_EXTENSIONS = ".md .mdx .rst .txt .adoc .asciidoc .org .tex .ipynb"
DOC_EXTENSIONS = frozenset(_DOC_EXTENSIONS.split())
_IMAGE_EXTENSIONS = ".png .jpg .jpeg .gif .svg .ico .webp .bmp .ai .psd .eps"
IMAGE_EXTENSIONS = frozenset(_IMAGE_EXTENSIONS.split())
# What a file is called in a summary, by extension, when it is not the community's main kind.
FILE_NOUNS = {
    ".scm": "query files",
    ".json": "JSON files",
    ".yaml": "YAML files",
    ".yml": "YAML files",
    ".toml": "TOML files",
    ".html": "templates",
    ".jinja": "templates",
    ".j2": "templates",
    ".tmpl": "templates",
    ".hbs": "templates",
    ".css": "stylesheets",
    ".scss": "stylesheets",
    ".less": "stylesheets",
    ".sql": "SQL files",
    ".sh": "shell scripts",
    ".bash": "shell scripts",
    ".proto": "protobuf files",
    ".graphql": "GraphQL files",
    ".gql": "GraphQL files",
    ".csv": "data files",
    ".tsv": "data files",
    ".xml": "XML files",
    ".lock": "lock files",
}

_EXAMPLE_DIRS = "examples example samples sample demo demos _examples"
EXAMPLE_DIRS = frozenset(_EXAMPLE_DIRS.split())
DOC_DIRS = file_kinds.DOC_FOLDERS  # one list: layer 2 groups docs by the same folders
_DOC_FOLDERS = "content pages src source"
DOC_FOLDERS = DOC_DIRS | frozenset(_DOC_FOLDERS.split())  # also left out of doc names
_ASSET_DIRS = "img images image static _static assets media icons"
ASSET_DIRS = frozenset(_ASSET_DIRS.split())
# Folders that say nothing about what is inside: left out of names (``src/click`` is "Click").
_GENERIC_DIRS = """src source sources lib libs pkg internal main java kotlin scala python go app
apps packages crates modules cmd"""
GENERIC_DIRS = frozenset(_GENERIC_DIRS.split())
_REVERSE_DOMAIN = "com org net io dev co edu gov"
REVERSE_DOMAIN = frozenset(_REVERSE_DOMAIN.split())
PROJECT_DOCS = re.compile(
    r"^(readme|(un)?licen[cs]e|copying|notice|changelog|changes|history|news|contributing|"
    r"code_of_conduct|conduct|security|maintainers|authors|contributors|citation|support)"
    r"([-_.][a-z0-9]+)*$",
    re.I,
)
MANIFESTS = re.compile(
    r"^(pyproject\.toml|setup\.py|setup\.cfg|manifest\.in|requirements.*\.txt|.*\.lock|"
    r"package(-lock)?\.json|pnpm-.*\.yaml|tsconfig.*\.json|go\.(mod|sum|work)|cargo\.toml|"
    r"makefile|justfile|build\.gradle(\.kts)?|settings\.gradle(\.kts)?|gradlew(\.bat)?|pom\.xml|"
    r"tox\.ini|noxfile\.py|.*\.config\.[cm]?[jt]s|rollup\.config\..*|vite\.config\..*|"
    r"webpack\.config\..*|jest\.config\..*|babel\.config\..*|mkdocs\.ya?ml|gemfile)$",
    re.I,
)
LINTERS = re.compile(
    r"^\.?(editorconfig|prettier.*|eslint.*|golangci.*|ruff\.toml|flake8|pylintrc|mypy\.ini|"
    r"stylelint.*|rustfmt\.toml|clippy\.toml|markdownlint.*|yamllint.*|codespell.*)$",
    re.I,
)
# Words that say nothing about what a community is for.
_STOP_WORDS = """a an the and or of to in on for with by from at as is are be it its this that
these those into over under not no via per vs init main index mod lib libs src source util utils
helper helpers common misc impl internal pkg test tests testing spec specs conftest setup get set
new make do run self cls args kwargs fn func function method class obj object value values item
items thing stuff file files py js ts go rs java tsx jsx mjs cjs md txt json yaml yml toml d"""
STOP_WORDS = frozenset(_STOP_WORDS.split())
# Names a file can have without saying anything about its contents.
_EMPTY_STEMS = "__init__ __main__ index main mod lib init conftest package readme _index"
EMPTY_STEMS = frozenset(_EMPTY_STEMS.split())
# Names every package has, which say little about a community beside more specific ones: a
# community named "manager, utils" or after its exceptions module is not recognised by them.
# Folders of these names are as vague, except the ones that often hold a real part (core/).
_GENERIC_FOLDERS = "utils util utilities common commons misc shared"
GENERIC_FOLDERS = frozenset(_GENERIC_FOLDERS.split())
_MORE_GENERIC_STEMS = (
    "core types typing constants const consts exceptions errors error compat globals"
)
GENERIC_STEMS = GENERIC_FOLDERS | frozenset(_MORE_GENERIC_STEMS.split())

_ACRONYMS = """api cli http https url urls uri json yaml toml xml html css sql io ui id ci ssl tls
jwt asgi wsgi rpc aws gcp sdk llm mcp ast csv pdf os tcp udp dns ip ssh gui orm npm js ts sse mime
utf jvm vm cdn dom svg ldap saml smtp imap oidc ffi abi cpu gpu"""
ACRONYMS = {word: word.upper() for word in _ACRONYMS.split()}
ACRONYMS.update(
    {
        "github": "GitHub",
        "gitlab": "GitLab",
        "graphql": "GraphQL",
        "oauth": "OAuth",
        "grpc": "gRPC",
        "websocket": "WebSocket",
        "websockets": "WebSockets",
        "paypal": "PayPal",
        "javascript": "JavaScript",
        "typescript": "TypeScript",
        "postgresql": "PostgreSQL",
        "mysql": "MySQL",
        "mongodb": "MongoDB",
        "sqlite": "SQLite",
        "urls": "URLs",
        "apis": "APIs",
        "img": "images",
    }
)
# Spelled in one piece though camelCase splits them.
COMPOUNDS = {
    ("git", "hub"): "github",
    ("git", "lab"): "gitlab",
    ("pay", "pal"): "paypal",
    ("java", "script"): "javascript",
    ("type", "script"): "typescript",
    ("graph", "ql"): "graphql",
    ("web", "socket"): "websocket",
    ("o", "auth"): "oauth",
    ("my", "sql"): "mysql",
    ("mongo", "db"): "mongodb",
}
# Digits stay with the word they follow: "pcre2", "http2", "utf8".
CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+\d*|[A-Z]+\d*|\d+")
NUMERONYM = re.compile(r"[a-z]\d+[a-z]{1,2}|[A-Z]\d+[A-Z]{1,2}")  # not sha256sum, base64url
EDGE_UNDERSCORE = re.compile(r"(?<!\w)_+|_+(?!\w)")  # "_private", "__init__": read as emphasis


# --- paths and words -------------------------------------------------------------------------


def split_ext(name: str) -> tuple[str, str]:
    """``"python.scm"`` -> ``("python", ".scm")``; a dotfile is all stem."""
    stem, ext = posixpath.splitext(name)
    return (name, "") if not stem else (stem, ext.lower())


def words(text: str) -> list[str]:
    """Lower-case words of an identifier or file stem: camelCase, snake_case, kebab-case;
    a numeronym is one word ("i18n", "e2ee", "k8s": letters, digits, letters in one case)."""
    found: list[str] = []
    for chunk in re.split(r"[^A-Za-z0-9]+", text):
        if NUMERONYM.fullmatch(chunk):
            found.append(chunk.lower())
            continue
        found += [w.lower() for w in CAMEL.findall(chunk)]
    merged: list[str] = []
    for word in found:
        if merged and (merged[-1], word) in COMPOUNDS:
            merged[-1] = COMPOUNDS[(merged[-1], word)]
        else:
            merged.append(word)
    return merged


def tokens(text: str) -> list[str]:
    """The meaningful words of ``text``: stop words, numbers and single letters dropped."""
    return [w for w in words(text) if w not in STOP_WORDS and len(w) > 1 and not w.isdigit()]


def root_word(word: str) -> str:
    """What ``commands`` and ``command`` have in common, to count them as one word."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def humanize(text: str) -> str:
    """``"shell_completion"`` -> ``"shell completion"``, ``"_urls"`` -> ``"URLs"``."""
    said = words(text)
    return " ".join(ACRONYMS.get(w, w) for w in said if not w.isdigit() or len(said) > 1)


def capitalized(text: str) -> str:
    return text[:1].upper() + text[1:] if text and text[:1].islower() else text


def word_count(text: str) -> int:
    return len(text.split())


def stem_of(path: str) -> str:
    name = posixpath.basename(path)
    stem, _ = split_ext(name)
    while True:  # "users.test.ts" -> "users", "button.stories.tsx" -> "button"
        inner, ext = split_ext(stem)
        if not ext or ext in (".py", ".ts", ".js", ".go"):
            break
        if ext[1:] not in ("test", "spec", "stories", "d", "module", "min", "config"):
            break
        stem = inner
    return stem


def test_subject(stem: str) -> str:
    """What a test file tests: ``test_raw_python`` -> ``raw_python``, ``FooTest`` -> ``Foo``."""
    subject = re.sub(r"^(test_|test(?=[A-Z]))|(_test|_tests|_spec|Tests?|IT)$", "", stem)
    # Helpers for the tests of X are about X too.
    subject = re.sub(
        r"(?i)^(helpers?|utils?|fixtures?)[_-]|[_-](helpers?|utils?|fixtures?)$", "", subject
    )
    return subject or stem


# --- what each file is -----------------------------------------------------------------------


def file_role(path: str) -> str:
    """code, test, fixture, example, doc, setup, asset or data."""
    parts = path.split("/")
    folders = [p.lower() for p in parts[:-1]]
    name = parts[-1]
    _, ext = split_ext(name)
    if in_data_folder(path):
        return "fixture"
    example_at = next((i for i, f in enumerate(folders) if f in EXAMPLE_DIRS), None)
    test_at = next((i for i, f in enumerate(folders) if f in TEST_FOLDERS), len(folders))
    if example_at is not None and example_at < test_at:
        # An example app's own tests are part of the example: "Tests: JavaScript" would call
        # examples/javascript/ (its module and the tests beside it) the project's tests.
        # tests/examples/ stays tests.
        return "example"
    if is_test(path):
        return "test"
    top_level = not folders
    if (folders and folders[0].startswith(".")) or name.startswith("."):
        return "setup"
    if MANIFESTS.match(name) or (top_level and PROJECT_DOCS.match(name)):
        return "setup"
    if PROJECT_DOCS.match(name) and not any(f in DOC_DIRS for f in folders):
        return "setup"  # a package's own README and licence, in a monorepo
    if folders and folders[0] in ("scripts", "bin", "ci") and ext not in CODE_EXTENSIONS:
        return "setup"
    if ext in CODE_EXTENSIONS:
        return "code"
    if ext in DOC_EXTENSIONS or any(f in DOC_DIRS for f in folders):
        return "doc"
    if ext in IMAGE_EXTENSIONS:
        return "asset"
    return "data"


def setup_facet(path: str) -> str:
    """Which part of a project's setup a file is: CI, packaging, linters, ..."""
    parts = path.split("/")
    folders = [p.lower() for p in parts[:-1]]
    name = parts[-1].lower()
    if (
        folders[:2] == [".github", "workflows"]
        or (
            folders
            and folders[0] in (".ci", ".circleci", ".buildkite", ".gitlab", ".azure-pipelines")
        )
        or name
        in (
            ".gitlab-ci.yml",
            ".travis.yml",
            "azure-pipelines.yml",
            "jenkinsfile",
            "appveyor.yml",
            ".drone.yml",
        )
    ):
        return "CI"
    if name.startswith(".pre-commit"):
        return "pre-commit"
    if folders[:1] == [".devcontainer"] or name.startswith(
        ("dockerfile", "docker-compose", ".dockerignore")
    ):
        return "dev container"
    if folders[:1] == [".github"]:
        return "GitHub"
    if name in (
        ".gitignore",
        ".gitattributes",
        ".mailmap",
        ".gitmodules",
        ".git-blame-ignore-revs",
    ):
        return "git"
    if MANIFESTS.match(name) or name in (".npmrc", ".nvmrc", ".python-version", ".npmignore"):
        return "packaging"
    if LINTERS.match(name):
        return "linters"
    if PROJECT_DOCS.match(name) or name in (".readthedocs.yaml", ".readthedocs.yml"):
        return "docs"
    if folders[:1] in (["scripts"], ["bin"], ["ci"]):
        return "scripts"
    if folders[:1] in ([".vscode"], [".idea"]):
        return "editor"
    return "config"
