"""Resources: what the agent is told before the first prompt (system prompt, project
instructions from AGENTS.md, skills, prompt templates), and where it comes from."""
