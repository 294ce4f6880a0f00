"""What the offline analysis knows about a question, computed once and kept in the state.

Plain data (JSON in the checkpointer): the plan, the sub-agents and the follow-up
queries read it instead of parsing the question again.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from enum import StrEnum
from typing import Any

# A sub-question researched on its own has at least this many words (issue 24's test of a
# fragment): a shorter question of a brief ("What is MVCC?") is asked about its subject, and
# one asked of an offered item ("Is Go faster?") is left to the question, which asks it of
# every item already.
MIN_QUESTION_WORDS = 4


class QuestionKind(StrEnum):
    """Seed 001's decomposition strategies, plus the nested chain of multi-hop questions."""

    COMPARISON = "comparison"
    MULTI_FACETED = "multi_faceted"
    CAUSAL = "causal"
    TEMPORAL = "temporal"
    EVALUATIVE = "evaluative"
    CHAIN = "chain"
    SINGLE_FACT = "single_fact"
    OPEN = "open"


@dataclass(frozen=True)
class Facet:
    """One part of a multi-part question, already phrased as a question (``text``)."""

    text: str
    source: str  # the words of the question it comes from


@dataclass(frozen=True)
class QuestionStructure:
    """The parse of a question, reduced to what planning and hopping need.

    ``clauses``: a nested question's chain, outermost first ("the county" → "the city" →
    "X was born"); ``anchor``: its innermost clause with the noun it describes, searched
    first; ``asked_kind``: that noun ("city"). ``entities``: names the question gives."""

    text: str
    kind: QuestionKind = QuestionKind.OPEN
    english: bool = True
    topic: str = ""
    # the topic with the article the question gives it ("the -wal file" of "My -wal file
    # …"), as a template writes it in a sentence; empty when it is the topic itself
    topic_phrase: str = ""
    items: list[str] = field(default_factory=list)
    dimensions: list[str] = field(default_factory=list)
    # the dimensions were written as a list of attributes ("on cost and reliability"), each
    # compared on its own; nouns merely found after the items are not
    dimensions_listed: bool = False
    purpose: str = ""
    reason_for: str = ""  # a "why" question's clause: "the Roman Empire to fall"
    # the event whose outcome a "what happens when/if" question asks: "the primary server fails"
    outcome_of: str = ""
    # a causal question asks what its topic brings about or how it works, not its causes
    asks_effects: bool = False
    claim: str = ""  # what a yes/no question asks about: "coffee causes dehydration"
    # an evaluative question asks for the best or for which one of a kind ("What is the
    # best database for …?", "Which backup tool should I use?"): it weighs options
    weighs_options: bool = False
    # what a question about the asker's own doing asks how to do: "configure a firewall
    # with nftables on Debian" ("How do I configure …?")
    action: str = ""
    facets: list[Facet] = field(default_factory=list)
    positions: list[str] = field(default_factory=list)
    clauses: list[str] = field(default_factory=list)
    anchor: str | None = None
    asked_kind: str | None = None
    entities: list[str] = field(default_factory=list)
    sentences: int = 1
    asks_itself: bool = False  # a question ("Which is newer, X or Y?"), not an instruction
    # what a question that offers its answers asks of each, "{item}" standing for one
    # ("Which is newer, X or Y?" → "Is {item} newer?"); empty when it offers none
    item_question: str = ""
    research_question: str = ""  # the text as one whole question (an instruction's object asked about)
    # the question a text asks after its premises, which names what it asks about: what a
    # sub-question through a linked name asks, the whole text being what it searches
    premised_question: str = ""
    kind_scores: dict[str, float] = field(default_factory=dict)

    @property
    def as_question(self) -> str:
        """What a plan's "the question itself" asks: ``research_question``, or the text."""
        return self.research_question or self.text

    @property
    def written_topic(self) -> str:
        """The topic as a sentence writes it: with its article where the question gives one."""
        return self.topic_phrase or self.topic

    @property
    def is_simple(self) -> bool:
        """One fact asked in one sentence: ``--mode auto`` researches it flat."""
        return self.kind == QuestionKind.SINGLE_FACT

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON types only: the checkpointer stores the state as msgpack."""
        return {**asdict(self), "kind": self.kind.value}

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None, text: str = "") -> QuestionStructure:
        """Rebuild a stored structure; unknown keys (an older state) are ignored."""
        if not data:
            return cls(text=text, english=False)
        known = {f.name for f in fields(cls)}
        values = {k: v for k, v in data.items() if k in known}
        values["kind"] = QuestionKind(values.get("kind", QuestionKind.OPEN))
        values["facets"] = [Facet(**f) for f in values.get("facets", [])]
        return cls(**values)
