"""Sessions: Pi's JSONL v3 files, the tree they hold, and the context a leaf gives a model."""
