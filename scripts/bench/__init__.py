"""The benchmark behind scripts/benchmark.py, one concept per module.

    sliders.py   key press on a slider -> last change on the page: every slider of every stage screen,
                 the floor page and the full-matrix baseline page (what is measured, and how)
    views.py     the moves the browser handles: every slider of every attention view, key press -> drawn
    compute.py   each stage's lesson function, and the course's MultiHeadAttention against PyTorch's
    report.py    the targets, and the markdown tables the report is made of
    cli.py       the options, and which of the sections above they ask for
"""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# The repository (attention_core, screens.registry) and scripts/ (local_server.py), however this is imported.
for _path in (ROOT / "scripts", ROOT):
    if str(_path) not in sys.path:
        sys.path.insert(0, str(_path))

import os  # noqa: E402

# The servers this benchmark starts measure moves on warm screens: the server's own warm-up (ui/server/warmup.py) would
# open ten screens through the script gate during the first moves measured. ATTENTION_WARMUP=1 keeps it.
os.environ.setdefault("ATTENTION_WARMUP", "0")
