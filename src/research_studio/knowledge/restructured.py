"""reStructuredText as the text a reader sees, by docutils.

Read raw, a reST file puts its markup into the findings (":class:`~asyncio.Barrier`",
".. versionadded:: 3.11", the title ".. _glossary:"). docutils parses it; the roles and
directives that Sphinx and its extensions add (``:func:``, ``.. function::``) are unknown
to docutils, which reports them as errors and drops what they hold, a function's
signature and description among it. Each role or directive name a document uses is
registered before it is parsed with a reader that keeps its text.
"""

from __future__ import annotations

import re
import threading
from collections import defaultdict
from types import SimpleNamespace
from typing import Any

from docutils import nodes
from docutils.core import publish_doctree
from docutils.parsers.rst import Directive, directives, roles
from docutils.parsers.rst.languages import en as english

# reST's own syntax for a role (":name:`text`") and a directive (".. name::"), so that the
# names a document uses can be registered before docutils meets them
_ROLE_NAME = re.compile(r"(?<![\w`]):([A-Za-z][\w.+-]*(?::[A-Za-z][\w.+-]*)*):`")
_DIRECTIVE_NAME = re.compile(r"^[ \t]*\.\.[ \t]+([A-Za-z][\w.+-]*(?::[A-Za-z][\w.+-]*)*)::",
                             re.MULTILINE)
# a cross-reference's text, as Sphinx shows it: "title <target>" shows the title, "~a.b.c"
# the last part, "!name" the name
_EXPLICIT_TITLE = re.compile(r"^(.+?)\s*<[^<>]+>$", re.DOTALL)

_BLANK_RUNS = re.compile(r"\n\s*\n(\s*\n)+")  # what dropped nodes leave between paragraphs

# docutils keeps its roles and directives in module-level registries
_registering = threading.Lock()
_SETTINGS = {"report_level": 5, "halt_level": 5, "warning_stream": False,
             "file_insertion_enabled": False, "raw_enabled": False,
             "input_encoding": "unicode", "syntax_highlight": "none"}


def _shown_text(text: str) -> str:
    explicit = _EXPLICIT_TITLE.match(text)
    if explicit:
        return explicit.group(1)
    if text.startswith("~"):
        return text[1:].rsplit(".", 1)[-1]
    return text.lstrip("!")


def _generic_role(name: str, rawtext: str, text: str, lineno: int, inliner: Any,
                  options: dict | None = None, content: list | None = None
                  ) -> tuple[list[nodes.Node], list[nodes.system_message]]:
    return [nodes.literal(rawtext, _shown_text(text))], []


class _AnyOption(defaultdict):
    """Every option name accepted, its value kept as written. docutils reads a
    directive's options only where its option table is truthy, so an empty table would
    leave ":synopsis: …" in the text."""

    def __bool__(self) -> bool:
        return True


class _GenericDirective(Directive):
    """A directive docutils does not know: its arguments as a line (a function's
    signature, a note's title), then its content parsed as reST; its options are settings
    of the renderer, not text."""

    optional_arguments = 1
    final_argument_whitespace = True
    has_content = True
    option_spec = _AnyOption(lambda: directives.unchanged)

    def run(self) -> list[nodes.Node]:
        shown: list[nodes.Node] = []
        if self.arguments and self.arguments[0].strip():
            shown.append(nodes.paragraph(text=self.arguments[0].strip()))
        if self.content:
            holder = nodes.container()
            self.state.nested_parse(self.content, self.content_offset, holder)
            shown += holder.children
        return shown


def _register_names(source: str) -> None:
    # a document stand-in for look-ups made before parsing: nothing to report yet
    nothing = SimpleNamespace(reporter=_Silent(), current_line=0)
    with _registering:
        for name in set(_ROLE_NAME.findall(source)):
            found, _ = roles.role(name, english, 0, _Silent())
            if found is None:
                roles.register_local_role(name, _generic_role)
        for name in set(_DIRECTIVE_NAME.findall(source)):
            found, _ = directives.directive(name, english, nothing)
            if found is None:
                directives.register_directive(name, _GenericDirective)


class _Silent:
    """A reporter that drops what it is told."""

    def __getattr__(self, _name: str) -> Any:
        return lambda *args, **kwargs: None


def _drop(document: nodes.document, kinds: tuple[type[nodes.Node], ...]) -> None:
    for node in list(document.findall(lambda n: isinstance(n, kinds))):
        node.parent.remove(node)


def render_rst(source: str) -> tuple[str, str]:
    """(text, title) of a reST document: markup read, comments and parser messages left
    out; the title is the document's first section title ("" without one)."""
    _register_names(source)
    document = publish_doctree(source, settings_overrides=_SETTINGS)
    _drop(document, (nodes.system_message, nodes.comment, nodes.substitution_definition,
                     nodes.target))
    title = document.get("title", "") or next(
        (node.astext() for node in document.findall(nodes.title)), "")
    return _BLANK_RUNS.sub("\n\n", document.astext()).strip(), title
