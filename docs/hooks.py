"""MkDocs hook: the docstrings cross-reference in Sphinx's roles (``:func:`name```), which
the API reference shows as code: drop the role's name, and as in Sphinx show only the
last part of a ``~``-prefixed path."""

from __future__ import annotations

import re

ROLE = re.compile(r":(?:func|class|mod|meth|attr|data|obj|exc):<code>(~?)([^<]*)</code>")


def _code(match: re.Match) -> str:
    tilde, name = match.groups()
    return f"<code>{name.rsplit('.', 1)[-1] if tilde else name}</code>"


def on_page_content(html: str, **kwargs) -> str:
    """The page's HTML with every Sphinx role reduced to its code."""
    return ROLE.sub(_code, html)
