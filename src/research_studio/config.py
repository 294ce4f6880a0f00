"""Settings: one home folder per installation, a TOML config file in it, env overrides.

Precedence (highest first): environment variables ``RESEARCH_STUDIO_*`` (nested with
``__``), then ``<home>/config.toml`` (or the file named by ``RESEARCH_STUDIO_CONFIG``),
then the defaults below. The home folder itself comes from ``--home``, then
``RESEARCH_STUDIO_HOME``, then the per-user data folder.
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass
from ipaddress import ip_address
from pathlib import Path
from typing import Annotated, Literal
from urllib.parse import urlparse

from pydantic import AfterValidator, BaseModel, Field, ValidationError, model_validator
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from research_studio.errors import ConfigError
from research_studio.store.faults import ensure_home

Tier = Literal["low", "medium", "high"]
TIERS: tuple[Tier, ...] = ("low", "medium", "high")
Provider = Literal["embedded", "openai", "ollama", "anthropic"]
StructuredMethod = Literal["auto", "json_schema", "json_object", "format", "prompt"]

# Every number a setting or a request may carry, bounded once here. Integers fit the signed
# 64 bits that SQLite and PostgreSQL store (a larger one fails in the driver, or later in a
# C-level conversion); floats are finite, since a NaN budget compares false with every cost
# and would undo the bounded-cost promise; nothing meant as a size or a budget is negative.
MAX_INT64 = 2**63 - 1
NonNegativeInt = Annotated[int, Field(ge=0, le=MAX_INT64)]
PositiveInt = Annotated[int, Field(ge=1, le=MAX_INT64)]
NonNegativeFloat = Annotated[float, Field(ge=0, allow_inf_nan=False)]
Fraction = Annotated[float, Field(ge=0, le=1, allow_inf_nan=False)]
# a day at most: larger waits overflow the C timeouts of sockets and selectors
Seconds = Annotated[float, Field(gt=0, le=86_400, allow_inf_nan=False)]
Port = Annotated[int, Field(ge=0, le=65_535)]

# Knowledge-base names become folder and collection names: 1-63 letters, digits, '.', '_'
# or '-', starting and ending with a letter or digit. The pattern is also the OpenAPI one
# (where '$' means the end); in Python '$' also matches before a final newline, so a name
# is checked with fullmatch.
KB_NAME_PATTERN = r"^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,61}[A-Za-z0-9])?$"
_KB_NAME = re.compile(KB_NAME_PATTERN)


def check_kb_name(name: str) -> str:
    """``name`` when it is a usable knowledge-base name, else a ValueError saying the rule."""
    if not _KB_NAME.fullmatch(name):
        raise ValueError(f"invalid knowledge base name {name!r}: use 1-63 letters, digits, "
                         "'.', '_' or '-', starting and ending with a letter or digit")
    return name


KbName = Annotated[str, Field(pattern=KB_NAME_PATTERN), AfterValidator(check_kb_name)]


class ModelSpec(BaseModel):
    """One chat model the coordinator may call."""

    model_config = {"extra": "forbid"}

    provider: Provider = "embedded"
    model: str = "SmolLM2-135M-Instruct"
    base_url: str | None = None
    api_key_env: str | None = None
    context_window: PositiveInt = 8192
    max_tokens: PositiveInt = 512
    temperature: NonNegativeFloat = 0.1
    timeout_s: Seconds = 120.0
    structured_method: StructuredMethod = "auto"
    price_prompt_per_mtok: NonNegativeFloat | None = None
    price_completion_per_mtok: NonNegativeFloat | None = None
    local: bool | None = None
    capability: Literal["basic", "strong"] | None = None
    n_threads: PositiveInt | None = None

    @property
    def is_strong(self) -> bool:
        """Whether steps may trust this model to reason (the embedded one cannot)."""
        if self.capability is not None:
            return self.capability == "strong"
        return self.provider != "embedded"

    @property
    def is_local(self) -> bool:
        """Local models cost nothing and do not count as external calls."""
        if self.local is not None:
            return self.local
        if self.provider == "embedded":
            return True
        if not self.base_url:
            return self.provider == "ollama"
        host = urlparse(self.base_url).hostname or ""
        if host == "localhost":
            return True
        try:
            return ip_address(host).is_loopback
        except ValueError:
            return False


class ModelSettings(BaseModel):
    """Tiers map to ordered lists of model names (first usable one wins)."""

    model_config = {"extra": "forbid"}

    models: dict[str, ModelSpec] = Field(default_factory=lambda: {"embedded": ModelSpec()})
    tiers: dict[Tier, list[str]] = Field(
        default_factory=lambda: {t: ["embedded"] for t in TIERS}
    )
    prefer_local: bool = True
    # the operator's ceiling for every session: a session's own budget (its research
    # config, a template, an API request) applies within it (ResearchConfig.within)
    max_total_cost_usd: NonNegativeFloat = 3.0
    max_external_calls: NonNegativeInt = 15

    @model_validator(mode="after")
    def _tiers_name_known_models(self) -> ModelSettings:
        self.models.setdefault("embedded", ModelSpec())  # always there, offline
        for tier, names in self.tiers.items():
            unknown = [n for n in names if n not in self.models]
            if unknown:
                raise ValueError(f"tier {tier!r} names unknown model(s) {unknown}; "
                                 f"configured: {sorted(self.models)}")
        for tier in TIERS:
            self.tiers.setdefault(tier, ["embedded"])
        return self


class KnowledgeSettings(BaseModel):
    """Where vectors live and how text is cut and searched."""

    model_config = {"extra": "forbid"}

    chroma_url: str | None = None
    chunk_size: PositiveInt = 900
    chunk_overlap: NonNegativeInt = 150
    max_file_bytes: PositiveInt = 50_000_000
    max_document_chars: PositiveInt = 5_000_000
    dense_weight: NonNegativeFloat = 1.0
    bm25_weight: NonNegativeFloat = 1.0
    rrf_k: NonNegativeInt = 10  # chosen by benchmarks/fusion_sweep.py on both pooled QA corpora
    candidate_depth: PositiveInt = 50
    # a name whose words nearly every chunk shares (its specificity, mean IDF over the
    # largest, below this) is the collection's boilerplate, not a thing to research: the
    # "Manual Page" of every HTML page of the Git manual scored 0.02 (0.21 where the
    # manual's plain-text release notes are stored too: max_name_title_share catches it
    # there), while the commonest real names score 0.17 and more ("American", "United
    # States" in the QA collections; "Git", "HEAD" in the Git manual). No top-3 linked
    # name of the 300 QA questions scores under 0.10.
    min_name_specificity: Fraction = 0.05
    # a name in the titles of at least this share of the documents (and of more than one)
    # names the collection itself, its product or its page template, not a thing in it to
    # research: "Git" and "Manual Page" are in 0.65 and 0.60 of the Git manual's titles,
    # "Apache Module" in 0.51 of Apache's, "SQLite" in 0.44 of SQLite's, while the names of
    # topics within them stay at 0.05 and below ("mod_rewrite" 0.04, "git-checkout" 0.01);
    # a quarter leaves room on both sides. A Wikipedia title is one article's.
    max_name_title_share: Fraction = 0.25
    # HNSW search breadth: exact and the same in every process for collections of a few
    # thousand chunks (Chroma's default of 100 is neither), at well under a millisecond
    search_ef: int = Field(default=500, ge=10, le=MAX_INT64)
    # a new document sharing at least this share of its word 5-grams with a stored one is
    # a near copy of it (stored, not an independent source): the HTML pages of the Python
    # manual and the reST sources Sphinx copies beside them share 0.71-0.97, two distinct
    # pages of it 0.001 at most; two releases of one page are near copies too
    near_duplicate_jaccard: float = Field(default=0.5, gt=0, le=1)
    embed_batch_size: PositiveInt = 8  # texts a batch holds at most; embed_batch_tokens binds first
    # Tokens a batch of the encoder holds at most, padding included. On CPU the encoder
    # runs slower per text once a batch outgrows what the caches hold, so passages go one
    # or two at a time and sentences several. On 2 cores (lab log §59) budgets of 256 to
    # 768 all embed sentences (30 tokens), 400-character passages and chunks (190 tokens)
    # 25-45% faster than eight texts a batch, within the run-to-run noise of each other;
    # 512 is the middle of that plateau.
    embed_batch_tokens: int = Field(default=512, ge=16)
    # passages embedded and stored at a time while ingesting: the progress line moves after
    # each batch, about every 15 s on 2 cores (the Python 3.11 manual's 31,610 chunks
    # embedded at 37 a second); Chroma's SQLite takes at most 5,461 rows in one add
    store_batch_passages: int = Field(default=512, ge=1, le=5000)
    embed_threads: PositiveInt | None = None

    @model_validator(mode="after")
    def _overlap_below_size(self) -> KnowledgeSettings:
        # an overlap as long as the chunk would never advance through the text
        if self.chunk_overlap >= self.chunk_size:
            raise ValueError(f"chunk_overlap ({self.chunk_overlap}) must be smaller than "
                             f"chunk_size ({self.chunk_size})")
        return self


class WebSettings(BaseModel):
    """Search provider choice and the limits of page fetching."""

    model_config = {"extra": "forbid"}

    provider: Literal["duckduckgo", "tavily", "searxng", "none"] = "duckduckgo"
    searxng_url: str | None = None
    tavily_api_key_env: str = "TAVILY_API_KEY"
    max_results: PositiveInt = 5
    timeout_s: Seconds = 10.0
    max_page_bytes: PositiveInt = 2_000_000
    max_redirects: NonNegativeInt = 5
    allow_private_addresses: bool = False
    # of each search, the first results whose pages are fetched (each costs a request)
    pages_per_search: PositiveInt = 3
    # the span of a fetched page kept as the source: the knowledge base's chunk length
    # and overlap, so web and local evidence are quoted and ranked at the same grain
    page_span_chars: PositiveInt = 900
    page_span_overlap: NonNegativeInt = 150

    @model_validator(mode="after")
    def _span_overlap_fits(self) -> WebSettings:
        if self.page_span_overlap >= self.page_span_chars:
            raise ValueError(f"page_span_overlap ({self.page_span_overlap}) must be smaller "
                             f"than page_span_chars ({self.page_span_chars})")
        return self


def redacted_url(url: str) -> str:
    """A server's address without credentials or query, for messages and logs."""
    parts = urlparse(url)
    host = parts.hostname or ""
    return f"{parts.scheme}://{host}{f':{parts.port}' if parts.port else ''}{parts.path}"


