"""The Streamlit server a run talks to: one it starts on a free port, or one on this machine it is pointed at."""
import asyncio
import ipaddress
import sys
import urllib.parse
from contextlib import contextmanager

from local_server import streamlit_server

from . import ROOT


@contextmanager
def local_server(extra_args=(), start_timeout=120):
    """`streamlit run app.py` on 127.0.0.1 and a free port; yields (base_url, pid, log_path)."""
    with streamlit_server(ROOT / "app.py", tuple(extra_args), start_timeout) as (base, proc, log):
        yield base, proc.pid, log


def require_loopback(url: str) -> None:
    """Refuse (exit) a --url that is not on this machine: the load test never leaves loopback."""
    host = urllib.parse.urlparse(url).hostname or ""
    try:
        ok = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        ok = False
    if not ok:
        sys.exit(f"--url must point at this machine (127.0.0.1, localhost or [::1]), not {host!r}")


def quiet_cancel(loop, context):
    """The event loop's error handler: Ctrl-C cancels the students, and that needs no traceback."""
    if not isinstance(context.get("exception"), asyncio.CancelledError):
        loop.default_exception_handler(context)
