"""One lock around the app's first imports, taken by the server's start (app.py) and by every run of the page (main.py).

Why: app.py imports the app in a thread as the server starts, and the first visitor's run of main.py may import it at
the same moment. Python's import locks are one per module, and a thread that runs `from ui.server import x` before
`ui` is loaded takes ui.server's lock and then ui's, while `import ui` takes ui's and then, inside ui/__init__.py,
ui.server's: two threads in those orders wait for each other, and Python raises _DeadlockError in one of them (a
visitor's page showed it on CI, 2026-11-27). Under this lock the two sets of imports run one after the other; once the
modules are loaded, taking it costs a run nothing that counts.
"""
import threading

LOCK = threading.Lock()
