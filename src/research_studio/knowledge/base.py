"""A named knowledge base: ingest documents once, search them dense, lexical or hybrid.

Chroma holds every chunk (text, offsets, metadata, vector), so the same knowledge base
works from a local folder or a shared Chroma server; BM25 is rebuilt in memory from it.
A chunk stored from now on also records where its table rows and code blocks lie and
how much of its start and end belongs to a sentence cut by the chunk boundary
(``lead``/``tail``, knowledge/structure.py); chunks stored before lack both and are
read as before.
"""

from __future__ import annotations

import functools
import shutil
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, TypeVar

from chromadb.api import ClientAPI
from chromadb.api.models.Collection import Collection
from chromadb.errors import NotFoundError

from research_studio.config import KnowledgeSettings, check_kb_name
from research_studio.errors import InvalidQuery, ResearchStudioError, UnknownKnowledgeBase
from research_studio.knowledge.chunking import chunk_spans
from research_studio.knowledge.documents import (
    LoadedDocument,
    SkippedItem,
    iter_files,
    load_file,
)
from research_studio.knowledge.embeddings import MODEL_ID, MiniLMOnnxEmbeddings
from research_studio.knowledge.fusion import reciprocal_rank_fusion
from research_studio.knowledge.lexical import LexicalIndex, tokenize
from research_studio.knowledge.near_duplicates import (
    CopyFinder,
    decode,
    encode,
    in_two_formats,
    sketch,
)
from research_studio.knowledge.sections import section_at
from research_studio.knowledge.structure import (
    ChunkCuts,
    Definition,
    TextBlock,
    announced_stretches,
    blocks_from_json,
    blocks_json,
    definitions_from_json,
    definitions_json,
    find_blocks,
)
from research_studio.knowledge.title_words import TitleWords
from research_studio.knowledge.vector_store import (
    COLLECTION_PREFIX,
    MiniLMChromaFunction,
    collection_name,
    ensure_search_ef,
    local_store,
    open_client,
    store_fault,
)

SearchMode = Literal["dense", "bm25", "hybrid"]
_PAGE = 5000
_Item = TypeVar("_Item", LoadedDocument, SkippedItem)
MAX_QUERY_CHARS = 4000


@functools.cache
def _dense_queries() -> ThreadPoolExecutor:
    """Threads that run a hybrid search's dense query while the caller scores BM25: the
    encoder (ONNX) and Chroma's index release the GIL, so the two halves overlap."""
    return ThreadPoolExecutor(max_workers=4, thread_name_prefix="kb-dense")


@dataclass
class SearchHit:
    """One retrieved chunk: the exact span of a stored source.

    ``lead`` and ``tail``: characters at the start of ``text`` that end a sentence (or
    row, or code block) begun before the chunk, and at its end that begin one finished
    after it; ``blocks``: the table rows and code blocks in ``text``. Chunks stored before
    these were recorded have ``lead`` and ``tail`` None and ``blocks`` None."""

    doc_id: str
    chunk_id: str
    title: str
    location: str
    score: float
    text: str
    start: int
    end: int
    source_type: str
    kb: str
    lead: int | None = None
    tail: int | None = None
    blocks: list[TextBlock] | None = None
    copy_of: str | None = None  # the doc_id of the document this one nearly repeats
    # whether ``text`` runs to the end of its document (None: stored before it was recorded)
    ends_document: bool | None = None
    # the heading the chunk stands under and the page's anchor for it ("": none recorded)
    section: str = ""
    anchor: str = ""
    # the definition list entries ``text`` lies in, offsets relative to it (``term_at``)
    terms: list[Definition] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class IngestProgress:
    """How far an ingest has got, for a progress line."""

    documents: int = 0  # read, stored or not
    passages: int = 0  # embedded and stored


@dataclass
class PendingPassage:
    """A chunk cut and described, waiting for its embedding."""

    id: str
    text: str
    embed_input: str  # the title travels with the text into the encoder
    meta: dict[str, Any]


@dataclass
class IngestSummary:
    """What an ingest did, including every skipped item and why."""

    kb: str
    documents_added: int = 0
    documents_replaced: int = 0
    unchanged: int = 0
    duplicates: int = 0
    near_copies: int = 0  # stored, marked as repeating a stored document (not independent)
    other_formats: int = 0  # not stored: a stored document's text in another format beside it
    chunks_added: int = 0
    skipped: list[SkippedItem] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def documents_per_s(self) -> float:
        stored = self.documents_added + self.documents_replaced
        return stored / self.seconds if self.seconds else 0.0

    @property
    def chunks_per_s(self) -> float:
        return self.chunks_added / self.seconds if self.seconds else 0.0

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["documents_per_s"] = round(self.documents_per_s, 1)
        data["chunks_per_s"] = round(self.chunks_per_s, 1)
        return data


