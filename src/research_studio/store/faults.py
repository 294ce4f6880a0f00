"""Storage faults as one line that names the file and says what to do.

Every place that opens something of the home goes through here: the home folder itself
(``config.resolve_home``), the sessions database (``store/sessions.py``), the checkpoints
database (``store/backends.py``) and the knowledge bases' Chroma folder
(``knowledge/vector_store.py``). A fault there (a folder that is not writable, a corrupt or
truncated file, someone else's database, a full disk, an unreachable server) becomes a
``StorageError`` instead of a driver's traceback.

A database file that exists but is empty was truncated: it is refused, not silently started
afresh (which would make past sessions vanish without a word). The database files made here
are built complete under a temporary name and linked into place, so an empty file at a
database's path never comes from this program, even when two processes start at once on a
new home.
"""

from __future__ import annotations

import errno
import os
import re
import sqlite3
import stat
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

from research_studio.errors import StorageError

SQLITE_HEADER = b"SQLite format 3\x00"
# SQLite's primary result codes (the low byte of an extended code)
_PERM, _READONLY, _IOERR, _CORRUPT, _FULL, _CANTOPEN, _NOTADB = 3, 8, 10, 11, 13, 14, 26
_CHROMA_CODE = re.compile(r"\(code: (\d+)\)")
_CHROMA_WRAPPING = re.compile(r"^error returned from database: |\(code: \d+\) ")
_UNWRITABLE_ERRNOS = {errno.EACCES, errno.EPERM, errno.EROFS}
ELSEWHERE = "set RESEARCH_STUDIO_HOME or --home to a writable folder"
ANOTHER_HOME = "set RESEARCH_STUDIO_HOME or --home to another folder"


@dataclass(frozen=True)
class Store:
    """One kind of stored file: how messages name it, what it holds, which table marks it
    as ours (a file with other tables but not this one is someone else's database)."""

    what: str
    holds: str
    fresh: str
    marker_table: str | None = None


SESSIONS = Store("sessions database", "past sessions are in that file",
                 "delete it to start with no past sessions", "research_sessions")
CHECKPOINTS = Store("checkpoints database", "unfinished sessions resume from that file",
                    "delete it to start afresh (unfinished sessions then restart from the "
                    "beginning)", "checkpoints")
KNOWLEDGE = Store("knowledge-base store", "the knowledge bases are in that file",
                  "move the folder {folder} aside to start with no knowledge bases")
CHROMA_FILE = "chroma.sqlite3"


def reason(exc: BaseException) -> str:
    """The first line of an error's own message, without SQLAlchemy's wrapping."""
    root = getattr(exc, "orig", None) or exc
    if isinstance(root, OSError) and root.strerror:
        return root.strerror
    lines = str(root).strip().splitlines()
    first = _CHROMA_WRAPPING.sub("", lines[0]).strip() if lines else ""
    return first or type(root).__name__


def _sqlite_code(exc: BaseException) -> int | None:
    root = getattr(exc, "orig", None) or exc
    code = getattr(root, "sqlite_errorcode", None)
    if code is None:  # Chroma's Rust core reports "(code: 14) unable to open database file"
        match = _CHROMA_CODE.search(str(root))
        code = int(match.group(1)) if match else None
    return None if code is None else code & 0xFF


def _errno(exc: BaseException) -> int | None:
    root = getattr(exc, "orig", None) or exc
    return root.errno if isinstance(root, OSError) else None


def writable(folder: Path) -> bool:
    return os.access(folder, os.W_OK | os.X_OK)


def ensure_home(home: Path) -> Path:
    """Create the home folder if needed; refuse one that cannot be created or written."""
    try:
        home.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise StorageError(f"home {home} is not a folder: {ELSEWHERE}") from None
    except OSError as exc:
        raise StorageError(f"home {home} cannot be created ({reason(exc)}): "
                           f"{ELSEWHERE}") from None
    if not home.is_dir():
        raise StorageError(f"home {home} is not a folder: {ELSEWHERE}")
    if not writable(home):
        raise StorageError(f"home {home} is not writable: {ELSEWHERE}")
    return home


def _file_problem(store: Store, path: Path) -> StorageError | None:
    """What is wrong with the file at ``path`` as seen on disk, if anything is."""
    try:
        info = path.stat()
    except FileNotFoundError:
        return None
    except OSError as exc:
        return StorageError(f"{store.what} {path} cannot be read ({reason(exc)}): "
                            f"fix its permissions, or {ELSEWHERE}")
    if not stat.S_ISREG(info.st_mode):
        return StorageError(f"{store.what} {path} is not a file: move it aside and run again")
    if info.st_size == 0:
        fresh = store.fresh.format(folder=path.parent)
        return StorageError(f"{store.what} {path} is empty (0 bytes), so it was truncated: "
                            f"restore it from a backup, or {fresh}")
    try:
        with path.open("rb") as handle:
            header = handle.read(len(SQLITE_HEADER))
    except OSError as exc:
        return StorageError(f"{store.what} {path} cannot be read ({reason(exc)}): "
                            f"fix its permissions, or {ELSEWHERE}")
    if header != SQLITE_HEADER:
        return StorageError(f"{store.what} {path} is not a SQLite database (the file is "
                            f"corrupt): move it aside and run again; {store.holds}")
    return None


def check_sqlite_file(store: Store, path: Path) -> bool:
    """Whether a usable-looking database file exists at ``path``: False when there is none
    yet (a first run creates it), a StorageError when the file is not a file, is empty
    (truncated) or is not SQLite. Nothing is opened or created."""
    problem = _file_problem(store, path)
    if problem is not None:
        raise problem
    return path.exists()


