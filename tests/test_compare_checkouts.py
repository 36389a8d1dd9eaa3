"""scripts/compare_checkouts.py's interval: it must separate two different medians and hold 0 for one sample."""
import sys

from conftest import ROOT

sys.path.insert(0, str(ROOT / "scripts"))
from compare_checkouts import difference_interval  # noqa: E402


def test_interval_separates_a_clear_slowdown():
    before = [100.0 + i for i in range(20)]
    low, high = difference_interval(before, [x + 50 for x in before])
    assert 30 < low <= 50 <= high < 70


def test_interval_holds_zero_for_the_same_sample():
    sample = [500.0, 620.0, 580.0, 710.0, 540.0, 660.0, 590.0, 605.0]
    low, high = difference_interval(sample, list(sample))
    assert low < 0 < high
