"""The scripts stand on their own: nothing under scripts/ imports from tests/ (the tests may import scripts/).

A source scan, no imports run: an import of a module that lives in tests/ (browser, conftest, ...),
or the string "tests" as a path part (how a script would put tests/ on sys.path), is a finding.
"""
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEST_MODULES = {"tests"} | {path.stem for path in (ROOT / "tests").glob("*.py")}


def reaches_into_tests(source: str) -> list[str]:
    """What in `source` imports from tests/: 'line N: <module>' for each finding."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:  # relative imports stay in their package
            modules = [node.module]
        elif isinstance(node, ast.Constant) and node.value == "tests":  # ROOT / "tests" on sys.path
            modules = ["tests"]
        else:
            continue
        found += [f"line {node.lineno}: {name}" for name in modules if name.split(".")[0] in TEST_MODULES]
    return found


def test_no_script_imports_from_tests():
    scripts = sorted((ROOT / "scripts").rglob("*.py"))
    assert ROOT / "scripts" / "load_test.py" in scripts and ROOT / "scripts" / "load" / "cli.py" in scripts
    findings = {str(path.relative_to(ROOT)): hits for path in scripts if (hits := reaches_into_tests(path.read_text()))}
    assert not findings, f"scripts that import from tests/ (move the helper to scripts/): {findings}"
