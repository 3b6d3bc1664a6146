"""memdesk: browse, edit, search and tune retrieval over an agent's Markdown memory."""

import os as _os

# llama.cpp already uses every core for embedding; an OpenBLAS thread pool on top
# spin-waits against it and turns a 1 ms matrix product into 100+ ms (measured
# while indexing). memdesk's numpy work is small and latency-bound: one thread.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    _os.environ.setdefault(_var, "1")

__version__ = "0.1.0"
