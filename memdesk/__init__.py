"""memdesk: browse, edit, search and tune retrieval over an agent's Markdown memory."""

__version__ = "0.1.0"
