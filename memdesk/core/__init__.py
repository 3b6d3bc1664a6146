"""Qt-free engine: workspace discovery, chunking, index, embedder, search, evaluation.

Nothing in this package may import PySide6 (enforced by ``tests/test_architecture.py``).
"""
