"""The slides behind scripts/slides.py, one concept per module.

    page_js.py   the JavaScript run in the page: hide the chrome, wait until drawn, read the layout
    cutting.py   where a long screen is cut into 16:9 slides (pure Python: the tests drive it directly)
    capture.py   the app in Chromium, each screen captured as slides or one tall image
    figures.py   --figures: every chart as SVG + PNG, offline (vl-convert), no browser
    presets.py   which screens a preset changes (a preset's run leaves out the others)
    naming.py    file names and the URL parameters every screen is opened with
    cli.py       the options, and which of the above they ask for
"""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# The repository (screens.registry, attention_core) and scripts/ (local_server.py), however this is imported.
for _path in (ROOT / "scripts", ROOT):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))
