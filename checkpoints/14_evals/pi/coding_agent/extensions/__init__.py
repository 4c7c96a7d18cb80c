"""Extensions: Python files that add tools, commands and handlers to the agent."""
