"""``/api/knowledge-bases``: list, upload documents to ingest, search."""

from __future__ import annotations

import asyncio
import shutil
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Path, Query, Request, UploadFile

from research_studio.config import KbName
from research_studio.errors import UnknownKnowledgeBase
from research_studio.knowledge.base import SearchMode
from research_studio.service.responses import refusals
from research_studio.service.schemas import KnowledgeBaseList
from research_studio.service.uploads import upload_path
from research_studio.store.faults import folder_fault

# the name becomes a folder: checked by the schema (422) before any path is made from it
Name = Annotated[KbName, Path(description="Knowledge base name: 1-63 letters, digits, '.', "
                                          "'_' or '-', starting and ending with a letter or digit.")]


def _registry(request: Request):  # type: ignore[no-untyped-def]
    return request.app.state.runner.workspace.registry


def build_router(max_upload_bytes: int) -> APIRouter:
    """The routes, with the upload route's own (larger) request-size limit."""
    router = APIRouter(prefix="/api/knowledge-bases", tags=["knowledge"])
    router.get("", response_model=KnowledgeBaseList, responses=refusals())(list_knowledge_bases)
    router.post("/{name}/documents", status_code=201, max_body_size=max_upload_bytes,
                responses=refusals(400, 413, 422))(upload_documents)
    router.get("/{name}/search", responses=refusals(400, 404, 422))(search_knowledge_base)
    return router


async def list_knowledge_bases(request: Request) -> dict[str, Any]:
    infos = await asyncio.to_thread(_registry(request).list)
    return {"knowledge_bases": [info.__dict__ for info in infos]}


async def upload_documents(name: Name, files: list[UploadFile], request: Request) -> dict[str, Any]:
    """Store the files under the knowledge base's upload folder and ingest them (the base
    is created when new). Unreadable files are reported as skipped, with the reason."""
    settings = request.app.state.settings
    home = request.app.state.runner.workspace.ctx.home
    folder = home / "uploads" / name
    stored = []
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for upload in files:
            target = upload_path(folder, upload.filename)
            with target.open("wb") as out:
                await asyncio.to_thread(shutil.copyfileobj, upload.file, out)
            if target.stat().st_size > settings.service.max_upload_bytes:
                target.unlink()
                raise HTTPException(413, f"{target.name} is larger than the upload limit")
            stored.append(target)
    except OSError as exc:  # an unwritable home or a full disk: the server's fault (503)
        raise folder_fault("upload folder", folder, exc) from exc
    registry = _registry(request)
    kb = registry.open(name, create=True)
    summary = await asyncio.to_thread(kb.ingest_paths, stored, None, home)
    return {"knowledge_base": name, "files": [p.name for p in stored], **summary.to_dict()}


async def search_knowledge_base(
        name: Name, request: Request,
        q: Annotated[str, Query(min_length=1, max_length=2000)],
        k: Annotated[int, Query(ge=1, le=50)] = 10,
        mode: SearchMode = "hybrid") -> dict[str, Any]:
    try:
        kb = _registry(request).open(name)
    except UnknownKnowledgeBase as exc:
        raise HTTPException(404, str(exc)) from None
    hits = await asyncio.to_thread(kb.search, q, k, mode)
    return {"knowledge_base": name, "query": q, "mode": mode, "hits": [h.to_dict() for h in hits]}
