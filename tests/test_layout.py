"""The layout is the architecture: the core is plain PyTorch, the Streamlit layer sits outside it."""
import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CORE = ROOT / "attention_core"


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_no_module_of_the_core_imports_streamlit_or_the_ui_layer():
    offenders = [str(p.relative_to(ROOT)) for p in CORE.rglob("*.py")
                 if imported_modules(p) & {"streamlit", "ui", "screens"}]
    assert not offenders


def test_the_ui_layer_never_imports_the_screens():
    """Imports go down the floors (app -> screens -> ui -> attention_core). The warm-up is handed its stage list by
    app.py and main.py; the settings' stage seeds, class mode's and the room's questions read the entries that
    main.py declares in ui/state/catalog.py."""
    readers = {str(p.relative_to(ROOT)) for p in (ROOT / "ui").rglob("*.py") if "screens" in imported_modules(p)}
    assert not readers, readers


def test_the_core_imports_in_a_python_without_streamlit():
    """Every module of attention_core imports with streamlit made unimportable (a notebook without it)."""
    modules = sorted(".".join(p.relative_to(ROOT).with_suffix("").parts) for p in CORE.rglob("*.py"))
    code = ("import sys; sys.modules['streamlit'] = None\n"  # `import streamlit` now raises ImportError
            "import importlib\n"
            f"for name in {modules!r}:\n"
            "    importlib.import_module(name.removesuffix('.__init__'))\n"
            "from attention_core import MultiHeadAttention, stages, BOOK_INPUTS\n"
            "print('ok')")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.stdout.strip() == "ok", done.stderr[-2000:]


def test_one_subpackage_per_concern():
    assert {p.name for p in CORE.iterdir() if p.is_dir() and (p / "__init__.py").exists()} == \
        {"book", "lessons", "models", "drawing"}
    assert not list(CORE.glob("*.py"))[1:] and (CORE / "__init__.py").exists()  # only the notebook names at the top


UI = ROOT / "ui"
CACHES = ("st.cache_data", "st.cache_resource", "byte_cache(")


def test_the_ui_layer_shows_its_layers_in_its_folders():
    # state (what the visitor decided), compute (every cache), server (running a class), draw and view (the
    # screen), teach (class mode): a newcomer reads the layers off the folder names; nothing else at the top.
    assert {p.name for p in UI.iterdir() if p.is_dir() and (p / "__init__.py").exists()} == \
        {"state", "compute", "server", "draw", "view", "teach"}
    assert sorted(p.name for p in UI.glob("*.py")) == ["__init__.py"]


def test_every_cache_lives_in_ui_compute():
    # One home for caching (its budgets, its keys): a screen or a drawing route calls ui/compute, never declares
    # a cache of its own. Plain functools caches of tiny pure helpers are not Streamlit caches and may stay.
    declared = [f"{path.relative_to(ROOT)}:{number}" for path in [*UI.rglob("*.py"), *(ROOT / "screens").glob("*.py")]
                if "compute" not in path.relative_to(UI if UI in path.parents else ROOT).parts
                for number, line in enumerate(path.read_text().splitlines(), 1)
                if line.lstrip().startswith("@") and any(c in line for c in CACHES)]
    assert not declared, declared


def test_no_two_modules_share_a_name():
    # One name per idea: two modules called `memory` (glibc's allocator and the heads-in-memory lesson) or two
    # `lessons` folders for different things confused readers; module stems are unique across the app's packages,
    # except that a screen shares its name with the attention_core module whose lesson it is (screens/gpt2.py
    # shows attention_core/models/gpt2.py): the same word at its two floors.
    stems = {}
    for path in [*(ROOT / "attention_core").rglob("*.py"), *UI.rglob("*.py"), *(ROOT / "screens").glob("*.py"),
                 *(ROOT / "rooms").glob("*.py")]:
        if path.stem != "__init__":
            stems.setdefault(path.stem, []).append(str(path.relative_to(ROOT)))
    def clash(where):
        return len([w for w in where if not w.startswith("attention_core/")]) > 1 or \
            len([w for w in where if not w.startswith("screens/")]) > 1
    assert not {stem: where for stem, where in stems.items() if clash(where)}
