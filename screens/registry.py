"""The one list of screens: the app's navigation, the tests and the scripts all read it.

Plain Python (no Streamlit), so tests and scripts can import it. Adding a screen means one entry
here and the screen's own file in screens/, nothing else.
"""
from dataclasses import dataclass
from pathlib import Path

SCREENS_DIR = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Screen:
    title: str
    url_path: str  # "" for the home screen
    file: str  # relative to the app's folder, e.g. "screens/scores.py"
    icon: str  # a bundled Material icon (works offline)
    section: str
    stage: bool = False  # one of the chapter's five stages (they share the stage controls and checks)

    @property
    def name(self) -> str:
        """The screen's short name: its URL path, or "home"."""
        return self.url_path or "home"


SCREENS = [
    Screen("Home", "", "screens/home.py", ":material/home:", "Start"),
    Screen("1 · Attention scores", "scores", "screens/scores.py", ":material/grid_on:",
           "Chapter 3, stage by stage", stage=True),
    Screen("2 · Softmax and √d_k", "softmax", "screens/softmax.py", ":material/functions:",
           "Chapter 3, stage by stage", stage=True),
    Screen("3 · Causal mask", "mask", "screens/mask.py", ":material/visibility_off:",
           "Chapter 3, stage by stage", stage=True),
    Screen("4 · Dropout", "dropout", "screens/dropout.py", ":material/grain:",
           "Chapter 3, stage by stage", stage=True),
    Screen("5 · Multi-head attention", "heads", "screens/heads.py", ":material/view_column:",
           "Chapter 3, stage by stage", stage=True),
    Screen("Heads in memory", "memory", "screens/memory.py", ":material/memory_alt:", "Chapter 3, stage by stage"),
    Screen("What heads learn", "trained", "screens/trained.py", ":material/model_training:", "What attention learns"),
    Screen("Why √d_k: experiments", "why-scaling", "screens/why_scaling.py", ":material/science:",
           "Going further"),
    Screen("Efficiency: fused attention", "efficiency", "screens/efficiency.py", ":material/speed:",
           "Going further"),
    Screen("Eight ways to write it", "implementations", "screens/implementations.py", ":material/stacks:",
           "Going further"),
    Screen("Real GPT-2 heads", "gpt2", "screens/gpt2.py", ":material/psychology:", "Going further"),
]

BY_NAME = {s.name: s for s in SCREENS}
STAGES = [s for s in SCREENS if s.stage]


def sections() -> dict[str, list[Screen]]:
    """Screens grouped by section, in order (the navigation's layout)."""
    grouped: dict[str, list[Screen]] = {}
    for screen in SCREENS:
        grouped.setdefault(screen.section, []).append(screen)
    return grouped
