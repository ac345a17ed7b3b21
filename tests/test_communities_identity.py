"""Community IDs across runs, decided by ``assign_ids`` alone: which group keeps which ID,
which IDs retire, and what the map calls a split or a merge. Each case is small enough to
work out by hand; the comments give the overlaps that decide it."""

from __future__ import annotations

from kgtool.communities.counts import count_by_type, describe_counts
from kgtool.communities.identity import Identity, assign_ids, id_number


def files(prefix: str, count: int) -> list[str]:
    return [f"{prefix}{n}.py" for n in range(1, count + 1)]


def test_the_id_goes_to_the_group_with_the_highest_jaccard_not_the_largest_union() -> None:
    # c1 has six files. A keeps four of them (Jaccard 4/6); B takes the other two and eight
    # new files (Jaccard 2/14). Ranking by anything that grows with the union gives c1 to B.
    old = {"c1": files("a", 6)}
    keeper = files("a", 4)
    drifter = ["a5.py", "a6.py", *files("b", 8)]
    result = assign_ids([keeper, drifter], old, next_id=2, min_overlap=0.3)
    assert result == Identity(ids={"c1": keeper, "c2": drifter}, next_id=3)


def test_a_pair_passed_over_does_not_stop_later_pairs_from_matching() -> None:
    # Overlaps in order: ([a1-a3], c1, J .75), ([a4], c1, J .25: c1 is taken, passed over),
    # ([m1, x1-x3], c2, J .125). The last pair must still match.
    old = {"c1": files("a", 4), "c2": files("m", 5)}
    groups = [files("a", 3), ["a4.py"], ["m1.py", *files("x", 3)]]
    result = assign_ids(groups, old, next_id=3, min_overlap=0.25)
    assert result == Identity(
        ids={"c1": groups[0], "c3": groups[1], "c2": groups[2]},
        next_id=4,
        split_from={"c3": "c1"},
    )


def test_a_stale_next_id_never_hands_out_an_id_at_or_below_one_in_use() -> None:
    # A communities.json edited by hand may say next_id 0 while c5 exists: the counter
    # starts after the largest ID seen, not below it and not further on.
    result = assign_ids([["a.py"], ["z.py"]], {"c5": ["a.py"]}, next_id=0, min_overlap=0.5)
    assert result.ids == {"c5": ["a.py"], "c6": ["z.py"]}
    assert result.next_id == 7


def test_a_new_group_splits_from_the_community_most_of_its_files_came_from() -> None:
    # [a4, m5, m6] is new (c1 went to [m1-m4], J 4/6, before it at J 2/7). Two of its three
    # files came from c1, one from c2, and c2's file comes first in path order.
    old = {"c1": files("m", 6), "c2": files("a", 4)}
    groups = [files("a", 3), ["a4.py", "m5.py", "m6.py"], files("m", 4)]
    result = assign_ids(groups, old, next_id=3, min_overlap=0.5)
    assert result == Identity(
        ids={"c2": groups[0], "c3": groups[1], "c1": groups[2]},
        next_id=4,
        split_from={"c3": "c1"},
    )


def test_a_new_group_with_half_of_its_files_from_one_community_is_not_a_split() -> None:
    old = {"c1": files("m", 6)}
    groups = [files("m", 4), ["m5.py", "m6.py", "z1.py", "z2.py"]]
    result = assign_ids(groups, old, next_id=2, min_overlap=0.5)
    assert result == Identity(ids={"c1": groups[0], "c2": groups[1]}, next_id=3)


def test_retired_ids_in_number_order_merged_into_the_heir_of_most_of_their_files() -> None:
    # c2 = [a, b, c, d, e]: a goes to c1's group, b-d to c3's, e is deleted. c3 holds three
    # of its five files, so c2 merged into c3, though c1 is the smaller ID and holds c2's
    # first file. c10 = [w, x, y, z]: x and y go to c1's group, w to a new group, z is
    # deleted. Two of four is not most: c10 dissolved. Retired in number order: c2, c10.
    old = {
        "c1": files("k", 4),
        "c3": files("n", 4),
        "c2": ["a.py", "b.py", "c.py", "d.py", "e.py"],
        "c10": ["w.py", "x.py", "y.py", "z.py"],
    }
    with_c1 = ["a.py", *files("k", 4), "x.py", "y.py"]
    with_c3 = ["b.py", "c.py", "d.py", *files("n", 4)]
    new = ["v1.py", "v2.py", "w.py"]
    result = assign_ids([with_c1, with_c3, new], old, next_id=11, min_overlap=0.5)
    assert result == Identity(
        ids={"c1": with_c1, "c3": with_c3, "c11": new},
        next_id=12,
        merged_into={"c2": "c3"},
        retired=["c2", "c10"],
    )


def test_a_group_that_picked_up_one_old_file_does_not_inherit_its_id() -> None:
    # One file of the four of c1 in a group of five: 1/5 and 1/4 are under min_overlap 0.5,
    # so the group is new and c1 retires. At min_overlap 0.25 the same group keeps c1.
    old = {"c1": ["a.py", "b.py", "c.py", "d.py"]}
    group = ["d.py", *files("n", 4)]
    assert assign_ids([group], old, next_id=2, min_overlap=0.5) == Identity(
        ids={"c2": [*group]}, next_id=3, retired=["c1"]
    )
    assert assign_ids([group], old, next_id=2, min_overlap=0.25) == Identity(
        ids={"c1": [*group]}, next_id=2
    )


def test_one_reader_of_ids_and_one_writer_of_counts() -> None:
    """Every ID is read by ``id_number`` (a malformed one, as a hand edit leaves it, sorts
    first instead of failing), and typed counts read alike wherever they are printed: the
    largest type first (a drifted phrase's counts were alphabetical, the map's by size)."""
    assert [id_number(cid) for cid in ("c7", "A3", "c12")] == [7, 3, 12]
    assert [id_number(cid) for cid in ("cx", "c", "", "c٣", "c-1")] == [-1] * 5
    counts = {"imports": {"EXTRACTED": 5}, "calls": {"EXTRACTED": 8, "INFERRED": 1}}
    assert count_by_type(counts) == "calls×9 / imports×5"
    assert describe_counts(counts) == "calls×9 / imports×5 (EXTRACTED 13, INFERRED 1)"
    assert count_by_type({}) == "none"
