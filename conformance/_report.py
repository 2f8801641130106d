"""What every runner's section of RESULTS.md names (the commit it ran), and how it is written in."""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def nabla_commit() -> str:
    """The checkout's short commit, or "unknown" outside a Git checkout."""
    try:
        return subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def write_section(path: Path, opening: str, text: str, header: str = "") -> None:
    """Put ``text`` (a section, its heading first) in ``path`` in place of the section whose heading
    starts with ``opening``, or after the others; every other section stays as it is."""
    old = path.read_text() if path.exists() else header
    head, *sections = old.split("\n## ")
    sections = ["## " + s.rstrip("\n") + "\n" for s in sections]
    place = next((i for i, s in enumerate(sections) if s.startswith(opening)), len(sections))
    kept = [s for s in sections if not s.startswith(opening)]
    kept.insert(min(place, len(kept)), text.rstrip("\n") + "\n")
    path.write_text(head.rstrip("\n") + "\n\n" + "\n".join(kept))
