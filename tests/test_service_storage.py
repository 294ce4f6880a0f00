"""The sessions database and the checkpointer behave the same on SQLite and PostgreSQL."""

import asyncio
import operator
from typing import Annotated, TypedDict

import pytest
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt

from research_studio.config import AppContext, Settings
from research_studio.errors import ConfigError
from research_studio.store.backends import open_checkpointer, storage_backend
from research_studio.store.sessions import SessionStore
from tests.storage import database_url  # noqa: F401 (fixture)


@pytest.fixture
def backend_ctx(tmp_path, database_url):  # noqa: F811
    return AppContext(tmp_path, Settings(database_url=database_url))


def test_one_url_selects_the_backend(tmp_path):
    sqlite = storage_backend(AppContext(tmp_path, Settings()))
    assert sqlite.kind == "sqlite" and sqlite.checkpoint_target == str(tmp_path / "checkpoints.db")
    pg = storage_backend(AppContext(tmp_path, Settings(database_url="postgres://u:secret@db:5433/rs")))
    assert pg.kind == "postgresql"
    assert pg.sessions_url == "postgresql+psycopg://u:secret@db:5433/rs"
    assert pg.checkpoint_target == "postgresql://u:secret@db:5433/rs"
    assert "secret" not in pg.describe() and "db:5433/rs" in pg.describe()
    with pytest.raises(ConfigError, match="postgresql://"):
        storage_backend(AppContext(tmp_path, Settings(database_url="mysql://x/y")))


def test_sessions_events_and_pagination(backend_ctx):
    store = SessionStore(storage_backend(backend_ctx).sessions_url)
    for i in range(5):
        store.create(f"s{i}", f"question {i}", {"kb": "k"}, status="queued" if i < 2 else "completed")
    assert store.count() == 5
    page1, page2 = store.list(limit=3), store.list(limit=3, offset=3)
    assert len(page1) == 3 and len(page2) == 2
    assert not {r["id"] for r in page1} & {r["id"] for r in page2}
    assert set(store.unfinished()) == {"s0", "s1"}
    ids = [store.add_event("s0", kind, {"n": n}) for n, kind in enumerate(["status", "stage", "plan"])]
    store.add_event("s1", "status", {"n": 99})
    assert ids == sorted(ids) and len(set(ids)) == 3
    events = store.events_after("s0")
    assert [e["kind"] for e in events] == ["status", "stage", "plan"]
    assert [e["data"]["n"] for e in store.events_after("s0", ids[0])] == [1, 2]
    assert store.events_after("s0", ids[-1]) == []
    store.update("s0", progress={"stage": "plan", "sub_questions": [{"sub_question_id": "sq_001"}]})
    assert store.get("s0")["progress"]["sub_questions"][0]["sub_question_id"] == "sq_001"


class Counter(TypedDict):
    steps: Annotated[list[str], operator.add]
    answer: str


def _graph() -> StateGraph:
    def first(state: Counter) -> dict:
        return {"steps": ["first"]}

    def ask(state: Counter) -> dict:
        return {"answer": interrupt({"question": "which?"}), "steps": ["ask"]}

    graph = StateGraph(Counter)
    graph.add_node("first", first)
    graph.add_node("ask", ask)
    graph.add_edge(START, "first")
    graph.add_edge("first", "ask")
    graph.add_edge("ask", END)
    return graph


def test_checkpointer_survives_reopening_and_resumes_an_interrupt(backend_ctx):
    asyncio.run(_reopen_and_resume(backend_ctx))


async def _reopen_and_resume(backend_ctx):
    backend = storage_backend(backend_ctx)
    config = {"configurable": {"thread_id": "t1"}}
    async with open_checkpointer(backend) as saver:
        app = _graph().compile(checkpointer=saver)
        await app.ainvoke({"steps": []}, config)
        snapshot = await app.aget_state(config)
        assert snapshot.next == ("ask",)
        assert snapshot.tasks[0].interrupts[0].value == {"question": "which?"}
    async with open_checkpointer(backend) as saver:  # a new process would do the same
        app = _graph().compile(checkpointer=saver)
        result = await app.ainvoke(Command(resume="the second"), config)
    assert result == {"steps": ["first", "ask"], "answer": "the second"}
