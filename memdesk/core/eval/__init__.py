"""Retrieval quality: metrics, golden sets, BEIR datasets, auto-tune, evaluation runs, reports."""
