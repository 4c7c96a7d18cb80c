"""The four coding tools, one module per tool as in Pi; import them from `pi.coding_agent`."""
