"""How the miner abstracts an added file's path: the words that vary between files of one
kind become ``<name>``, the words a folder's files share stay."""

from __future__ import annotations

from kgtool.mining.paths import Abstractor, is_bookkeeping, words


def test_a_folders_shared_word_is_kept_and_a_name_in_three_folders_is_not() -> None:
    # Three tests in one folder named test_*: "test" is that folder's convention, though
    # few paths say it. A provider's name said by three files, each in another folder (its
    # code, its docs, its icon), is still the provider's name.
    paths = [
        "tests/test_alpha.py", "tests/test_beta.py", "tests/test_gamma.py",
        "app/providers/zoom.py", "docs/providers/zoom.md", "app/icons/zoom.svg",
        *(f"app/providers/p{n}.py" for n in range(8)),
        *(f"tests/fixtures/f{n}.json" for n in range(5)),
    ]  # fmt: skip
    abstractor = Abstractor(paths)
    assert abstractor.abstract("tests/test_delta.py") == "tests/test_<name>.py"
    assert abstractor.abstract("app/providers/zoom.py") == "app/providers/<name>.py"


def test_a_name_of_two_words_joined_by_a_separator_is_one_name() -> None:
    # "open_ai" is one name as "OpenAI" is, after a word of the folder's convention (use*)
    # as well as alone.
    hooks = [f"src/hooks/use{name}.ts" for name in ("Alpha", "Beta", "Gamma")]
    providers = [f"src/providers/{name}_provider.ts" for name in ("alpha", "beta", "gamma")]
    paths = [*hooks, *(f"src/hooks/h{n}.ts" for n in range(8)), *providers,
             *(f"src/providers/base{n}.ts" for n in range(5))]  # fmt: skip
    abstractor = Abstractor(paths)
    assert abstractor.abstract("src/hooks/useOpen_ai.ts") == "src/hooks/use<name>.ts"
    assert abstractor.abstract("src/hooks/useOpenAI.ts") == "src/hooks/use<name>.ts"
    assert abstractor.abstract("src/hooks/open-ai.ts") == "src/hooks/<name>.ts"
    # ...and before one (the *_provider convention), which stays.
    found = abstractor.abstract("src/providers/open_ai_provider.ts")
    assert found == "src/providers/<name>_provider.ts"


def test_a_folder_made_by_two_changes_is_one_member_of_its_family() -> None:
    # Twelve lexers, each a folder of its own: a change adds its example file, a later one
    # the example's expected output. A folder made by two changes is still one instance, so
    # each example is its lexer's own file: its name and its lexer's own extension are a name,
    # the extension every lexer's outputs have stays.
    added = [[f"tests/examplefiles/e{n}/example.e{n}x"] for n in range(12)]
    added += [[f"tests/examplefiles/e{n}/example.e{n}x.out"] for n in range(12)]
    abstractor = Abstractor([path for files in added for path in files] * 3, added)
    examples = "tests/examplefiles/<name>/<name>"
    assert abstractor.abstract("tests/examplefiles/e4/example.e4x") == examples
    assert abstractor.abstract("tests/examplefiles/e4/example.e4x.out") == f"{examples}.out"
    # A third change adding to a lexer's folder makes it no instance: a folder that keeps
    # growing is not one thing added once.
    grown = Abstractor(
        [path for files in added for path in files] * 3,
        [*added, ["tests/examplefiles/e4/more.e4x"]],
    )
    assert not grown.abstract("tests/examplefiles/e4/example.e4x").startswith(examples)


def test_an_extension_three_members_have_is_the_familys_own() -> None:
    # Twelve lexers' examples, three of them with an expected output beside: .out is what
    # the family's files are (kept), the lexer's own extension a name (left out).
    added = [
        [f"tests/examplefiles/e{n}/example.e{n}x"]
        + ([f"tests/examplefiles/e{n}/example.e{n}x.out"] if n < 3 else [])
        for n in range(12)
    ]
    abstractor = Abstractor([path for files in added for path in files] * 3, added)
    found = abstractor.abstract("tests/examplefiles/e1/example.e1x.out")
    assert found == "tests/examplefiles/<name>/<name>.out"


def test_the_words_of_a_path_leave_its_extension_out() -> None:
    assert words("src/OpenAIProvider.ts") == ["src", "open", "ai", "provider"]
    # A dot in a folder's name ends no stem (its digits are no words), and a hidden folder
    # is a folder like any other.
    assert words("docs/v1.2/guide.md") == ["docs", "v", "guide"]
    assert words(".github/workflows/ci.yml") == ["github", "workflows", "ci"]


def test_changelog_fragments_are_bookkeeping_in_a_folder_at_any_depth() -> None:
    # A monorepo's package keeps its own fragments folder (changesets, towncrier).
    for path in ("packages/core/.changeset/brave-dogs.md", "doc/newsfragments/123.bugfix.rst",
                 "changelog.d/123.feature.md"):  # fmt: skip
        assert is_bookkeeping(path), path
    # Only a folder says so, not a file named like one.
    for path in ("announce", "src/announce.py", "packages/core/src/index.ts"):
        assert not is_bookkeeping(path), path


def test_a_members_name_in_a_folder_below_it_is_the_member() -> None:
    # Twelve linters, each a folder made by one change, with test data in a folder named
    # after the linter: that folder is the linter's name too, not its letters and digits.
    added = [[f"pkg/golinters/l{n}x/l{n}x.go", f"pkg/golinters/l{n}x/testdata/l{n}x/main.go"]
             for n in range(12)]  # fmt: skip
    abstractor = Abstractor([path for files in added for path in files] * 3, added)
    found = abstractor.abstract("pkg/golinters/l3x/testdata/l3x/main.go")
    assert found == "pkg/golinters/<name>/testdata/<name>/main.go"


def test_a_family_whose_files_have_no_extension_is_read() -> None:
    # Twelve images, each a folder made by one change holding its Dockerfile.
    added = [[f"docker/images/img{n}/Dockerfile"] for n in range(12)]
    abstractor = Abstractor([path for files in added for path in files] * 3, added)
    found = abstractor.abstract("docker/images/img3/Dockerfile")
    assert found == "docker/images/<name>/Dockerfile"
