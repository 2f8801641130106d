"""Compiled models on disk, shared by every process and thread on this machine.

An entry is one file, ``<key digest>.<content digest>.mef``: it appears by an atomic rename
of a private temporary file, so a reader never sees half of one, and its name carries the
sha256 of its bytes, so a truncated or overwritten file is detected before MAX reads it,
then dropped and rebuilt. Two processes writing one key at once each publish a whole file;
either serves. A process about to build an entry others may want at the same time (Nabla's kernel
models) first takes the key's ``Claim``; the others wait for it and read its file.
"""

from __future__ import annotations

import bisect
import fcntl
import functools
import hashlib
import os
import threading
import time
import uuid
from pathlib import Path

import max

_FORMAT = "v3"  # bump when the meaning of a structure key or of an entry changes
_CONTENT_DIGITS = 16


@functools.cache
def _max_tag() -> str:
    """``max-<version>``, read from MAX's dist-info folder name beside its package when there is
    one (``importlib.metadata`` costs ~20 ms of import time), else from the metadata."""
    try:
        for path in max.__path__:
            for info in Path(path).parent.glob("max-*.dist-info"):
                return "max-" + info.name[len("max-"):-len(".dist-info")]
        from importlib.metadata import version  # (lazy: see above)

        return f"max-{version('max')}"
    except Exception:
        return "max-unknown"


def default_root() -> Path | None:
    """``$NABLA_CACHE_DIR`` (``off`` disables), else ``~/.cache/nabla``, versioned by MAX's version."""
    root = os.environ.get("NABLA_CACHE_DIR")
    if root == "off":
        return None
    return (Path(root) if root else Path.home() / ".cache" / "nabla") / _max_tag()


def source_digest(root: Path, suffixes=(".py", ".mojo"), extra=(), exclude=()) -> str:
    """A digest of the files under ``root`` (and of ``extra`` files, less ``exclude``): a key names
    ops, not how they lower, so models compiled by another version of the lowerings must never be
    found."""
    h = hashlib.sha256()
    paths = [p for p in sorted(root.rglob("*")) if p.suffix in suffixes and p not in exclude] + list(extra)
    for path in paths:
        h.update(path.name.encode() if path in extra else path.relative_to(root).as_posix().encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:12]


