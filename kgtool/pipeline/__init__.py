"""The application layer: what a command or an integration runs, over the four layers.

A command parses its arguments, calls in here and prints; the git hooks and the pull-request
check call the same functions. ``context`` opens a repository; ``refresh`` brings layers 1
and 2 (and the map) up to date and says what is wrong with them; ``checks`` runs every
read-only check; ``changelog`` compares the map of two revisions. Nothing here parses a
command line, and nothing below (the layers) imports it.
"""
