"""Documents that are one text under two names: the HTML page and the reST source Sphinx
copies beside it, a page saved twice with other markup, two releases of one manual page.

Ingest stores an exact copy once; a near copy is stored (it may differ where it matters)
but marked ``copy_of`` the document it repeats, so the trust engine does not count the two
as independent sources (two renderings of one page "cross-validated" each other's
sentences). Likeness is the Jaccard similarity of the documents' word 5-grams, estimated
by MinHash and looked up with locality-sensitive hashing (datasketch).

A near copy beside its original under the same name in another format (``gitfaq.html``
and ``gitfaq.txt``) is one document twice, not another version of it: it is not stored
(``other_format``); a folder is read with its better-read format first.
"""

from __future__ import annotations

import re

import numpy as np
from datasketch import MinHash, MinHashLSH

from research_studio.knowledge.documents import FORMAT_ORDER
from research_studio.knowledge.file_types import inner_name

# word n-grams compared: long enough that unrelated pages of one manual share almost none
# (0.001 of their 5-grams in the Python manual), short enough that markup differences
# leave most of a copy's n-grams intact
SHINGLE_WORDS = 5
# MinHash permutations: a Jaccard estimate with a standard error of at most 0.045
# (sqrt(J(1-J)/128)), stored as 2 KB of hex on a document's first chunk
PERMUTATIONS = 128
# datasketch's permutation scheme: stored sketches are comparable only with sketches made
# the same way, so the stored form names it (and the permutation count)
SCHEME = "affine32"
_STORED_AS = f"minhash-{SCHEME}-{PERMUTATIONS}:"
_WORD = re.compile(r"\w+")


def in_two_formats(location: str, other: str) -> bool:
    """Two files of one name in one folder, in two of the formats a folder is read in
    (``documents.FORMAT_ORDER``), compressed or not; a JSON Lines record's location
    (``file.jsonl#id``) is never one."""
    first, second = inner_name(location), inner_name(other)
    return (first.parent == second.parent and first.stem == second.stem
            and first.suffix.lower() != second.suffix.lower()
            and first.suffix.lower() in FORMAT_ORDER and second.suffix.lower() in FORMAT_ORDER)


def sketch(text: str) -> MinHash:
    """The MinHash of the text's word 5-grams (the whole text when it is shorter)."""
    words = _WORD.findall(text.lower())
    grams = {" ".join(words[i:i + SHINGLE_WORDS])
             for i in range(max(1, len(words) - SHINGLE_WORDS + 1))}
    minhash = MinHash(num_perm=PERMUTATIONS, scheme=SCHEME)
    minhash.update_batch([g.encode("utf-8") for g in grams])
    return minhash


def encode(minhash: MinHash) -> str:
    return _STORED_AS + minhash.hashvalues.astype(np.uint64).tobytes().hex()


def decode(stored: str) -> MinHash | None:
    """A sketch stored by ``encode``; None when it was made another way."""
    if not stored.startswith(_STORED_AS):
        return None
    try:
        values = np.frombuffer(bytes.fromhex(stored[len(_STORED_AS):]), dtype=np.uint64)
    except ValueError:
        return None
    if len(values) != PERMUTATIONS:
        return None
    return MinHash(num_perm=PERMUTATIONS, hashvalues=values, scheme=SCHEME)


class CopyFinder:
    """The stored documents' sketches, to tell which one a new document repeats."""

    def __init__(self, threshold: float) -> None:
        self.threshold = threshold
        self._index = MinHashLSH(threshold=threshold, num_perm=PERMUTATIONS)
        self._sketches: dict[str, MinHash] = {}
        self._original: dict[str, str] = {}  # location -> the doc_id it counts as

    def add(self, location: str, doc_id: str, minhash: MinHash, copy_of: str | None) -> None:
        self.remove(location)
        self._index.insert(location, minhash)
        self._sketches[location] = minhash
        self._original[location] = copy_of or doc_id

    def remove(self, location: str) -> None:
        """A document replaced or deleted no longer counts as an original."""
        if location in self._sketches:
            self._index.remove(location)
            del self._sketches[location], self._original[location]

    def other_format(self, location: str, minhash: MinHash) -> str | None:
        """The location of a stored document this one repeats in another format
        (``in_two_formats``), or None."""
        found = sorted(loc for loc in self._index.query(minhash)
                       if in_two_formats(location, loc)
                       and minhash.jaccard(self._sketches[loc]) >= self.threshold)
        return found[0] if found else None

    def original_of(self, minhash: MinHash) -> str | None:
        """The doc_id of the stored document this one repeats (its own original when it is
        a copy itself), or None. LSH finds candidates; each is checked against the
        threshold, and of several the one stored under the first location counts."""
        found = sorted(loc for loc in self._index.query(minhash)
                       if minhash.jaccard(self._sketches[loc]) >= self.threshold)
        return self._original[found[0]] if found else None
