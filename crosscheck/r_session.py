"""A persistent R process that evaluates one expression per call, for the conformance run's many R calls.

Starting Rscript costs about 0.2 s a call; the conformance run makes thousands of calls to R's ``stats`` and ``pwr``.
:class:`RSession` starts ``R --vanilla --slave --no-echo`` once, loads ``pwr`` and sends each expression as an R
string: R parses and evaluates it inside ``tryCatch`` and prints its value at 17 significant digits (enough to
round-trip a double), or an error marker with R's message.  Warnings are muffled and returned beside the value.
A call that does not answer within its timeout kills the process (the next call starts a fresh one) and raises
:class:`TimeoutError`.  Use it as a context manager so the process is shut down cleanly::

    with RSession() as session:
        session.evaluate("binom.test(3, 10)$p.value")

Without R or pwr, :class:`crosscheck.r_tools.RUnavailable` says which Debian packages to install.
"""

from __future__ import annotations

import contextlib
import math
import queue
import subprocess
import threading
import time
from dataclasses import dataclass

from crosscheck.r_tools import DEBIAN_PACKAGES, RUnavailable, rscript_path

END = "<<llm-power-verified-end>>"

# Each call is one line of R: the expression travels as a string literal, so a syntax error is an error of this
# call (R would otherwise stop reading its input at the first one).  The reply is "OK v1 v2 ...", or "ERR message",
# then zero or more "WARN message" lines, then the END marker.
_PROGRAM = (
    "local({{ .warnings <- character(0); "
    ".reply <- tryCatch(withCallingHandlers({{ .value <- eval(parse(text = {expression})); "
    'paste("OK", paste(sprintf("%.17g", as.numeric(.value)), collapse = " ")) }}, '
    "warning = function(w) {{ .warnings <<- c(.warnings, conditionMessage(w)); invokeRestart('muffleWarning') }}), "
    'error = function(e) paste("ERR", gsub("[\\r\\n]+", " ", conditionMessage(e)))); '
    'cat(.reply, "\\n", sep = ""); for (.w in .warnings) cat("WARN ", gsub("[\\r\\n]+", " ", .w), "\\n", sep = ""); '
    'cat("{end}\\n"); flush(stdout()) }})\n'
)


class RError(RuntimeError):
    """R raised an error while evaluating an expression; the message is R's."""


@dataclass(frozen=True)
class RReply:
    """What one R expression returned: its values and any warnings R gave."""

    values: tuple[float, ...]
    warnings: tuple[str, ...]


