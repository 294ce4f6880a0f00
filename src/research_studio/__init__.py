"""Research Studio: a hierarchical, grounded, offline-first deep-research engine."""

__version__ = "0.1.0"