def check_chroma_file(folder: Path) -> None:
    """Refuse a Chroma folder whose database is not SQLite, or is empty while the folder
    holds index data (truncated: Chroma would start afresh and every knowledge base would
    vanish). An empty database alone is one that a Chroma starting now is creating."""
    path = folder / CHROMA_FILE
    try:
        empty = path.stat().st_size == 0
        if empty and not any(entry.is_dir() for entry in folder.iterdir()):
            return
    except OSError:
        pass  # missing (a first run), or unreadable: check_sqlite_file says which
    check_sqlite_file(KNOWLEDGE, path)


def check_marker_table(store: Store, path: Path, tables: list[str]) -> None:
    """Refuse a SQLite database that holds tables but not ours: someone else's file."""
    own = [t for t in tables if not t.startswith("sqlite_")]
    if own and store.marker_table and store.marker_table not in own:
        listed = ", ".join(sorted(own)[:5]) + (", …" if len(own) > 5 else "")
        raise StorageError(f"{store.what} {path} is not a Research Studio database (it holds "
                           f"the tables {listed}, not {store.marker_table}): move it aside "
                           f"and run again, or {ANOTHER_HOME}")


def fault(store: Store, path: Path, exc: BaseException) -> StorageError:
    """The one-line StorageError for ``exc``, raised while using ``path``."""
    if isinstance(exc, StorageError):
        return exc
    problem = _file_problem(store, path)
    if problem is not None:
        return problem
    code, err, why = _sqlite_code(exc), _errno(exc), reason(exc)
    if code == _NOTADB:
        return StorageError(f"{store.what} {path} is not a SQLite database (the file is "
                            f"corrupt): move it aside and run again; {store.holds}")
    if code == _CORRUPT:
        return StorageError(f"{store.what} {path} is corrupt ({why}): move it aside and "
                            f"run again; {store.holds}")
    if code == _FULL or err == errno.ENOSPC:
        return StorageError(f"{store.what} {path} cannot be written: the disk is full; free "
                            "some space and run again")
    if code in (_PERM, _READONLY, _CANTOPEN, _IOERR) or err in _UNWRITABLE_ERRNOS:
        unwritable = _unwritable_folder(path if path.is_dir() else path.parent, store.what)
        if unwritable:
            return unwritable
        if path.exists() and not os.access(path, os.R_OK | os.W_OK):
            return StorageError(f"{store.what} {path} is read-only: make it writable, or "
                                f"{ELSEWHERE}")
    return StorageError(f"{store.what} {path} cannot be used ({why}): check the file and "
                        f"its folder, or {ANOTHER_HOME}")


def _unwritable_folder(folder: Path, what: str) -> StorageError | None:
    """The error for ``folder`` (or, when it does not exist yet, the nearest folder it would
    be made in) when files cannot be written there; None when they can."""
    existing = folder
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if writable(existing):
        return None
    return StorageError(f"folder {existing} is not writable ({what}): fix its permissions, "
                        f"or {ELSEWHERE}")


def folder_fault(what: str, folder: Path, exc: BaseException) -> StorageError:
    """The one-line StorageError for a folder that files cannot be written into."""
    if isinstance(exc, StorageError):
        return exc
    if _errno(exc) == errno.ENOSPC:
        return StorageError(f"{what} {folder} cannot be written: the disk is full; free some "
                            "space and run again")
    unwritable = _unwritable_folder(folder, what)
    if unwritable:
        return unwritable
    return StorageError(f"{what} {folder} cannot be written ({reason(exc)}): check the "
                        f"folder, or {ANOTHER_HOME}")


def remote_fault(store: Store, where: str, exc: BaseException) -> StorageError:
    """The one-line StorageError for a database server (PostgreSQL)."""
    if isinstance(exc, StorageError):
        return exc
    return StorageError(f"{store.what} on {where} cannot be used ({reason(exc)}): check "
                        "database_url and that the server is running")


@contextmanager
def storage_faults(store: Store, path: Path) -> Iterator[None]:
    """Turn any error raised inside into the StorageError for ``path``."""
    try:
        yield
    except StorageError:
        raise
    except Exception as exc:
        raise fault(store, path, exc) from exc


def is_storage_exception(exc: BaseException) -> bool:
    """A database driver's error about the database itself (PEP 249's OperationalError or
    a plain DatabaseError, such as SQLite's "file is not a database"), or the file system's;
    not one about the statement (integrity, programming errors)."""
    if isinstance(exc, StorageError):
        return False
    if isinstance(exc, OSError):
        return True
    return type(exc).__name__ in ("OperationalError", "DatabaseError")


def create_atomically(store: Store, path: Path, build: Callable[[Path], None]) -> None:
    """Make the database at ``path`` with ``build(temporary_path)`` and link it into place.
    When another process made it first, theirs is kept and ours discarded."""
    temporary = path.with_name(f".{path.name}.{uuid.uuid4().hex[:12]}.new")
    try:
        with storage_faults(store, path):
            build(temporary)
            try:
                os.link(temporary, path)
            except FileExistsError:
                pass  # another process made it first: it is complete, as ours would be
            except OSError:  # a file system without hard links
                if not path.exists():
                    os.replace(temporary, path)
    finally:
        for leftover in (temporary, *(temporary.with_name(temporary.name + suffix)
                                      for suffix in ("-journal", "-wal", "-shm"))):
            with suppress(OSError):
                leftover.unlink(missing_ok=True)


def sqlite_tables(path: Path) -> list[str]:
    """The table names of an existing SQLite file (opened read-write, as the store will)."""
    conn = sqlite3.connect(str(path))
    try:
        return [name for (name,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")]
    finally:
        conn.close()
