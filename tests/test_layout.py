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
