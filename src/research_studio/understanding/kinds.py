"""What a question asks for, judged by the sentence encoder against exemplar questions.

The exemplars (``prompts/question_kinds.toml``) say what each kind of question asks;
the encoder generalises from them to wordings nobody listed. Structure (how many items,
facets or clauses) is the parser's job, in ``facets`` and ``chains``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import NamedTuple

from research_studio.understanding.exemplars import Embed, exemplar_scores

__all__ = ["TOGETHER_MARGIN", "AskerJudges", "Embed", "asker_judges", "asks_for_effects", "asks_of_the_group",
           "kind_scores", "writing_flags", "writing_judge"]

# An instruction's object reads as a piece of writing ("a research paper") rather than a
# subject ("the price dynamics") when it is closer to the writing exemplars by this much.
# Taking a subject for writing drops what was asked, while keeping a piece of writing only
# adds words, so near ties keep the object. On phrases that are not exemplars, 17 of 18
# pieces of writing ("dissertation", "memo", "white paper", "in-depth study notes") lead
# by 0.09 or more and 20 of 20 subjects ("teaching methods", "public opinion", "history",
# "research progress") by at most 0.04; "briefing note" (0.03) is missed. A second list
# of 20 and 20, with what a text asks to conclude with ("policy recommendations",
# "proposed regulatory guidelines", "practical advice"): 19 pieces of writing lead by
# 0.06 or more ("a market report" does not) and every subject by at most 0.02.
WRITING_MARGIN = 0.05
# A sentence about the person asking states their situation, and is context rather than
# a question to research, when it is closer to the situation exemplars by this much.
# Taking a wish for a situation drops what was asked, while keeping a situation only adds
# a sub-question, so near ties keep the sentence. On 20 wishes and 20 situations that are
# not exemplars, every wish scores at most +0.01 ("I must decide it") and 15 of the 20
# situations +0.06 or more ("I teach it"); "I am studying it" (-0.09) is kept.
SITUATION_MARGIN = 0.05
# The other way, a sentence about the person asking states what they want ("I need help
# drafting it"), and is part of what they ask, when it is closer to the asking exemplars by
# this much; between the two margins a sentence is neither and reads as a statement. On 8
# wishes and 12 situations that are not exemplars (lab log §50), 6 wishes lead by 0.18 or
# more ("I need it" 0.49) and "I have to write it", "I must decide on it" lean the other
# way; 11 situations lean to the situation or tie ("I have it" +0.01), and "I am studying
# for it" (+0.13) reads as a wish. A wish missed is read as a premise of the question after
# it, which is then researched with it, whole; a premise taken for a wish keeps its own
# sub-question, so the margin is the situation's, mirrored.
WISH_MARGIN = 0.05


# A question asked beside a comparison that names none of the items is asked of them
# together when it reads as closer to the group exemplars by at least this much
# (``[group_questions]``). Asked of each item, a question about the group is nonsense ("As
# for json, what is the practical difference?"), while one each item answers, asked of
# the group, still reads ("As for X and Y, what are the costs?"): a tie goes to the group.
# On 15 group questions and 15 per-item questions that are not exemplars, every group
# question leads by 0.08 or more ("What is the practical difference?" +0.08, "How similar
# are they?" +0.44) and 14 per-item ones trail by 0.06 or more; "What does the community
# say?" (+0.05) reads either way.
GROUP_MARGIN = 0.0
# A question whose subject is a plural pronoun standing for the compared items ("can they
# be taken together?") is asked of each item ("Can X be taken …?") unless it reads as
# about them together by at least this much: there, each reading is grammatical, and a
# question each item answers is only read for the group when it clearly is one. On 12
# such questions written as a check (one typed twice, in lower and upper case), the six
# about the group lead by 0.21 or more ("Can they be used at the same time?" +0.21, "Can
# they be taken together?" +0.49) and the six each item answers by at most +0.09 ("How
# fast are they?"); of five more, "Are they expensive to install?" (-0.17) and "Were they
# designed for large files?" (-0.14) lean to each, and "Are they noisy at night?" (+0.09),
# "Are they cheaper to run?" (+0.01) and "How do they differ in learning curve?" (+0.12)
# stay asked of each, as before.
TOGETHER_MARGIN = 0.15


def asks_of_the_group(question: str, embed: Embed, margin: float = GROUP_MARGIN) -> bool:
    """The question asks about the compared items together ("What is the difference?",
    "Which is faster?"), not something each answers alone ("What are the trade-offs?"),
    by ``margin`` or more."""
    [scores] = exemplar_scores([question], embed, "question_kinds", "group_questions")
    return scores["together"] - scores["each"] >= margin


def kind_scores(question: str, embed: Embed) -> dict[str, float]:
    """Each kind's likeness to the question (cosine, higher is closer)."""
    [scores] = exemplar_scores([question], embed, "question_kinds", "kinds")
    return {kind: round(score, 4) for kind, score in scores.items()}


def asks_for_effects(question: str, embed: Embed) -> bool:
    """A causal question asks what something brings about or how it works ("What are the
    long-term effects of X?", "Explain how vaccines train the immune system") rather than
    what caused it (``prompts/question_kinds.toml``, ``[causal_asks]``). The nearer table
    decides: either reading asks about the same topic, so a near tie costs one
    sub-question's angle, not its subject."""
    [scores] = exemplar_scores([question], embed, "question_kinds", "causal_asks")
    return scores["effects"] > scores["causes"]


def writing_flags(phrases: list[str], embed: Embed) -> list[bool]:
    """Per noun phrase: it names a piece of writing the person wants made (a report, a
    paper) rather than what to research (``prompts/question_kinds.toml``, ``[object_kinds]``).
    One encoder batch for all of them."""
    return [scores["writing"] - scores["subject"] >= WRITING_MARGIN
            for scores in exemplar_scores(phrases, embed, "question_kinds", "object_kinds")]


class AskerJudges(NamedTuple):
    """Judges of a sentence about the person asking, its thing replaced by "it"
    (``asker.about_the_asker``), against ``prompts/question_kinds.toml``'s
    ``[asker_statements]``: ``situation`` is True when it states the person's situation
    ("I run it"), ``wish`` when it states what they want ("I need it", "I'd like to know
    it"); between the margins it is neither."""

    situation: Callable[[str], bool]
    wish: Callable[[str], bool]


def asker_judges(embed: Embed) -> AskerJudges:
    """Both judges for one question, each frame scored once for both (the situation is
    judged while the question's parts are read, the wish while its premises are)."""
    @cache
    def situation_lead(frame: str) -> float:
        [scores] = exemplar_scores([frame], embed, "question_kinds", "asker_statements")
        return scores["situation"] - scores["asks"]
    return AskerJudges(situation=lambda frame: situation_lead(frame) >= SITUATION_MARGIN,
                       wish=lambda frame: -situation_lead(frame) >= WISH_MARGIN)


def writing_judge(embed: Embed) -> Callable[[str], bool]:
    """``writing_flags`` for one phrase at a time, for the parse's reading of each object;
    each phrase is judged once per judge (one question's reading asks of the same object
    more than once: for its list, for its subject and for its parts)."""
    @cache
    def is_writing(phrase: str) -> bool:
        return writing_flags([phrase], embed)[0]
    return is_writing
