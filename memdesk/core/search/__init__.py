"""The query path: candidate and hit types, search settings, lexical analysis, dates, ranking."""
