"""The load test behind scripts/load_test.py, one job per module.

    protocol.py   one browser tab as the server sees it: Streamlit's websocket protocol
    students.py   what a simulated student does: open, move sliders, switch screens; the warm-up
    chromium.py   real Chromium students, and the cold start (streamlit run -> home page drawn)
    measure.py    the servers' RSS and CPU time, from /proc
    report.py     the targets, and the markdown tables every report is made of
    classroom.py  the load test: a class for a set time, on one server or behind HAProxy
    soak.py       memory: the soak (reruns back to back) and the tour of every screen
    scaling.py    the same class on 1, 2, ... servers behind HAProxy (--servers, --compare)
    room.py       --room: one tab in a class room (answer, send, poll timed fragments); room_run.py runs the class
                  stage by stage, room_report.py writes its figures
    servers.py    the Streamlit server it starts, or the one it is pointed at
    cli.py        the options, and which of the runs above they ask for
"""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# The repository (screens.registry) and scripts/ (cluster.py, local_server.py), however this is imported.
for _path in (ROOT / "scripts", ROOT):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))
