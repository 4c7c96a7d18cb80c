"""The runtime: the composition root that turns the parts into a usable agent."""