def _r_string(text: str) -> str:
    """``text`` as an R double-quoted string literal."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")
    return f'"{escaped}"'


class RSession:
    """One R process, reused for many calls (a context manager).

    Parameters
    ----------
    timeout : float, default 30
        Seconds one call may take before the process is killed and :class:`TimeoutError` raised.
    packages : tuple of str, default ("pwr",)
        R packages loaded at start; a missing one raises :class:`crosscheck.r_tools.RUnavailable`.
    """

    def __init__(self, timeout: float = 30.0, packages: tuple[str, ...] = ("pwr",)) -> None:
        self.timeout = timeout
        self.packages = packages
        self._process: subprocess.Popen[str] | None = None
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._reader: threading.Thread | None = None
        self.calls = 0

    def __enter__(self) -> RSession:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def start(self) -> None:
        """Start R (if it is not running) and load the packages."""
        if self._process is not None and self._process.poll() is None:
            return
        rscript = rscript_path()
        if rscript is None:
            raise RUnavailable(
                "Rscript not found: install R and pwr with "
                f"`apt-get install -y --no-install-recommends {DEBIAN_PACKAGES}` (Debian packages {DEBIAN_PACKAGES})"
            )
        r_binary = rscript[: -len("script")] if rscript.endswith("Rscript") else "R"
        self._lines = queue.Queue()
        self._process = subprocess.Popen(
            [r_binary, "--vanilla", "--slave", "--no-echo"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )
        self._reader = threading.Thread(target=self._read, args=(self._process,), daemon=True)
        self._reader.start()
        for package in self.packages:
            try:
                self.evaluate(f"suppressPackageStartupMessages(library({package})); 1")
            except RError as error:
                self.close()
                raise RUnavailable(
                    f"the R package {package} is missing ({error}): install the Debian package r-cran-{package} "
                    f"({DEBIAN_PACKAGES})"
                ) from error

    def _read(self, process: subprocess.Popen[str]) -> None:
        if process.stdout is None:
            return
        with process.stdout:  # closed at R's end of output (exit or kill), so no pipe is left for the collector
            for line in process.stdout:
                self._lines.put(line.rstrip("\n"))
        self._lines.put(None)

    def reply(self, expression: str) -> RReply:
        """Evaluate one R expression; its numeric values (17 significant digits) and R's warnings.

        Raises :class:`RError` with R's message when R signals an error, :class:`TimeoutError` when R does not
        answer within ``timeout`` seconds (the process is then killed; the next call starts a new one).
        """
        self.start()
        process = self._process
        if process is None or process.stdin is None:
            raise RError("R is not running")
        process.stdin.write(_PROGRAM.format(expression=_r_string(expression), end=END))
        process.stdin.flush()
        self.calls += 1
        try:
            lines = self._collect(expression)
        except BaseException:
            # Interrupted (a time limit of the caller's, Ctrl-C) or timed out: R may still answer this call later,
            # and that answer would be read as the next call's.  A fresh process starts on the next call instead.
            self.kill()
            raise
        head, warnings = lines[0] if lines else "ERR no reply", tuple(line[5:] for line in lines[1:])
        if head.startswith("ERR"):
            raise RError(head[4:].strip())
        return RReply(tuple(math.nan if value == "NA" else float(value) for value in head[3:].split()), warnings)

    def _collect(self, expression: str) -> list[str]:
        """The reply lines of the call just sent, up to the end marker."""
        deadline = time.monotonic() + self.timeout
        lines: list[str] = []
        while True:
            try:
                line = self._lines.get(timeout=max(deadline - time.monotonic(), 0.0))
            except queue.Empty:
                raise TimeoutError(f"R did not answer within {self.timeout:g} s: {expression}") from None
            if line is None:
                raise RError(f"R exited while evaluating {expression}")
            if line == END:
                return lines
            lines.append(line)

    def kill(self) -> None:
        """Stop R at once (a call in progress is abandoned)."""
        process, self._process = self._process, None
        if process is not None:
            process.kill()
            process.wait()
            if process.stdin is not None:
                # The pipe is broken once R is gone; closing it only releases the descriptor.
                with contextlib.suppress(OSError):
                    process.stdin.close()
            self._join()

    def evaluate(self, expression: str) -> float:
        """The single number ``expression`` evaluates to (see :meth:`reply`)."""
        values = self.reply(expression).values
        if len(values) != 1:
            raise RError(f"{expression} returned {len(values)} values, not one")
        return values[0]

    def text(self, expression: str) -> str:
        """A character value of R (such as ``R.version.string``), on one line."""
        self.start()
        if self._process is None or self._process.stdin is None:
            raise RError("R is not running")
        self._process.stdin.write(f"cat(gsub('\\n', ' ', {expression}), '\\n{END}\\n', sep = '')\n")
        self._process.stdin.flush()
        lines = []
        while (line := self._lines.get(timeout=self.timeout)) not in (END, None):
            lines.append(line)
        return " ".join(lines).strip()

    def versions(self) -> dict[str, str]:
        """R's version string and the version of each loaded package."""
        found = {"R": self.text("R.version.string")}
        for package in self.packages:
            found[package] = self.text(f"as.character(packageVersion('{package}'))")
        return found

    def close(self) -> None:
        """Stop R: end its input, then kill it if it has not exited within a second."""
        process, self._process = self._process, None
        if process is None:
            return
        try:
            if process.stdin is not None:
                process.stdin.close()
            process.wait(timeout=1)
        except (OSError, subprocess.TimeoutExpired):
            process.kill()
            process.wait()
        self._join()

    def _join(self) -> None:
        """Wait for the reader to reach R's end of output (it then closes the pipe)."""
        if self._reader is not None:
            self._reader.join(timeout=5)
            self._reader = None
