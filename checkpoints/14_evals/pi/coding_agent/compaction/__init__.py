"""Compaction: keep a long session inside the context window without losing its history.

Token estimates decide *when*; cut points decide *where*; a model call writes the summary that
stands in for what was cut. The session file itself is never shortened: a compaction is one
more entry, and only the context a leaf gives a model gets smaller.
"""
