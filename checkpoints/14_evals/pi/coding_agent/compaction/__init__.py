"""Compaction: token estimates decide when, cut points decide where, and a model's summary stands
in for what was cut; the session file is never shortened, only the context a leaf gives."""
