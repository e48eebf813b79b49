"""The web page of ``uno-env serve``: play against agents, and replay game records.

Modules with one job each: :mod:`.view` (a game as the page's frames), :mod:`.games`
(the games being played), :mod:`.store` (the records folder), :mod:`.app` (the HTTP
API, FastAPI), :mod:`.server` (the command's server), :mod:`.notebook` (a record shown
in a notebook). Only :mod:`.app` and :mod:`.server` need the ``web`` extra.
"""
