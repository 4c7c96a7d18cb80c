"""Extensions, Python files that add tools, commands and handlers to the agent.

`loader` finds them (the user's folder always, a project's folder only when it is trusted) and
imports them; `api` is what each one's factory receives, staged so that a failing extension
leaves nothing behind; `runner` calls their handlers with a timeout; `hooks` plugs the
handlers into the agent loop's tool hooks and events.
"""