def _relocated(item: _Item, path: Path, root: Path | None) -> _Item:
    """``item`` with the file's path at the start of its location (and as its document's
    id, a file's id being its path) made relative to ``root``."""
    shown = str(path)
    if root is None or not item.location.startswith(shown):
        return item
    try:
        relative = path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return item
    moved = replace(item, location=relative + item.location[len(shown):])
    if isinstance(moved, LoadedDocument) and moved.doc_id == shown:
        moved = replace(moved, doc_id=relative)
    return moved


F = TypeVar("F", bound=Callable[..., Any])


def store_faults(method: F) -> F:
    """A Chroma error about its store (a corrupt, unwritable or full database) raised by
    ``method`` becomes a StorageError naming the store; every other error stays as it is."""

    @functools.wraps(method)
    def guarded(self: Any, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except Exception as exc:
            problem = store_fault(self.location, exc)
            if problem is None:
                raise
            raise problem from exc

    return guarded  # type: ignore[return-value]


def validate_kb_name(name: str) -> str:
    """The name, or the project's error saying the one rule (config.check_kb_name)."""
    try:
        return check_kb_name(name or "")
    except ValueError as exc:
        raise ResearchStudioError(str(exc)) from None


def _optional_int(value: Any) -> int | None:
    return int(value) if isinstance(value, int | float) else None


def _optional_str(value: Any) -> str | None:
    return str(value) if value else None


def _hit(kb: str, chunk_id: str, text: str, meta: dict[str, Any], score: float) -> SearchHit:
    return SearchHit(
        doc_id=str(meta.get("doc_id", "")), chunk_id=chunk_id, title=str(meta.get("title", "")),
        location=str(meta.get("location", "")), score=round(float(score), 6), text=text,
        start=int(meta.get("start", 0)), end=int(meta.get("end", 0)),
        source_type=str(meta.get("source_type", "")), kb=kb,
        lead=_optional_int(meta.get("lead")), tail=_optional_int(meta.get("tail")),
        blocks=blocks_from_json(meta.get("blocks")), copy_of=_optional_str(meta.get("copy_of")),
        terms=definitions_from_json(meta.get("terms")) or [],
        ends_document=meta["ends_document"] if isinstance(meta.get("ends_document"), bool) else None,
        section=str(meta.get("section") or ""), anchor=str(meta.get("anchor") or ""))


def _one_title(first: str, second: str) -> bool:
    """Two renderings of one page: the same words, numbers aside where only one title has
    any (a section number: "5. Creating Built Distributions" and its reST source's
    "Creating Built Distributions"); not "2010 Ms. Olympia" and "2011 Ms. Olympia", nor
    "Motion City Soundtrack" and "Motion City Soundtrack discography", whose openings are
    the same five sentences."""
    def words_and_numbers(title: str) -> tuple[set[str], set[str]]:
        words = set(tokenize(title))
        numbers = {w for w in words if any(ch.isdigit() for ch in w)}
        return words - numbers, numbers

    (words_a, numbers_a), (words_b, numbers_b) = words_and_numbers(first), words_and_numbers(second)
    return bool(words_a) and words_a == words_b and (
        numbers_a == numbers_b or not numbers_a or not numbers_b)


class KnowledgeBase:
    """One Chroma collection plus a BM25 index over the same chunks, kept on disk in
    ``lexical_dir`` and rebuilt when the collection changed (by any process)."""

    def __init__(self, name: str, client: ClientAPI, collection: Collection,
                 settings: KnowledgeSettings, embeddings: MiniLMOnnxEmbeddings,
                 location: Path | str = "", lexical_dir: Path | None = None) -> None:
        self.name = name
        self.location = location  # the Chroma folder, or the server's URL: for messages
        self.client = client
        self.collection = collection
        self.settings = settings
        self.embeddings = embeddings
        self.lexical_dir = lexical_dir
        self._lexical: tuple[str, LexicalIndex] | None = None
        self._titles: tuple[str, TitleWords] | None = None
        self._lock = threading.Lock()

    # ---- reading -------------------------------------------------------------------
    @store_faults
    def count(self) -> int:
        return self.collection.count()

    def _all_chunks(self, include: list[str]) -> Iterable[tuple[str, str | None, dict]]:
        offset = 0
        while True:
            page = self.collection.get(limit=_PAGE, offset=offset, include=include)
            ids = page["ids"]
            if not ids:
                return
            docs = page.get("documents") or [None] * len(ids)
            metas = page.get("metadatas") or [{}] * len(ids)
            yield from zip(ids, docs, metas, strict=True)
            offset += len(ids)

    @store_faults
    def revision(self) -> str:
        """Changes on every write, from any process sharing the store."""
        fresh = self.client.get_collection(self.collection.name)
        return f"{fresh.count()}:{(fresh.metadata or {}).get('revision', '')}"

    def _bump_revision(self) -> None:
        # Chroma refuses metadata that repeats the creation-time hnsw settings.
        meta = {k: v for k, v in (self.collection.metadata or {}).items()
                if not k.startswith("hnsw:")}
        self.collection.modify(metadata={**meta, "revision": uuid.uuid4().hex})

    def _lexical_index(self) -> LexicalIndex:
        """The BM25 index of the collection as it is now: this process's copy, else the
        one saved on disk for this revision, else rebuilt from the store (and saved)."""
        return self._indexed_revision()[1]

    def _indexed_revision(self) -> tuple[str, LexicalIndex]:
        """The collection's revision, asked of the store now, and its BM25 index."""
        with self._lock:
            revision = self.revision()
            if self._lexical is None or self._lexical[0] != revision:
                index = LexicalIndex.load(self.lexical_dir, revision) if self.lexical_dir else None
                self._lexical = (revision, index or self._rebuild_lexical(revision))
            return self._lexical

    def _rebuild_lexical(self, revision: str) -> LexicalIndex:
        ids, texts = [], []
        for cid, doc, meta in self._all_chunks(["documents", "metadatas"]):
            ids.append(cid)
            texts.append(f"{(meta or {}).get('title', '')}\n{doc or ''}")
        index = LexicalIndex(ids, texts)
        if self.lexical_dir is not None:
            index.save(self.lexical_dir, revision)
        return index

    def _chunks_by_id(self, chunk_ids: list[str]) -> dict[str, tuple[str, dict]]:
        """Text and metadata of the given chunks, in one read."""
        if not chunk_ids:
            return {}
        page = self.collection.get(ids=list(chunk_ids), include=["documents", "metadatas"])
        return {cid: (doc or "", dict(meta or {}))
                for cid, doc, meta in zip(page["ids"], page["documents"], page["metadatas"],
                                          strict=True)}

    @store_faults
    def specificity_scorer(self) -> Callable[[str], float]:
        """Rarity of a phrase's words in this knowledge base (0..1), for ranking hops; 0
        for the collection's boilerplate (``KnowledgeSettings.min_name_specificity``) and
        for a name that most titles share (``max_name_title_share``).
        The index is looked up once here, not per phrase: each lookup asks the store
        whether it changed."""
        revision, index = self._indexed_revision()
        rarity, floor = index.specificity, self.settings.min_name_specificity
        # the titles of the revision the index was just checked against: no second query
        titles, title_share = self._title_words(revision), self.settings.max_name_title_share

        def specificity(phrase: str) -> float:
            value = rarity(phrase)
            if value < floor or titles.names_collection(phrase, title_share):
                return 0.0
            return value
        return specificity

    def _title_words(self, revision: str) -> TitleWords:
        """The words of the documents' titles, read once for each revision."""
        with self._lock:
            if self._titles is None or self._titles[0] != revision:
                firsts = self.collection.get(where={"chunk_index": 0}, include=["metadatas"])
                self._titles = (revision, TitleWords.of(str((meta or {}).get("title") or "")
                                                        for meta in firsts["metadatas"] or []))
            return self._titles[1]

    @store_faults
    def get_chunks(self, chunk_ids: list[str]) -> list[SearchHit]:
        """Stored chunks by id (for span verification); unknown ids are left out."""
        found = self._chunks_by_id(chunk_ids)
        return [_hit(self.name, c, *found[c], 0.0) for c in chunk_ids if c in found]

    @store_faults
    def search(self, query: str, k: int = 10, mode: SearchMode = "hybrid") -> list[SearchHit]:
        """Top ``k`` chunks for ``query``; an empty query is refused."""
        query = (query or "").strip()
        if not query:
            raise InvalidQuery("the search query is empty")
        if k < 1:
            raise InvalidQuery("k must be at least 1")
        query = query[:MAX_QUERY_CHARS]
        if self.count() == 0:
            return []
        depth = max(k, self.settings.candidate_depth)
        if mode == "dense":
            nearest = self._nearest(query, depth, ["distances"])
            return self._distinct_hits(list(zip(nearest["ids"][0],
                                                (1.0 - d for d in nearest["distances"][0]),
                                                strict=True)), k)
        if mode == "bm25":
            return self._distinct_hits(self._lexical_index().search(query, depth), k)
        # ranks only (ids and distances): the texts of the fused top k are read once after
        # fusion, not those of every candidate (at 100k chunks reading 50 candidates'
        # documents took 17 ms of a 23 ms dense query)
        dense_query = _dense_queries().submit(self._dense_ranking, query, depth)
        try:
            lexical = self._lexical_index().search(query, depth)
        finally:  # the dense half's result or fault, never left running unseen
            dense = dense_query.result()
        fused = reciprocal_rank_fusion(
            {"dense": dense, "bm25": [cid for cid, _ in lexical]},
            {"dense": self.settings.dense_weight, "bm25": self.settings.bm25_weight},
            k=self.settings.rrf_k)
        return self._distinct_hits(fused, k)

    def _distinct_hits(self, ranked: list[tuple[str, float]], k: int) -> list[SearchHit]:
        """The first ``k`` hits of the ranked chunk ids, one rendering of each document:
        a near copy (``copy_of``) of a document under its title (``_one_title``), or
        beside it in another format (stored before formats were told apart), is that
        document, whose hits come from whichever rendering ranks first. The Python
        manual's HTML pages and the reST sources beside them were otherwise half of the
        passages research read. A near copy under another title is a document of its own
        here: templated articles about different things ("Lithocarpus crassinervius" and
        "Lithocarpus kostermansii", the 2010 and 2011 Ms. Olympia) share most of their
        words and are still two things to find. Chunks are read in rounds, as many as hits
        are still wanted, so a knowledge base without copies reads the top ``k`` once."""
        hits: list[SearchHit] = []
        shown: dict[str, SearchHit] = {}  # document -> the first hit shown of it
        position = 0
        while len(hits) < k and position < len(ranked):
            batch = ranked[position:position + k - len(hits)]
            position += len(batch)
            chunks = self._chunks_by_id([cid for cid, _ in batch])
            for cid, score in batch:
                if cid not in chunks:
                    continue
                hit = _hit(self.name, cid, *chunks[cid], score)
                first = shown.setdefault(hit.copy_of or hit.doc_id, hit)
                # two files of one name ingested before ids were paths are two documents
                if first.location != hit.location and (first.copy_of or hit.copy_of) and (
                        _one_title(first.title, hit.title)
                        or in_two_formats(first.location, hit.location)):
                    continue
                hits.append(hit)
        return hits

    def _nearest(self, query: str, k: int, include: list[str]) -> dict[str, Any]:
        """Chroma's answer for the ``k`` chunks nearest the query, with ``include``."""
        vector = self.embeddings.embed_array([query])
        return self.collection.query(query_embeddings=vector, n_results=min(k, self.count()),
                                     include=include)

    def _dense_ranking(self, query: str, k: int) -> list[str]:
        """The ids of the ``k`` chunks nearest the query, nearest first."""
        return list(self._nearest(query, k, ["distances"])["ids"][0])

    # ---- writing -------------------------------------------------------------------
    def ingest_paths(self, paths: Iterable[Path],
                     progress: Callable[[IngestProgress], None] | None = None,
                     location_root: Path | None = None,
                     exclude: Sequence[str] = ()) -> IngestSummary:
        """Ingest files and folders, leaving out what matches ``exclude`` (shell
        wildcards, ``documents.iter_files``); see ``ingest_documents``. With
        ``location_root`` the stored locations are relative to it (the service's
        uploads), so reports and the API never show where the server keeps its files."""

        def documents() -> Iterable[LoadedDocument | SkippedItem]:
            for item in iter_files(paths, exclude):
                if isinstance(item, SkippedItem):
                    yield _relocated(item, Path(item.location), location_root)
                else:
                    for loaded in load_file(item, self.settings.max_file_bytes,
                                            self.settings.max_document_chars):
                        yield _relocated(loaded, item, location_root)

        return self.ingest_documents(documents(), progress)

    @store_faults
    def ingest_documents(self, items: Iterable[LoadedDocument | SkippedItem],
                         progress: Callable[[IngestProgress], None] | None = None) -> IngestSummary:
        """Chunk, embed and store new documents.

        Unchanged documents (same location, same text and title) are left alone; a changed
        one replaces its old chunks (a new title too: it is embedded with every chunk, and
        a better reading of titles reaches documents stored before it); text already
        stored under another location is a duplicate and stored once, and a new document
        repeating a stored one beside it in another format (``near_duplicates.other_format``)
        is not stored. ``progress`` is told after each document read and each batch of
        passages stored (``store_batch_passages``): embedding is most of the time, so a
        count of documents alone stood still for minutes.
        """
        started = time.perf_counter()
        summary = IngestSummary(kb=self.name)
        by_location: dict[str, tuple[str, str]] = {}  # location → its text's hash, its title
        known_hashes: set[str] = set()
        copies = CopyFinder(self.settings.near_duplicate_jaccard)
        for _, _, meta in self._all_chunks(["metadatas"]):
            by_location[str(meta.get("location"))] = (str(meta.get("content_hash")),
                                                      str(meta.get("title")))
            known_hashes.add(str(meta.get("content_hash")))
            stored = decode(str(meta["sketch"])) if meta.get("sketch") else None
            if stored is not None:
                copies.add(str(meta.get("location")), str(meta.get("doc_id")), stored,
                           _optional_str(meta.get("copy_of")))
        pending: list[PendingPassage] = []

        def report(documents: int) -> None:
            if progress:
                progress(IngestProgress(documents=documents, passages=summary.chunks_added))

        def store(passages: list[PendingPassage], documents: int) -> None:
            self._add(passages)
            summary.chunks_added += len(passages)
            report(documents)

        batch = self.settings.store_batch_passages
        read = 0  # documents read so far
        for read, item in enumerate(items, start=1):
            if isinstance(item, SkippedItem):
                summary.skipped.append(item)
            else:
                digest = item.content_hash
                previous = by_location.get(item.location)
                if previous == (digest, item.title):
                    summary.unchanged += 1
                elif digest in known_hashes and (previous is None or previous[0] != digest):
                    summary.duplicates += 1
                elif previous is None and copies.other_format(item.location,
                                                              minhash := sketch(item.text)):
                    summary.other_formats += 1
                else:
                    if previous is not None:
                        self.collection.delete(where={"location": item.location})
                        copies.remove(item.location)
                        summary.documents_replaced += 1
                        minhash = sketch(item.text)  # a new one's was made just above
                    else:  # a new document; a changed one is counted as replaced, not added too
                        summary.documents_added += 1
                    known_hashes.add(digest)
                    by_location[item.location] = (digest, item.title)
                    original = copies.original_of(minhash)
                    copies.add(item.location, item.doc_id, minhash, original)
                    summary.near_copies += original is not None
                    pending += self._passages(item, digest, encode(minhash), original)
                    while len(pending) >= batch:
                        store(pending[:batch], read)
                        pending = pending[batch:]
            report(read)
        if pending:
            store(pending, read)
        if summary.documents_added or summary.documents_replaced:
            self._bump_revision()
            self._lexical_index()  # rebuilt and saved now, not by the first search
        summary.seconds = time.perf_counter() - started
        return summary

    def _passages(self, doc: LoadedDocument, digest: str, minhash: str,
                  copy_of: str | None) -> list[PendingPassage]:
        """A document's chunks with their metadata, ready to embed: every chunk says which
        document this one is a near copy of (``near_duplicates``), the first keeps its
        sketch for later ingests."""
        # a document read without structure still has the fences and pipe tables its
        # text shows, found once over the whole text rather than per chunk
        blocks = doc.blocks if doc.blocks is not None else find_blocks(doc.text)
        cuts = ChunkCuts(doc.text, blocks)
        now = datetime.now(UTC).isoformat(timespec="seconds")
        passages = []
        spans = chunk_spans(doc.text, self.settings.chunk_size, self.settings.chunk_overlap,
                            keep_together=announced_stretches(doc.text, blocks, cuts.units))
        for span in spans:
            text = doc.text[span.start:span.end]
            lead, tail = cuts.at(span.start, span.end)
            meta: dict[str, Any] = {
                "doc_id": doc.doc_id, "title": doc.title, "location": doc.location,
                "content_hash": digest, "chunk_index": span.index, "start": span.start,
                "end": span.end, "source_type": doc.source_type, "ingested_at": now,
                "lead": lead, "tail": tail, "blocks": blocks_json(blocks, span.start, span.end),
                "ends_document": span is spans[-1],
            }
            if doc.definitions:
                meta["terms"] = definitions_json(doc.definitions, span.start, span.end)
            page = doc.page_of(span.start)
            if page is not None:
                meta["page"] = page
            section = section_at(doc.sections, span.start, self.settings.chunk_overlap)
            if section is not None:
                meta["section"] = section.title
                if section.anchor:
                    meta["anchor"] = section.anchor
            if copy_of is not None:
                meta["copy_of"] = copy_of
            if span.index == 0:
                meta["sketch"] = minhash
            passages.append(PendingPassage(f"{digest[:20]}-{span.index:05d}", text,
                                           f"{doc.title}\n{text}", meta))
        return passages

    def _add(self, passages: list[PendingPassage]) -> None:
        vectors = self.embeddings.embed_array([p.embed_input for p in passages])
        self.collection.add(ids=[p.id for p in passages], documents=[p.text for p in passages],
                            metadatas=[p.meta for p in passages], embeddings=vectors)


@dataclass
class KnowledgeBaseInfo:
    name: str
    chunks: int
    created_at: str
    embedding_model: str


class KnowledgeBaseRegistry:
    """The knowledge bases of one home (or of one shared Chroma server)."""

    def __init__(self, kb_dir: Path, settings: KnowledgeSettings,
                 client: ClientAPI | None = None) -> None:
        self.settings = settings
        self.location: Path | str = settings.chroma_url or local_store(kb_dir)
        # BM25 indexes live in the home even with a shared Chroma server: each process
        # keeps its own copy in step with the collection's revision
        self.lexical_root = kb_dir / "lexical"
        self.client = client or open_client(kb_dir, settings.chroma_url)
        self.embeddings = MiniLMOnnxEmbeddings(settings.embed_batch_size, settings.embed_threads,
                                               settings.embed_batch_tokens)
        self._function = MiniLMChromaFunction(self.embeddings)

    @store_faults
    def names(self) -> list[str]:
        names = [c.name if hasattr(c, "name") else str(c) for c in self.client.list_collections()]
        return sorted(n[len(COLLECTION_PREFIX):] for n in names if n.startswith(COLLECTION_PREFIX))

    @store_faults
    def list(self) -> list[KnowledgeBaseInfo]:
        infos = []
        for name in self.names():
            collection = self.client.get_collection(collection_name(name),
                                                    embedding_function=self._function)
            meta = collection.metadata or {}
            infos.append(KnowledgeBaseInfo(name, collection.count(), str(meta.get("created_at", "")),
                                           str(meta.get("embedding_model", ""))))
        return infos

    @store_faults
    def open(self, name: str, *, create: bool = False) -> KnowledgeBase:
        """Open ``name``; without ``create`` an unknown name is an error naming the others."""
        validate_kb_name(name)
        if create:
            collection = self.client.get_or_create_collection(
                collection_name(name), embedding_function=self._function,
                metadata={"hnsw:space": "cosine", "embedding_model": MODEL_ID,
                          "created_at": datetime.now(UTC).isoformat(timespec="seconds")})
        else:
            try:
                collection = self.client.get_collection(collection_name(name),
                                                        embedding_function=self._function)
            except (NotFoundError, ValueError) as exc:
                raise UnknownKnowledgeBase(name, self.names()) from exc
        stored_model = (collection.metadata or {}).get("embedding_model")
        if stored_model and stored_model != MODEL_ID:
            raise ResearchStudioError(f"knowledge base {name!r} was built with {stored_model}, "
                                      f"this installation embeds with {MODEL_ID}")
        ensure_search_ef(collection, self.settings.search_ef)
        return KnowledgeBase(name, self.client, collection, self.settings, self.embeddings,
                             self.location, self.lexical_root / name)

    @store_faults
    def delete(self, name: str) -> None:
        validate_kb_name(name)
        if name not in self.names():
            raise UnknownKnowledgeBase(name, self.names())
        self.client.delete_collection(collection_name(name))
        shutil.rmtree(self.lexical_root / name, ignore_errors=True)