class ModelDiskCache:
    """Verified, atomically written MEF files keyed by a structure key's stable text."""

    def __init__(self, directory: Path):
        self.directory = directory
        self._listing: list[str] = []  # the directory's names, sorted
        self._listed_at = None  # (the directory's mtime, when it was listed)

    @staticmethod
    def key_digest(stable_key: str) -> str:
        return hashlib.sha256(stable_key.encode()).hexdigest()[:40]

    def _entries(self, key_digest: str) -> list[str]:
        """Entry names for the key. The directory (thousands of entries on a machine that has run
        Nabla a while) is listed once, as a sorted list searched by bisection (cheaper than a dict
        of it for a process's first read), and again only when its mtime moves;
        a listing taken within a clock tick of that mtime may miss a file published in the same
        tick, so it is not trusted for a miss."""
        try:
            mtime = os.stat(self.directory).st_mtime
        except OSError:
            return []
        stale = self._listed_at is None or self._listed_at[0] != mtime
        found = [] if stale else self._find(key_digest)
        if not stale and not found and self._listed_at[1] - mtime < 0.05:
            stale = True
        if stale:
            now = time.time()
            try:
                self._listing = sorted(os.listdir(self.directory))
            except OSError:
                return []
            self._listed_at = (mtime, now)
            found = self._find(key_digest)
        return found

    def _find(self, key_digest: str) -> list[str]:
        names, prefix = self._listing, key_digest + "."
        i = bisect.bisect_left(names, prefix)
        out = []
        while i < len(names) and names[i].startswith(prefix):
            if names[i].endswith(".mef"):
                out.append(names[i])
            i += 1
        return out

    def load(self, key_digest: str, read):
        """``read(path, data)`` of the first intact entry for the key (``data``: its bytes, read
        once), or ``None``; bad entries are removed."""
        for path in [self.directory / name for name in self._entries(key_digest)]:
            want = path.name[len(key_digest) + 1: -len(".mef")]
            try:
                data = path.read_bytes()
            except OSError:
                continue
            if hashlib.sha256(data).hexdigest()[:_CONTENT_DIGITS] != want:
                path.unlink(missing_ok=True)  # torn or overwritten: rebuilt by the next compile
                continue
            try:
                return read(path, data), len(data)
            except Exception:  # MAX refused an intact file (another MAX build): drop it
                path.unlink(missing_ok=True)
        return None

    def path_of(self, key_digest: str):
        """The file of the key's first entry, or None."""
        names = self._entries(key_digest)
        return self.directory / names[0] if names else None

    def alias(self, key_digest: str, source: Path) -> bool:
        """Publish the entry file ``source`` (a ``<digest>.<content>.mef`` name) under another key,
        as its only entry: a hard link, or a copy where links are refused. Readers verify it as any
        entry; one that listed a dropped entry finds it gone and reads as a miss."""
        content = source.name.split(".")[1]
        target = self.directory / f"{key_digest}.{content}.mef"
        staged = self._staging(key_digest)
        try:
            try:
                os.link(source, staged)
            except OSError:
                staged.write_bytes(source.read_bytes())
            os.replace(staged, target)
        except OSError:
            staged.unlink(missing_ok=True)
            return False
        self._listed_at = None  # the key's entries changed under this listing
        for name in self._entries(key_digest):
            if name != target.name:  # the file it stood for before (a bundle it left: ``single_op._regroup``)
                (self.directory / name).unlink(missing_ok=True)
        return True

    def claim(self, key_digest: str) -> Claim | None:
        """The machine-wide claim on building the key's entry (None where it cannot be made)."""
        try:
            folder = self.directory / ".claims"
            folder.mkdir(parents=True, exist_ok=True)
            return Claim(folder / key_digest)
        except OSError:
            return None

    def _staging(self, key_digest: str) -> Path:
        """A private name in the directory (hidden: listings skip it) to write before the rename."""
        return self.directory / f".{key_digest}.{os.getpid()}.{threading.get_ident()}.{uuid.uuid4().hex[:8]}.mef"

    def save(self, key_digest: str, export) -> int:
        """Publish what ``export(tmp_path)`` writes; returns its size in bytes (0 if not written)."""
        staged = self._staging(key_digest)
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            export(staged)
            data = staged.read_bytes()
            digest = hashlib.sha256(data).hexdigest()[:_CONTENT_DIGITS]
            os.replace(staged, self.directory / f"{key_digest}.{digest}.mef")
            return len(data)
        except Exception:
            staged.unlink(missing_ok=True)
            return 0


class Claim:
    """An exclusive ``flock`` on one file per key: the process holding it builds the entry. The
    kernel frees it when the holder closes it or exits, however it exits, so a killed builder
    leaves nothing stale behind (its waiters then build the entry themselves)."""

    def __init__(self, path: Path):
        self._fd = os.open(path, os.O_CREAT | os.O_RDWR, 0o644)

    def try_take(self) -> bool:
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            return False

    def take(self) -> None:
        """Block until the holder lets go."""
        fcntl.flock(self._fd, fcntl.LOCK_EX)

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # (closing the file drops its lock)
            self._fd = None

    __del__ = release  # (an engine dropped with a compile under way lets go with it)


def model_cache_dir(package_root: Path) -> Path | None:
    root = default_root()
    return None if root is None else root / f"{_FORMAT}-{source_digest(package_root)}"


def kernel_cache_dir() -> Path | None:
    """The kernel cache, machine-wide: the single-op models and the Mojo builds of Nabla's kernels
    (``$NABLA_KERNEL_CACHE_DIR``, else ``~/.cache/nabla/<MAX version>/kernels``; ``off`` disables).
    Entries are named by a digest of their sources, so they outlive changes elsewhere in Nabla."""
    root = os.environ.get("NABLA_KERNEL_CACHE_DIR")
    if root == "off":
        return None
    return Path(root) if root else Path.home() / ".cache" / "nabla" / _max_tag() / "kernels"
