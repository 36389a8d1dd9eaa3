"""One channel for the sidebar's decisions: the Settings object (issue 18, point 1)."""
import dataclasses
import re
from pathlib import Path

from ui.state.settings import Settings
from ui.state.sidebar import INPUT_CONTROLS

ROOT = Path(__file__).resolve().parents[1]
# Every control the shared sidebar shows (main.py draws it on every screen).
SIDEBAR = ("preset", "input", "text", "positions", "tokens", "d_in", "d_out", "seed", "device", "colour",
           "downloads", "presenter", "quiz")
# Where a stored value may be read: the state layer itself, and the sidebar that turns values into Settings.
STATE_LAYER = {"session.py", "sidebar.py"}  # (in ui/state/)


def test_settings_carry_every_sidebar_decision():
    fields = {f.name for f in dataclasses.fields(Settings)}
    # the input controls are carried as the inputs' identity (inputs_id) and the tensor x they make
    assert set(SIDEBAR) - set(INPUT_CONTROLS) - fields <= {"device"}  # device arrives resolved, as device
    assert {"inputs_id", "x", "device", "text"} <= fields


def test_no_screen_or_ui_module_reads_a_sidebar_decision_from_session_state():
    names = "|".join(SIDEBAR)
    read = re.compile(rf"""\bvalue\(\s*["']({names})["']|session_state\[\s*["'](keep:)?({names})["']\]""")
    offenders = []
    for path in [*(ROOT / "screens").glob("*.py"), *(ROOT / "ui").rglob("*.py")]:
        if path.name in STATE_LAYER:
            continue
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if read.search(line):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not offenders, "read settings.<field> instead:\n" + "\n".join(offenders)
