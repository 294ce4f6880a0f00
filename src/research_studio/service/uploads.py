"""Uploaded documents: names that cannot leave the knowledge base's upload folder."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path, PurePosixPath

from research_studio.errors import ResearchStudioError

_UNSAFE = re.compile(r"[^\w.\- ()+,]")


def safe_upload_name(name: str | None) -> str:
    """The last path component of a client's file name, with control and shell-special
    characters replaced; names that are empty or only dots are refused."""
    raw = unicodedata.normalize("NFC", (name or "")).replace("\\", "/").replace("\x00", "")
    base = PurePosixPath(raw).name
    base = "".join(ch for ch in base if unicodedata.category(ch)[0] != "C")
    base = _UNSAFE.sub("_", base).strip(" .")[:200]
    if not base or set(base) <= {"."}:
        raise ResearchStudioError(f"unusable file name {name!r}")
    return base


def upload_path(folder: Path, name: str | None) -> Path:
    """Where an upload is stored: inside ``folder``, never outside it."""
    folder = folder.resolve()
    target = (folder / safe_upload_name(name)).resolve()
    if not target.is_relative_to(folder) or target == folder:
        raise ResearchStudioError(f"file name {name!r} leaves the upload folder")
    return target
