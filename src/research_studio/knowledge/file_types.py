"""What a file is, read from its name, and compressed files read through.

Documentation as a system installs it is often compressed and often has no suffix:
Debian's ``/usr/share/doc`` holds ``NEWS.gz``, ``README.Debian.gz``, ``changelog.html.gz``,
``copyright`` and ``RBASH``. A compressed file is read as the file inside it (the name
without its compression suffix), and a name whose suffix no file type claims is plain
text when its content is text (``documents.load_file`` refuses binary content).
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import mimetypes
import zlib
from pathlib import PurePath

# The compression suffixes read through, with how to open each. gzip is what Debian
# compresses its documentation with; bzip2 and xz are what other distributions and
# software archives use for single files.
_OPENERS = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}
COMPRESSION_SUFFIXES = frozenset(_OPENERS)
_STREAM_ERRORS = (OSError, EOFError, lzma.LZMAError, zlib.error)
# Only the standard library's own table of file types, not the machine's
# /etc/mime.types, so a file reads the same on every machine.
_KNOWN_TYPES = mimetypes.MimeTypes()


class CompressedDataError(Exception):
    """The compressed data cannot be read, or unpacks to more than the limit."""


def inner_name(name: str | PurePath) -> PurePath:
    """The name of the document a file holds: ``NEWS.gz`` holds ``NEWS``,
    ``changelog.html.gz`` holds ``changelog.html``; other names are their own."""
    path = PurePath(name)
    return path.with_suffix("") if path.suffix.lower() in COMPRESSION_SUFFIXES else path


def compression_of(name: str | PurePath) -> str:
    """The compression suffix of ``name`` (lower case), or "" when it is not compressed."""
    suffix = PurePath(name).suffix.lower()
    return suffix if suffix in COMPRESSION_SUFFIXES else ""


def names_a_file_type(suffix: str) -> bool:
    """The suffix is one a file type is known by (``.png``, ``.css``, ``.js``, ``.c``), so
    a file with it is that type, not a plain-text document named with a dot
    (``README.Debian``, ``NEWS.old``, ``basics.source``)."""
    probe = f"file{suffix}"
    return any(_KNOWN_TYPES.guess_type(probe, strict=False))


def decompress(data: bytes, compression: str, limit: int) -> bytes:
    """The bytes ``data`` unpacks to, read in bounded pieces: more than ``limit`` is
    refused before it is held (a small file can unpack to gigabytes)."""
    unpacked = bytearray()
    try:
        with _OPENERS[compression](io.BytesIO(data)) as stream:
            while piece := stream.read(1 << 20):
                unpacked += piece
                if len(unpacked) > limit:
                    raise CompressedDataError(
                        f"unpacks to more than {limit:,} bytes (compression bomb?)")
    except _STREAM_ERRORS as exc:
        raise CompressedDataError(f"unreadable {compression[1:]} data ({exc})") from exc
    return bytes(unpacked)


# How a troff source (a manual page) opens: its first line a comment (.\" or '\") or a
# request of one or two letters (".TH", ".Dd", ".so"), and a quarter or more of its first
# twenty lines requests; man-pages' own pages run 0.3-0.9, prose that opens a line with a
# dot (".NET is …") has one such line, not one in four.
TROFF_OPENING_LINES = 20
TROFF_REQUEST_SHARE = 0.25


def troff_source(text: str) -> bool:
    """The text is troff markup (a manual page's source), not prose."""
    opening = [line for line in (raw.strip() for raw in text.splitlines()[:200]) if line]
    opening = opening[:TROFF_OPENING_LINES]
    if not opening or not _opens_troff(opening[0]):
        return False
    requests = sum(line[:1] in ".'" for line in opening)
    return requests / len(opening) >= TROFF_REQUEST_SHARE


def _opens_troff(line: str) -> bool:
    if line[:1] not in ".'":
        return False
    word = line[1:].split(maxsplit=1)[0] if line[1:].strip() else ""
    return word.startswith('\\"') or (1 <= len(word) <= 2 and word.isalpha())
