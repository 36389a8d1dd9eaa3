"""The servers' memory (VmRSS) and CPU time, read from /proc (psutil where there is no /proc)."""
import os
import threading
import time


def rss_mb(pid: int) -> float | None:
    """Resident memory of a process in MB: /proc/<pid>/status (Linux), else psutil when present."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    try:
        import psutil
        return psutil.Process(pid).memory_info().rss / 2**20
    except Exception:  # no psutil, or the process is gone
        return None


def cpu_seconds(pid: int | None) -> float | None:
    """User + system CPU time a process has used so far (Linux /proc, else psutil when present)."""
    if not pid:
        return None
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime
    except (OSError, ValueError, IndexError):
        pass
    try:
        import psutil
        times = psutil.Process(pid).cpu_times()
        return times.user + times.system
    except Exception:
        return None


class MemorySampler:
    """Samples the servers' RSS every `interval` seconds in a thread: (seconds since start, MB summed).

    `pids`: one process id, or {server name: pid} for several; `peaks` keeps each one's largest RSS.
    """

    def __init__(self, pids: int | dict | None, interval: float = 1.0):
        pids = pids if isinstance(pids, dict) else {"server": pids}
        self.pids = {name: pid for name, pid in pids.items() if pid}
        self.pid = bool(self.pids)
        self.interval, self.samples, self.peaks, self.last = interval, [], {}, {}
        self._stop = threading.Event()
        self._t0 = time.monotonic()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self):
        if self.pid:
            self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5)

    def _run(self):
        while not self._stop.is_set():
            self.now()
            self._stop.wait(self.interval)

    def now(self) -> float | None:
        values = {name: rss_mb(pid) for name, pid in self.pids.items()}
        values = {name: mb for name, mb in values.items() if mb is not None}
        if not values:
            return None
        for name, mb in values.items():
            self.peaks[name] = max(mb, self.peaks.get(name, 0.0))
        self.last.update(values)
        total = sum(values.values())
        self.samples.append((time.monotonic() - self._t0, total))
        return total

    def elapsed(self) -> float:
        return time.monotonic() - self._t0
