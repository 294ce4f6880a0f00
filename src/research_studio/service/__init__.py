"""The HTTP service: REST API, live events (SSE), API-key auth and the web page."""
