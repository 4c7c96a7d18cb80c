"""pi.modes: the ways a person or a program talks to one Runtime (step 13).

The Runtime does the work and reports events; a mode only decides where input comes from
and what is written out. Print mode answers one prompt with the final text, json mode writes
every event as a JSON line, rpc mode reads commands as JSON lines on stdin and writes
responses and events on stdout (Pi's protocol), and interactive mode is a terminal UI. None
of them changes how the agent runs, so a transcript is the same whichever mode produced it.
"""
