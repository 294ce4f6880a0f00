"""Local knowledge base: ingestion, chunking, ONNX embeddings, Chroma + BM25 hybrid search."""
