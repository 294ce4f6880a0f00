"""Durable storage: the sessions database and the LangGraph checkpointer."""
