"""Several app servers behind HAProxy on one machine: N `streamlit run app.py` processes, sticky sessions.

    python scripts/cluster.py                        # 2 app servers, the balancer on http://127.0.0.1:8501
    python scripts/cluster.py --servers 4 --port 8080
    python scripts/cluster.py --no-sticky            # round robin per request (to see what breaks)

A thin launcher of the real parts, the same topology as deploy/compose.yaml without containers:
each app server is `streamlit run app.py` on a free loopback port (scripts/local_server.py), and
Debian's `haproxy` runs deploy/haproxy.cfg with its `server` lines replaced by those processes.
Everything it started is stopped when it exits: Ctrl-C, SIGTERM, or an error. Loopback only.
"""
import argparse
import csv
import io
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from local_server import ROOT, free_port, redis_server, stop, streamlit_server, wait_healthy  # noqa: E402

CONFIG = ROOT / "deploy" / "haproxy.cfg"
COOKIE = "APP_SERVER"  # the cookie deploy/haproxy.cfg inserts: its value names the app server
SERVER_LINE = re.compile(r"^\s*server\s")


@dataclass
class AppServer:
    name: str  # HAProxy's name for it, and the value of the APP_SERVER cookie ("app1", ...)
    url: str
    proc: subprocess.Popen
    log: Path

    @property
    def pid(self) -> int:
        return self.proc.pid


@dataclass
class Cluster:
    url: str  # the balancer: what students open
    stats_url: str  # HAProxy's per-server state as CSV
    servers: dict = field(default_factory=dict)  # name -> AppServer
    haproxy: subprocess.Popen | None = None
    config: Path | None = None

    def stop_server(self, name: str, hard: bool = False) -> None:
        """Stop one app server as a crash (hard: SIGKILL) or a shutdown would (SIGTERM)."""
        proc = self.servers[name].proc
        proc.kill() if hard else proc.terminate()
        proc.wait(timeout=15)

    def status(self) -> dict:
        """HAProxy's view of each app server: name -> {"status": "UP"/"DOWN"/..., "stot": sessions so far, ...}."""
        text = urllib.request.urlopen(self.stats_url, timeout=5).read().decode()
        rows = csv.DictReader(io.StringIO(text.lstrip("# ")))
        return {r["svname"]: r for r in rows if r["pxname"] == "app" and r["svname"] not in ("FRONTEND", "BACKEND")}

    def wait_status(self, name: str, wanted: str, timeout: float) -> float:
        """Seconds until HAProxy reports server `name` as `wanted` (e.g. "DOWN"); raises on timeout."""
        start = time.monotonic()
        while True:
            if self.status()[name]["status"].startswith(wanted):
                return time.monotonic() - start
            if time.monotonic() - start > timeout:
                raise TimeoutError(f"{name} not {wanted} after {timeout} s: {self.status()[name]['status']}")
            time.sleep(0.05)


def render_config(servers: dict, sticky: bool = True, template: Path = CONFIG) -> str:
    """deploy/haproxy.cfg with its `server` lines replaced by `servers` (name -> "host:port").

    Without `sticky`, the cookie lines go: HAProxy then balances every request on its own.
    """
    out, replaced = [], False
    for line in template.read_text().splitlines():
        if SERVER_LINE.match(line):
            if not replaced:
                indent = line[:len(line) - len(line.lstrip())]
                out += [f"{indent}server {name} {address}" + (f" cookie {name}" if sticky else "")
                        for name, address in servers.items()]
                replaced = True
            continue
        if not sticky and line.strip().startswith("cookie "):
            continue
        out.append(line)
    if not replaced:
        raise ValueError(f"{template} has no server lines to replace")
    return "\n".join(out) + "\n"


def haproxy_binary() -> str:
    found = shutil.which("haproxy") or ("/usr/sbin/haproxy" if Path("/usr/sbin/haproxy").exists() else None)
    if not found:
        raise RuntimeError("haproxy not found (Debian: apt-get install haproxy)")
    return found


@contextmanager
def app_servers(n: int = 2, extra_args: tuple = (), start_timeout: float = 120):
    """N `streamlit run app.py` on free loopback ports, started side by side; yields {name: AppServer}."""
    managers = [streamlit_server(ROOT / "app.py", tuple(extra_args), start_timeout) for _ in range(n)]
    with ExitStack() as stack:
        with ThreadPoolExecutor(max_workers=n) as pool:  # each waits for its own health check
            futures = [pool.submit(m.__enter__) for m in managers]
        servers, failure = {}, None
        for number, (manager, future) in enumerate(zip(managers, futures), start=1):
            try:
                base, proc, log = future.result()
            except Exception as error:  # the others still get stopped by the stack
                failure = failure or error
                continue
            stack.push(manager.__exit__)
            servers[f"app{number}"] = AppServer(f"app{number}", base, proc, log)
        if failure:
            raise failure
        yield servers


