"""pi.modes: the ways a person or a program talks to one Runtime (print, json, rpc, interactive).

A mode only decides where input comes from and what is written out; the Runtime does the work,
so a transcript is the same whichever mode produced it."""
