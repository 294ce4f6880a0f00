"""Web search providers and SSRF-safe page fetching."""