@contextmanager
def balancer(servers: dict, port: int | None = None, sticky: bool = True, check_inter: str = "2s",
             check_fall: int = 2, check_rise: int = 2):
    """Debian's haproxy with deploy/haproxy.cfg in front of `servers` ({name: AppServer}); yields a Cluster."""
    port = port or free_port()
    stats_port = free_port()
    result = Cluster(f"http://127.0.0.1:{port}", f"http://127.0.0.1:{stats_port}/stats;csv", dict(servers))
    workdir = Path(tempfile.mkdtemp(prefix="haproxy-"))
    result.config = workdir / "haproxy.cfg"
    result.config.write_text(render_config(
        {name: s.url.removeprefix("http://") for name, s in servers.items()}, sticky))
    env = os.environ | {"BIND": f"127.0.0.1:{port}", "STATS_BIND": f"127.0.0.1:{stats_port}",
                        "CHECK_INTER": check_inter, "CHECK_FALL": str(check_fall), "CHECK_RISE": str(check_rise)}
    log = workdir / "haproxy.log"
    with open(log, "wb") as out:  # -db: stay in the foreground, so this process owns it
        result.haproxy = subprocess.Popen([haproxy_binary(), "-db", "-f", str(result.config)],
                                          env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_healthy(result.url, time.time() + 30, result.haproxy, log)
        deadline = time.monotonic() + 30  # servers start DOWN until their first check passes
        while not all(s["status"].startswith("UP") for s in result.status().values()):
            if time.monotonic() > deadline:
                raise RuntimeError(f"app servers not UP in HAProxy: {result.status()}")
            time.sleep(0.1)
        yield result
    finally:
        stop(result.haproxy)
        shutil.rmtree(workdir, ignore_errors=True)  # its config and log (a failed start showed the log already)


@contextmanager
def cluster(n: int = 2, port: int | None = None, sticky: bool = True, check_inter: str = "2s",
            check_fall: int = 2, check_rise: int = 2, extra_args: tuple = (), start_timeout: float = 120):
    """N app servers and HAProxy in front, on loopback; yields a Cluster; stops them all on exit."""
    with app_servers(n, extra_args, start_timeout) as servers, \
            balancer(servers, port, sticky, check_inter, check_fall, check_rise) as result:
        yield result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--servers", type=int, default=2, help="app server processes (default 2)")
    parser.add_argument("--port", type=int, default=8501, help="the balancer's port on 127.0.0.1 (default 8501)")
    parser.add_argument("--no-sticky", action="store_true", help="no cookie: every request balanced on its own")
    parser.add_argument("--check-inter", default="2s", help="HAProxy's health-check interval (default 2s)")
    parser.add_argument("--redis", action="store_true", help="class rooms in a redis-server started here, shared by "
                        "every app server (default: the SQLite file every process on this machine shares)")
    args = parser.parse_args()
    # SIGTERM unwinds like Ctrl-C, so the `with` below stops everything it started.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        with ExitStack() as rooms:
            if args.redis:  # the app servers inherit it: rooms/backends.py reads ATTENTION_ROOMS_STORE
                os.environ["ATTENTION_ROOMS_STORE"] = rooms.enter_context(redis_server(Path(tempfile.mkdtemp())))
                print(f"rooms: {os.environ['ATTENTION_ROOMS_STORE']}", flush=True)
            serve(args)
    except KeyboardInterrupt:
        pass


def serve(args) -> None:
    """The cluster, until Ctrl-C, haproxy's exit, or every app server's."""
    with cluster(args.servers, args.port, sticky=not args.no_sticky, check_inter=args.check_inter) as c:
        for s in c.servers.values():
            print(f"{s.name}: {s.url} (pid {s.pid}, log {s.log})")
        print(f"haproxy: pid {c.haproxy.pid}, config {c.config}\nstats: {c.stats_url}\n"
              f"open {c.url}  (Ctrl-C stops everything)", flush=True)
        gone = set()
        while c.haproxy.poll() is None and len(gone) < len(c.servers):
            for s in c.servers.values():  # HAProxy sends its students to the others
                if s.proc.poll() is not None and s.name not in gone:
                    gone.add(s.name)
                    print(f"{s.name} exited (code {s.proc.returncode}); see {s.log}", flush=True)
            time.sleep(1)
        sys.exit("haproxy or every app server exited; stopping the rest")

if __name__ == "__main__":
    main()
