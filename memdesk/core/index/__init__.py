"""The index path: workspace discovery, the indexer (sync) and the SQLite store."""
