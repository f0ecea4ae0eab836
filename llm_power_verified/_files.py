"""Atomic file writes: a temporary file in the target folder, then os.replace."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_text_atomically(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` so that readers see the old file or the new one, never a partial one."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
