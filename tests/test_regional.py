"""Regional and casual words read in their common form by the semantic stage only
(voxd/language/regional.py): the embedding knows "umbrella" better than "brolly", and the utterance
the scanners read is left as said."""

from __future__ import annotations

import pytest

from voxd.language.regional import TABLE, common_words, read_table


@pytest.mark.parametrize(("said", "common"), [
    ("do i need a brolly this arvo", "do i need a umbrella this afternoon"),
    ("we're out of loo roll", "we're out of toilet paper"),
    ("Gonna need a timer for 5 mins", "going to need a timer for 5 minutes"),
    ("40 quid split four ways", "40 pounds split four ways"),
])
def test_regional_words_are_read_in_their_common_form(said, common):
    assert common_words(said) == common


@pytest.mark.parametrize("said", [
    "set a timer for five minutes",  # nothing regional
    "the mini fridge",  # "min" only as a whole word
    "a second timer",  # "sec" only as a whole word
    "minsk",
])
def test_other_words_are_left_as_said(said):
    assert common_words(said) == said


def test_the_shipped_table_reads_and_a_row_without_a_tab_is_refused():
    assert read_table(TABLE.read_text())["brolly"] == "umbrella"
    with pytest.raises(ValueError, match="line 2"):
        read_table("# comment\nbrolly umbrella\n")