class ServiceSettings(BaseModel):
    """The HTTP service: how many sessions run at once and how big a request may be."""

    model_config = {"extra": "forbid"}

    host: str = "127.0.0.1"
    port: Port = 8000
    max_concurrent_sessions: int = Field(default=2, ge=1, le=64)  # more queue
    max_request_bytes: PositiveInt = 1_000_000
    max_upload_bytes: PositiveInt = 50_000_000
    max_answer_chars: PositiveInt = 4000
    sse_keepalive_s: Seconds = 15.0
    # the task queue (a Redis URL, such as redis://127.0.0.1:6379/0): when set, serve hands
    # sessions to `research-studio worker` processes instead of running them itself
    broker_url: str | None = None
    # how often a running session checks whether a person cancelled it from any process
    cancel_check_s: Seconds = 1.0
    # how often each worker looks for sessions whose worker died or that never reached
    # the queue, and dispatches them again
    orphan_check_s: Seconds = 10.0


class Settings(BaseSettings):
    """Everything configurable; see the module docstring for precedence."""

    model_config = SettingsConfigDict(
        env_prefix="RESEARCH_STUDIO_", env_nested_delimiter="__", extra="ignore"
    )

    models: ModelSettings = Field(default_factory=ModelSettings)
    knowledge: KnowledgeSettings = Field(default_factory=KnowledgeSettings)
    web: WebSettings = Field(default_factory=WebSettings)
    service: ServiceSettings = Field(default_factory=ServiceSettings)
    # One URL selects the storage of sessions and checkpoints: empty = SQLite files in the
    # home; postgresql://user:pass@host/db = one PostgreSQL database for both.
    database_url: str = ""
    # When set, every API endpoint requires it (header X-API-Key or Authorization: Bearer).
    api_key: str | None = Field(default=None, repr=False)
    # A session whose process died this many runs in a row (a crash in native code, an
    # out-of-memory kill) is failed with the reason instead of resumed again: a resume
    # replays the step that crashed, so a deterministic crash would repeat on every start.
    # Three leaves room for a machine restart and an operator's kill -9 or two.
    max_unclean_exits: int = Field(default=3, ge=1, le=100)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # init kwargs carry the TOML file; the environment overrides it.
        return (env_settings, init_settings)


