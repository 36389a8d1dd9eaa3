"""The server's start-up thread (app.py) and a visitor's first run of main.py import the app at the same moment
without deadlocking (first_imports.py says why they could).

The race is made certain, not left to chance: in a fresh interpreter, an import hook holds the page's thread for
0.5 s after it took `ui`'s import lock and before ui is in sys.modules, and only then does the start-up thread begin
its imports (torch and the core already loaded, so that it reaches `from ui.server import` within that time). Without the
shared lock this is the interleaving that deadlocked on CI: the start-up thread takes ui.server's lock and waits
for ui's, the page's thread reaches `from ui.server import run_gate` inside ui/__init__.py, and Python raises
_DeadlockError in one of them.
"""
import ast
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_main_py_imports_the_app_only_under_the_first_imports_lock():
    """Every import of the app's own packages at main.py's top level is inside `with FIRST_IMPORTS:`."""
    own = {"ui", "screens", "attention_core", "rooms"}
    tree = ast.parse((ROOT / "main.py").read_text(encoding="utf-8"))
    outside = [node.lineno for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))
               and {(a.name if isinstance(node, ast.Import) else node.module or "").split(".")[0]
                    for a in node.names} & own]
    assert not outside, f"main.py imports the app outside the lock at lines {outside}"


def test_the_start_up_thread_and_a_first_visit_import_the_app_together_without_deadlock():
    code = textwrap.dedent("""
        import ast, importlib.abc, importlib.machinery, os, sys, threading, time
        os.environ["ATTENTION_WARMUP"] = "0"  # the imports only: no warm-up runs
        page_holds_ui = threading.Event()

        class HoldingLoader(importlib.abc.Loader):
            # Python calls create_module holding ui's import lock, before ui is in sys.modules, and without its
            # global import lock (which a finder's find_spec holds): the moment the start-up thread's
            # `from ui.server import` still finds no ui and goes to import it itself.
            def __init__(self, inner):
                self.inner = inner

            def create_module(self, spec):
                page_holds_ui.set()
                time.sleep(0.5)
                return None  # Python makes the module as usual

            def exec_module(self, module):
                self.inner.exec_module(module)

        class HoldThePage(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path=None, target=None):
                if name != "ui" or threading.current_thread().name != "page":
                    return None  # the ordinary finders
                spec = importlib.machinery.PathFinder.find_spec(name, path)
                spec.loader = HoldingLoader(spec.loader)
                return spec

        sys.meta_path.insert(0, HoldThePage())
        import app  # the server module: streamlit and first_imports, not yet the app's packages
        import screens.registry  # torch and the core, loaded now: the start-up thread reaches ui.server at once
        assert "ui" not in sys.modules
        main = ast.parse(open("main.py", encoding="utf-8").read())
        imports = next(node for node in main.body if isinstance(node, ast.With))  # main.py's `with FIRST_IMPORTS:`
        block = compile(ast.Module(body=[imports], type_ignores=[]), "main.py", "exec")
        errors = []

        def page():
            try:
                exec(block, {"FIRST_IMPORTS": app.FIRST_IMPORTS})
            except BaseException as error:
                errors.append(f"page: {error!r}")

        def start_up():
            page_holds_ui.wait(10)
            try:
                app._start_warmup()
            except BaseException as error:
                errors.append(f"start-up: {error!r}")

        threads = [threading.Thread(target=page, name="page"), threading.Thread(target=start_up, name="start")]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(120)
        print("errors:", errors, "alive:", [t.name for t in threads if t.is_alive()])
        assert page_holds_ui.is_set() and not errors and not any(t.is_alive() for t in threads)
        print("ok")
    """)
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.strip().endswith("ok"), done.stdout + done.stderr[-3000:]
