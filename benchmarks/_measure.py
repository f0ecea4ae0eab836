"""Run a command and report its wall time and the peak resident memory of its whole process tree.

``/usr/bin/time``'s maximum RSS is one process's; a Dask run's workers are
other processes, so the tree is sampled from ``/proc`` every 50 ms (Linux only).
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path


def _children() -> dict[int, list[int]]:
    tree: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            tree.setdefault(parent, []).append(int(entry.name))
    return tree


def _rss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def tree_rss_mb(root: int) -> float:
    tree, total, stack = _children(), 0, [root]
    while stack:
        pid = stack.pop()
        total += _rss_kb(pid)
        stack.extend(tree.get(pid, []))
    return total / 1024


def measure(command: list[str], **kwargs) -> tuple[float, float, subprocess.CompletedProcess]:
    """(seconds, peak MB of the process tree, completed process) of ``command``."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kwargs)
    peak = 0.0
    while process.poll() is None:
        peak = max(peak, tree_rss_mb(process.pid))
        time.sleep(0.05)
    seconds = time.perf_counter() - start
    stdout, stderr = process.communicate()
    completed = subprocess.CompletedProcess(command, process.returncode, stdout, stderr)
    if process.returncode:
        raise RuntimeError(f"{' '.join(command)} failed ({process.returncode}): {stderr.strip()[-500:]}")
    return seconds, peak, completed


def environment() -> dict:
    return {"cores": os.cpu_count()}