def default_home() -> Path:
    """Per-user data folder, following XDG on Linux."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "research-studio"


def resolve_home(home: str | Path | None = None) -> Path:
    """``--home`` beats ``RESEARCH_STUDIO_HOME`` beats the per-user default. The folder is
    created if needed; one that cannot be created or written is a StorageError saying so."""
    chosen = home or os.environ.get("RESEARCH_STUDIO_HOME") or default_home()
    return ensure_home(Path(chosen).expanduser().resolve())


@dataclass(frozen=True)
class AppContext:
    """The resolved home and the settings read from it."""

    home: Path
    settings: Settings

    @property
    def kb_dir(self) -> Path:
        return self.home / "kb"

    @property
    def cache_dir(self) -> Path:
        return self.home / "cache"

    @property
    def config_path(self) -> Path:
        return Path(os.environ.get("RESEARCH_STUDIO_CONFIG") or self.home / "config.toml")


def load_context(home: str | Path | None = None) -> AppContext:
    """Resolve the home folder and read its settings; bad config is a ConfigError."""
    resolved = resolve_home(home)
    config_path = Path(os.environ.get("RESEARCH_STUDIO_CONFIG") or resolved / "config.toml")
    file_values: dict = {}
    if config_path.exists():
        try:
            file_values = tomllib.loads(config_path.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise ConfigError(f"cannot read config file {config_path}: {exc}") from exc
    try:
        settings = Settings(**file_values)
    except ValidationError as exc:
        raise ConfigError(f"invalid configuration ({config_path} or environment):\n{exc}") from exc
    return AppContext(home=resolved, settings=settings)


# ---- research configuration (seeds 001 section 3 and phase 9, 002, 003) -------------------
class ResearchConfig(BaseModel):
    """Every threshold of the research graph, with the seeds' defaults."""

    model_config = {"extra": "forbid"}

    mode: Literal["auto", "flat", "hierarchical"] = "auto"
    template: str | None = None
    kb: KbName | None = None
    use_web: bool = False
    clarify: Literal["auto", "never", "always"] = "auto"
    interactive: bool = False
    # stop after planning until a person approves, edits or replaces the plan (CLI
    # --review-plan, POST /api/research/sessions/{id}/plan, the web page's checkbox)
    review_plan: bool = False
    max_query_chars: PositiveInt = 4000
    # decomposition (seed 001)
    min_sub_questions: PositiveInt = 2
    max_sub_questions: PositiveInt = 5
    max_iterations: NonNegativeInt = 20  # total iteration budget of a session
    # a model's proposed sub-question is dropped as a copy of the question, or of a
    # sub-question kept before it, when it has the same content words or the sentence
    # encoder's cosine reaches these. A copy left in costs one sub-agent's work; a genuine
    # sub-question dropped (a chain's hop reads close to its question: "Who ended the
    # Achaemenid Empire …?" scores 0.955) costs evidence. So each is the lowest value that
    # drops at most 1% of genuine pairs: MuSiQue's human decompositions and the offline
    # plans of DeepResearch Bench tasks (358 question/sub-question, 348 sub-question
    # pairs). With the words test, 90% and 76% of mechanical restatements are caught (59%
    # and 60% by the content-term Jaccard 0.9 / 0.8 before) and 0.3% and 0% of genuine
    # pairs dropped (0% and 0.6%): benchmarks/sub_question_similarity.py, lab log §17.
    sub_question_copy_similarity: Fraction = 0.97
    sub_question_duplicate_similarity: Fraction = 0.95
    sub_question_min_iterations: NonNegativeInt = 2
    sub_question_max_iterations: NonNegativeInt = 5
    # stopping (seed 001 phase 6, seed 000 check_stopping)
    min_findings: NonNegativeInt = 3
    min_confidence: Fraction = 0.7
    min_findings_for_confidence: NonNegativeInt = 2
    saturation_threshold: Fraction = 0.75
    min_novelty_rate: Fraction = 0.15
    strategy: Literal["breadth", "depth", "hybrid"] = "hybrid"
    max_tasks_per_iteration: PositiveInt = 3
    # a finding whose quote shares this share of its content words with a known one's is
    # the same sentence again (a page repeating another, a word changed) and is dropped;
    # a lexical test on purpose: the same fact in other words is kept for the trust
    # engine's cross-validation, which compares meaning (cross_validation_similarity)
    duplicate_quote_overlap: Fraction = 0.85
    results_per_query: PositiveInt = 8
    # hops of a chain (graph/text_analysis.linked_entities): a linked name whose head word
    # is the kind of thing the question asks for ("Nelson River" for "which river …") is
    # a typed candidate, its score multiplied by this. 1 ignores the type; the weight must
    # stay below the ratio between the evidence's best-linked name and a runner-up whose
    # head matches only loosely ("Mexico City" for "the most populous city"), which on
    # MuSiQue's plans reached 2: from 2 up such names took hops from the supporting
    # paragraphs' names (docs/lab-log.md §4).
    asked_kind_weight: float = Field(default=1.5, ge=1.0)
    # the retrieval-driven plan (graph/nodes/plan.py) follows a linked name only when its
    # weight reaches what one mention earns in the first passage, of a name found nowhere
    # else in the collection, with no word of the question beside it
    # (text_analysis.MENTION_WEIGHT): less is a common word written as a name, or one
    # only weakly tied to the question ("byte", "See Chapter", "Shortcut" over the
    # PostgreSQL and Git manuals), and a sub-question after it researches nothing asked.
    # The names MuSiQue's and HotpotQA's plans follow weigh more (docs/lab-log.md §34)
    min_linked_weight: float = Field(default=0.25, ge=0.0)
    # A name linked more weakly than one named beside a word of the question (this weight:
    # one mention, MENTION_WEIGHT, plus one shared term, in the first passage, of a name
    # found nowhere else) is followed only when the knowledge base has a page, a section
    # or a definition about it: among the first linked_heading_depth passages a search
    # for the name returns, one whose title, heading or definition list term holds every
    # word of it. Over the manuals most weak names are only mentioned (a contributor
    # credited in release notes, a sample value, a word of a list) and their sections
    # researched nothing the question asks; the names MuSiQue's and HotpotQA's plans
    # follow are mostly named beside the question's words, with or without a page of
    # their own (docs/lab-log.md §57). A passage's title travels with its text into both
    # indexes, so a page about the name ranks near the top of its own search; five is
    # the number of passages the plan itself reads.
    linked_beside_question_weight: float = Field(default=1.25, ge=0.0)
    linked_heading_depth: PositiveInt = 5
    # the sentences a passage gives a sub-question as findings (offline: its best-ranked,
    # see graph/nodes/findings.py). A third puts more answers into the report (manual
    # questions 0.45 → 0.50, MuSiQue 0.57 → 0.62) but none more into the Answer over 180
    # questions, three fewer exact short answers (more candidates to choose among) and
    # costs 15–30% more time; a fourth adds nothing more (docs/lab-log.md §65).
    findings_per_result: NonNegativeInt = 2
    # "Connections across sub-questions" lists a name shared by several sections' evidence
    # only when it is at least this specific to the knowledge base (KnowledgeBase.
    # specificity_scorer, 0..1). Of the 276 connections in 100 reports (40 questions over
    # the Apache and Git manuals, 40 MuSiQue and 20 HotpotQA questions) the 55 under 0.30
    # were all the collection's common vocabulary ("American", "United States", "HTTP",
    # "Git", "URL", "HEAD"), while the names of one thing start just above it ("New York
    # City" 0.32, "RewriteRule" 0.37, "VirtualHost" 0.40).
    connection_min_specificity: Fraction = 0.3
    # a sentence that points into the text ("Section 2 describes the steps …", "See
    # Chapter 13 for more information") is passed over for the next sentence of its
    # passage when both what it speaks of reads as a part of a text and what it says of it
    # as telling, each by this much (understanding/pointers.py). Read over the passages of
    # five manuals and whole sets of two more (docs/lab-log.md §44), sentences at 0.15 and
    # above are pointers but for about one in twenty; below it come sentences that show an
    # example ("The next example shows …") and plain statements ("The last part indicates
    # the size …"); 3 of 14,231 MuSiQue and HotpotQA sentences reach it.
    pointer_margin: float = Field(default=0.15, ge=0.0)
    # A finding whose sentence ends in a colon right before a code block ("To restore the
    # dump into a new database called newdb:") carries that block as its example when the
    # block is at most this long. Nine in ten such blocks of the PostgreSQL (319
    # characters) and Git (246) manuals are shorter: a command or two, a statement, a short
    # session. A longer one is a program listing the citation points to rather than reprints.
    # The same bound holds for a list or table rows such a sentence announces (items and
    # rows counted together): half of those lists are within it, a longer one is shown by
    # its citation.
    example_max_chars: PositiveInt = 400
    # parallelism (seed 001: sequential priority order is an option)
    parallel: bool = True
    max_concurrency: PositiveInt = 4
    # gap loop (seed 003 nodes 7-8)
    max_gap_rounds: NonNegativeInt = 3
    gap_confidence_target: Fraction = 0.85
    min_confidence_gain: Fraction = 0.05
    # clarification loop (seed 002)
    hitl_max_iterations: NonNegativeInt = 5
    hitl_queries: NonNegativeInt = 3
    hitl_k: PositiveInt = 3
    hitl_coverage_threshold: Fraction = 0.80
    hitl_dedup_threshold: Fraction = 0.70
    hitl_max_gaps: NonNegativeInt = 2
    # budgets (seed 001 section 5.2); a session never gets more than [models] allows
    max_total_cost_usd: NonNegativeFloat = 3.0
    max_external_calls: NonNegativeInt = 15
    decomposition_cost_usd: NonNegativeFloat = 0.05
    sub_question_synthesis_cost_usd: NonNegativeFloat = 0.10
    meta_synthesis_cost_usd: NonNegativeFloat = 0.15
    # report: one claim budget shared by all sections (by priority), the same in both modes
    max_report_claims: NonNegativeInt = 20
    # while the writer picks a section's claims, a question term that a chosen claim
    # already states counts this much instead of 1 towards the next claim's relevance,
    # so the next claims are chosen for the parts of the question not yet covered. Half:
    # a restated term still counts (a chain's answer sentence repeats the bridge's
    # name), but a claim stating a new part of the question wins over one repeating the
    # same part (docs/lab-log.md §4).
    stated_term_weight: Fraction = 0.5
    min_claims_per_section: NonNegativeInt = 3
    # a claim is not shown again under a second section when its content words overlap a
    # shown claim's by this Jaccard (the same quote), nor repeated in the summary at the
    # lower summary value (a near-repeat reads as one). Lexical on purpose: the encoder at
    # the cross-validation similarity also joined different facts worded alike and lost a
    # supporting paragraph on HotpotQA (cited recall 0.975 -> 0.950, lab log §17)
    shown_claim_overlap: Fraction = 0.9
    summary_repeat_overlap: Fraction = 0.7
    # the offline Answer gives the plan's main section (the question itself, researched
    # directly) this many claims closest to what it asks, after the lead its selection
    # ranked first (which favours a source not cited yet). Two: the encoder ranks the
    # sentence that answers a question first among its section's claims less often than
    # in its first three, and each claim adds about 25 words to an Answer of about 120
    # (docs/lab-log.md §56)
    answer_closest_claims: NonNegativeInt = 2
    # relevance gate (graph/relevance.py): a verified claim is shown only when the sentence
    # encoder's cosine with its sub-question or the question reaches this. At 0.3 the
    # claims quoting MuSiQue's supporting paragraphs keep 0.88 of their cited recall in
    # hierarchical reports, while the best Python-documentation sentence retrieved for
    # DeepResearch Bench tasks (nothing there is about them) scores 0.21 at the median
    # and 0.28 at the 90th percentile; on-topic Python questions score 0.46-0.78.
    # Above 0.3 supporting quotes that state the answer inside a long sentence go first
    # (0.35: recall 0.815); docs/lab-log.md §9.
    claim_min_relevance: Fraction = 0.3
    # a claim below the gate is still shown when it names an entity that a shown claim
    # names and the question does not (a chain's next hop, found through the bridge) and
    # its cosine reaches this: MuSiQue reports keep 0.904 of their cited recall on the
    # development half instead of 0.879, at precision 0.180 instead of 0.196; off-topic
    # reports gain nothing, as no claim passes the gate to bridge from
    claim_bridge_min_relevance: Fraction = 0.2
    # domain synthesis: encoder cosines on which findings are about the same thing (two
    # of them with disagreeing figures are a conflict, settled by the vote) and are one
    # statement (merged into one insight with every source, when they also state the same
    # facts: claim_check.same_facts). Calibrated by benchmarks/claim_check_calibration.py
    # (2,238 pairs from the QA files, lab log §21). Same topic: another source states a
    # conflicting figure in its own words, and a reworded statement scores 0.761 with the
    # original at its 5th percentile, so 0.75 reaches 95% of them (0.80: 90%); another
    # sentence of the same paragraph reaches 0.75 in 6.9% of pairs, and becomes a conflict
    # only when both state figures and none agree. Near duplicate: the encoder alone must
    # keep statements apart, since text that names nothing (documentation) gives the
    # name-and-number check nothing to compare: another sentence of the same paragraph
    # reaches 0.85 in 0.6% of pairs and 0.9 in none, while 44% of reworded statements
    # stay below 0.9 and are kept as claims of their own. 0.70 (where the name check
    # separates every Wikipedia pair) was tried and dropped: over the Python docs it merged
    # "Context managers are normally invoked using the with statement …" with "The
    # context expression … is evaluated to obtain a context manager" (lab log §21).
    same_topic_similarity: Fraction = 0.75
    near_duplicate_similarity: Fraction = 0.9
    # trust engine
    fuzzy_match_threshold: Fraction = 0.85
    cross_validation_similarity: Fraction = 0.8  # paraphrases score ~0.97, related facts ~0.65
    verified_confidence: Fraction = 0.6
    # claim check (graph/claim_check.py): a claim or summary sentence a capable model worded
    # must state no name or number its quote (or cited claims) lacks, and its sentence-
    # encoder cosine with them must reach this. Calibrated by benchmarks/
    # claim_check_calibration.py on 1,090 supporting sentences of HotpotQA 200 and MuSiQue
    # 100 (docs/lab-log.md §8): at 0.60, 4.9% of mechanically shortened and 1.2% of
    # reworded faithful statements fail; 4.4% of sentences from another paragraph of the
    # question and 30.5% of other sentences of the same paragraph reach it, but with the
    # name check 0.2% and 3.5% pass (entity swaps 3.8%, number swaps 2.8%). It is the
    # highest value failing at most 5% of faithful ones: cosine alone separates best at
    # 0.70 (balanced accuracy 0.926), where 11% fail, among them one fact taken from a
    # long quote ("Quinn was a realtor.", 0.59), which is how models word findings.
    claim_text_min_similarity: Fraction = 0.6
    # prompt injection (graph/directives.py): a sentence, or one of its parts (behind a
    # label, in a table cell, a clause), worded as an order is dropped as addressed to the
    # AI when its likeness to the injected-instruction exemplars reaches min_similarity and
    # beats the reader-instruction and statement classes by margin. The pair sits where
    # ordinary sentences of documentation and encyclopaedic text stop being caught
    # (benchmarks/injection_suite.py detector, docs/lab-log.md §7): at 0.35/0.10, 9 of
    # 14 held-out injections caught; dropped: 0.26% of Python-documentation, 0.49% of
    # PostgreSQL-manual and 0.01% of MuSiQue and HotpotQA sentences. 0.30/0.05 drops 2.4%
    # of documentation for no more injections; 0.40 lets four English injections through.
    directive_min_similarity: Fraction = 0.35
    directive_margin: Fraction = 0.10

    def within(self, models: ModelSettings) -> ResearchConfig:
        """The session's one budget: its own cost and external-call limits, lowered to the
        ceiling the operator set in ``[models]`` (config.toml or environment) where that
        is lower. The recorded config holds the result, so the plan's cost split, the
        model coordinator and the result JSON all read the same figure."""
        return self.model_copy(update={
            name: min(getattr(self, name), getattr(models, name)) for name in BUDGET_FIELDS})


