"""Model layer: every LLM call in the product goes through the ModelCoordinator."""
