"""The research graph: wiring and routers in build.py, one module per stage in nodes/."""
