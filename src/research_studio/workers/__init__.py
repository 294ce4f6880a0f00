"""Workers that run research sessions handed out by a task queue (the workers extra)."""
