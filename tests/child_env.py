"""The environment a test gives a child process: nothing from the developer's shell leaks in,
except PYTHONPATH, so a worktree tested against a shared virtual environment runs its own code."""

from __future__ import annotations

import os


def child_env(**extra: str) -> dict[str, str]:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "COLUMNS": "200"}
    if os.environ.get("PYTHONPATH"):
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    env.update(extra)
    return env
