"""One research session on its own event loop in its own thread.

The research graph has CPU-bound stages (entity ranking, findings extraction, domain
synthesis, span verification) written as plain code inside async nodes. Run on the
server's loop they would stall every request and event stream while they compute; on a
loop of their own they only share the cores.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from typing import Any


class SessionThread:
    """Runs ``start()`` to completion in the calling (worker) thread; ``cancel()`` may be
    called from any thread, before or during the run."""

    def __init__(self, start: Callable[[], Awaitable[Any]]) -> None:
        self._start = start
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task | None = None
        self._cancelled = False

    def run(self) -> Any:
        loop = asyncio.new_event_loop()
        try:
            with self._lock:
                self._loop = loop
                self._task = loop.create_task(self._start())
                if self._cancelled:
                    self._task.cancel()
            return loop.run_until_complete(self._task)
        finally:
            with self._lock:
                self._loop = None
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.run_until_complete(loop.shutdown_default_executor())
            loop.close()

    def cancel(self) -> None:
        with self._lock:
            self._cancelled = True
            if self._loop is not None and self._task is not None:
                self._loop.call_soon_threadsafe(self._task.cancel)
