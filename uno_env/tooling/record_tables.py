"""Tables of a documentation page drawn from a result record, so the page shows what the
record holds and nothing else.

A benchmark that keeps its printed tables (``uno_env.evaluation.report.PrintedTables``)
writes a record under ``docs/results/``. A page shows some of those tables between two
markers::

    <!-- record: results/bench.json tables=1,2 -->
    ...written by this module...
    <!-- /record -->

``tables=`` picks tables by their place in the record (0 is the first; all of them when
left out). ``python -m uno_env.tooling.record_tables PAGE ...`` rewrites every such
block of the pages from their records; a test checks that no page differs from what
its records give.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

BLOCK = re.compile(r"(<!-- record: (?P<path>\S+)(?: tables=(?P<tables>[0-9,]+))? -->\n)"
                   r"(?P<body>.*?)(<!-- /record -->)", re.S)


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|")


def render(record: dict[str, Any], name: str, tables: Sequence[int] | None = None) -> str:
    """The chosen ``tables`` of ``record`` (named ``name`` in the page's links) as
    Markdown, each under its title, then the line saying where they come from."""
    chosen = record["tables"] if tables is None else [record["tables"][i] for i in tables]
    lines: list[str] = []
    for table in chosen:
        header = table["header"]
        lines += [f"*{table['title']}*", "",
                  "| " + " | ".join(_cell(h) for h in header) + " |",
                  "|" + "|".join(["---"] + ["---:"] * (len(header) - 1)) + "|"]
        lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in table["rows"]]
        lines.append("")
    machine = record.get("machine", {})
    lines.append(f"From [{Path(name).name}]({name}): `{record['command']}`, commit "
                 f"{record.get('commit')}, {record.get('date')}, {machine.get('cpu')} "
                 f"({machine.get('cores')} cores, {machine.get('backend')}), load average "
                 f"{machine.get('load')} as it was written.")
    return "\n".join(lines) + "\n"


def refresh(page: Path) -> str:
    """The text of ``page`` with every record block drawn again from its record (a path
    relative to the page); a ``ValueError`` naming a record that cannot be read or a
    table it does not have."""
    def block(match: re.Match[str]) -> str:
        name = match["path"]
        try:
            record = json.loads((page.parent / name).read_text(encoding="utf-8"))
            picked = None if match["tables"] is None else \
                [int(i) for i in match["tables"].split(",") if i]
            body = render(record, name, picked)
        except (OSError, ValueError, KeyError, IndexError, TypeError) as e:
            raise ValueError(f"{page}: the record block of {name!r} cannot be drawn "
                             f"({type(e).__name__}: {e})") from None
        return match.group(1) + body + match.group(5)

    return BLOCK.sub(block, page.read_text(encoding="utf-8"))


def main(argv: Sequence[str] | None = None) -> int:
    """Rewrite the record blocks of every page named."""
    pages = [Path(p) for p in (sys.argv[1:] if argv is None else argv)]
    if not pages:
        print("usage: python -m uno_env.tooling.record_tables PAGE ...", file=sys.stderr)
        return 2
    for page in pages:
        try:
            text = refresh(page)
        except (OSError, ValueError) as e:
            print(f"record_tables: {e}", file=sys.stderr)
            return 1
        if text != page.read_text(encoding="utf-8"):
            page.write_text(text, encoding="utf-8")
            print(f"rewrote {page}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
