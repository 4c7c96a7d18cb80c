"""The seven coding tools, one module per concern; import them from `pi.coding_agent`."""
