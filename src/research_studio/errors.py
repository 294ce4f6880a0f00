"""Errors a user can act on. The CLI and API print their message; nothing else leaks."""


class ResearchStudioError(Exception):
    """Base class: its message is meant for the person running the tool."""


class ConfigError(ResearchStudioError):
    """The configuration file or an environment variable is invalid."""


class UnknownKnowledgeBase(ResearchStudioError):
    """A knowledge base name that does not exist in this home."""

    def __init__(self, name: str, existing: list[str]) -> None:
        listing = ", ".join(sorted(existing)) if existing else "none yet (run `research-studio ingest`)"
        super().__init__(f"unknown knowledge base {name!r}; existing: {listing}")
        self.name = name
        self.existing = existing


class InvalidQuery(ResearchStudioError):
    """An empty or otherwise unusable query; ``field`` names the request field at fault
    (``query``, or ``config`` for a session that has nothing to research)."""

    def __init__(self, message: str, field: str = "query") -> None:
        super().__init__(message)
        self.field = field


class ModelUnavailable(ResearchStudioError):
    """A configured model could not be reached or loaded; names the model."""


class BudgetExhausted(ResearchStudioError):
    """The session's cost or external-call budget leaves no model for a tier."""


class WebUnavailable(ResearchStudioError):
    """Web search or fetch cannot be used (offline, provider failing, address refused)."""


class SessionQuarantined(ResearchStudioError):
    """A session whose process kept dying while running it; it is failed, not resumed."""


class BrokerUnavailable(ResearchStudioError):
    """The task queue could not take a session; it stays recorded as queued, and the
    workers dispatch it once the queue is back."""

    def __init__(self, message: str, session_id: str) -> None:
        super().__init__(message)
        self.session_id = session_id


class SessionBusy(ResearchStudioError):
    """Another live process (a worker, another server) holds the session's lease: it is
    running there, and nothing about the session changed here."""


class StorageError(ResearchStudioError):
    """A file or folder of the home cannot be used: not writable, corrupt, truncated, someone
    else's database, a full disk. The message names it and says what to do."""
