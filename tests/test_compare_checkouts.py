"""scripts/compare_checkouts.py: its interval must separate two different medians and hold 0 for one sample; its options become flags."""
import sys

import pytest

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


def test_streamlit_options_become_flags_and_a_malformed_one_stops_the_script():
    from local_server import streamlit_flags  # shared by this script and the load test's --option
    assert streamlit_flags(["server.fileWatcherType=auto", "runner.postScriptGC=false"]) == [
        "--server.fileWatcherType", "auto", "--runner.postScriptGC", "false"]
    with pytest.raises(SystemExit):
        streamlit_flags(["server.fileWatcherType"])
