"""One module per stage of the research pipeline (see DESIGN.md)."""
