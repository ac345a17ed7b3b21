"""One definition of test and data files, shared by layer 2, the offline labeler and the miner."""

from __future__ import annotations

import pytest

from kgtool.communities.packages import is_code
from kgtool.file_kinds import in_data_folder, is_data_folder, is_test
from kgtool.mining.proposals import is_test as miner_is_test
from kgtool.ontology.offline import file_role


@pytest.mark.parametrize(
    "path",
    [
        "tests/helpers.py",
        "src/__tests__/app.js",
        "test_parser.py",
        "pkg/parser_test.go",
        "web/button.test.tsx",
        "web/button-spec.js",
        "web/button.spec.ts",
        "conftest.py",
        "src/test/java/ParserTest.java",
        "core/TestParser.java",
        "core/ParserTests.kt",
    ],
)
def test_test_files_are_tests_everywhere(path: str) -> None:
    assert is_test(path) and miner_is_test(path)
    assert file_role(path) in ("test", "fixture")


@pytest.mark.parametrize(
    "path", ["src/latest.py", "src/contest.py", "src/Testament.py", "core/Attest.java", "spec.md"]
)
def test_names_that_only_contain_test_are_not_tests(path: str) -> None:
    assert not is_test(path)
    assert file_role(path) != "test"


def test_data_folders_are_data_for_layer_2_and_fixtures_for_the_labeler() -> None:
    for path in ["tests/cassettes/get.yaml", "pkg/Fixtures/app.py", "testdata/x/main.go"]:
        assert in_data_folder(path)
        assert not is_code(path)  # even a .py or .go file under a data folder
        assert file_role(path) == "fixture"
    assert is_code("pkg/app.py") and not in_data_folder("pkg/app.py")
    assert is_data_folder("tests/fixtures/proj") and not is_data_folder("packages/fixturesx")
