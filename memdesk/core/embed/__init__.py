"""Text → vectors: the ``Embedder`` protocol, the GGUF embedder and the offline model builders."""
