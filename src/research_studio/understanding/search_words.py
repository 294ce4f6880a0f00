"""What research searches for a sub-question the offline planner wrote from a template.

A template's own words are the planner's, not the evidence's: "What background is needed
to understand two GitHub accounts?" searched as worded ranks chunks that say
"background" or "needed", and "What is known about git clean -x?" ranks "a well-known
commit". ``prompts/offline_plan.toml``'s ``[search]`` table names, for such templates,
the words to search instead (the parts the question gave, "two GitHub accounts"). A
sub-question is matched against the template it was written from, so nothing here reads
English: a text no listed template wrote (a model's, a reviewer's) is searched as worded.
"""

from __future__ import annotations

import re
from functools import cache

from research_studio.prompts import load_data

_SLOT = re.compile(r"\{(\w+)\}")


def _pattern(template: str) -> re.Pattern[str]:
    """The texts ``template`` writes: its words exactly, in each slot any phrase (not a
    question mark: a slot holds part of a question, not the end of one)."""
    parts, at = [], 0
    for slot in _SLOT.finditer(template):
        parts += [re.escape(template[at:slot.start()]), f"(?P<{slot.group(1)}>[^?]*?)"]
        at = slot.end()
    return re.compile("".join([*parts, re.escape(template[at:])]), re.DOTALL)


@cache
def _search_forms() -> tuple[tuple[re.Pattern[str], str], ...]:
    plan = load_data("offline_plan")
    forms = []
    for name, form in plan["search"].items():
        section, key = name.split(".")
        forms.append((_pattern(plan[section][key]), form))
    return tuple(forms)


def search_words(text: str) -> str:
    """The words to search for a sub-question: its ``[search]`` form when a listed template
    wrote it, else empty (it is searched as worded)."""
    for pattern, form in _search_forms():
        if match := pattern.fullmatch(text):
            words = " ".join(form.format(**match.groupdict()).split())
            return words if words != text else ""
    return ""