# The fields of a session's budget, the same names in ResearchConfig and [models]:
# fixed when a session starts, never raised by a template the analysis suggests.
BUDGET_FIELDS = ("max_total_cost_usd", "max_external_calls")


TEMPLATES: dict[str, dict[str, object]] = {
    "quick_fact": {"mode": "flat", "max_iterations": 5, "sub_question_min_iterations": 1,
                   "sub_question_max_iterations": 3, "max_gap_rounds": 1,
                   "max_total_cost_usd": 0.5, "max_external_calls": 5},
    "general": {"max_iterations": 12, "max_sub_questions": 4, "max_gap_rounds": 2},
    "deep_dive": {"mode": "hierarchical", "max_iterations": 30, "sub_question_max_iterations": 8,
                  "max_gap_rounds": 3, "min_findings": 5, "max_total_cost_usd": 5.0},
    "technical_docs": {"max_iterations": 15, "results_per_query": 6},
    "comparison": {"mode": "hierarchical", "min_sub_questions": 2, "max_sub_questions": 5,
                   "max_iterations": 20},
    "troubleshooting": {"mode": "flat", "max_iterations": 10},
    "product_research": {"max_iterations": 15, "use_web": True},
    "academic": {"mode": "hierarchical", "max_iterations": 25, "min_confidence": 0.75,
                 "min_findings": 4},
    "hierarchical": {"mode": "hierarchical", "max_iterations": 20, "min_sub_questions": 2,
                     "max_sub_questions": 4, "sub_question_min_iterations": 3,
                     "sub_question_max_iterations": 6, "saturation_threshold": 0.75,
                     "min_novelty_rate": 0.15, "max_total_cost_usd": 3.0,
                     "max_external_calls": 15},
}


def apply_template(config: ResearchConfig, template: str,
                   explicit: set[str] | None = None) -> ResearchConfig:
    """Template values over ``config``, except fields the user set explicitly."""
    if template not in TEMPLATES:
        raise ConfigError(f"unknown template {template!r}; choose from {', '.join(TEMPLATES)}")
    overrides = {k: v for k, v in TEMPLATES[template].items() if k not in (explicit or set())}
    return config.model_copy(update={**overrides, "template": template})
