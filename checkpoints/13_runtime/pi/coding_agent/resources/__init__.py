"""Resources: what the agent is told before the first prompt, and where it comes from.

System prompt, project instructions (AGENTS.md), skills and prompt templates (step 11).
"""
