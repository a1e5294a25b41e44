"""The order the test files are handed to the xdist workers (tests/file_order.py): longest first,
a file without figures guessed from its number of tests."""

from __future__ import annotations

from collections import Counter

from file_order import expected_seconds


def test_measured_files_keep_their_seconds_and_new_ones_are_guessed_from_their_tests():
    known = {"tests/a.py": 100.0, "tests/b.py": 2.0, "tests/c.py": 30.0}
    tests = Counter({"tests/a.py": 4, "tests/b.py": 2, "tests/c.py": 10, "tests/new.py": 20})
    expected = expected_seconds(known, tests)
    assert {name: expected[name] for name in known} == known
    assert expected["tests/new.py"] == 20 * 3.0  # the median of 25, 1 and 3 seconds a test
    assert sorted(expected, key=lambda name: -expected[name]) == ["tests/a.py", "tests/new.py", "tests/c.py", "tests/b.py"]


def test_without_figures_the_files_with_most_tests_go_first():
    expected = expected_seconds({}, Counter({"tests/few.py": 1, "tests/many.py": 40}))
    assert expected == {"tests/few.py": 1.0, "tests/many.py": 40.0}
