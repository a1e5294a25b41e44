"""What a command's own checks let stand, without the model (issue 23 §2): over CLINC150's train and val
splits and their out-of-scope queries (never test) and the issue-13 corpus's dev rows, how many
must-not-claim sentences the command would neither decline (`Command.declines`) nor turn down by its
argument check (`Command.stands`), and how many of its in-domain sentences it turns down. The
semantic stage only claims what its classifier chose, so these counts are the room a rule of kind
leaves, judged on every sentence at once: a rule that lowers the first and keeps the second.

    .venv/bin/python bench/clinc_stands.py COMMAND [--show-outside | --show-inside]
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

sys.path.insert(0, str(Path(__file__).parent))
from clinc_corpus import CORPUS, Query, expected, tolerated  # noqa: E402
from routing import HOUSEHOLD_ZONE  # noqa: E402

ISSUE_13 = Path(__file__).parent / "corpus" / "utterances.jsonl"


def sentences() -> list[tuple[str, str, tuple[str, ...] | None]]:
    """(where, text, intent) of CLINC train and val, their oos queries, and (where, text, command)
    of the issue-13 dev rows (the command as an intent of its own, "" for must-not-claim)."""
    data = json.loads(CORPUS.read_text(encoding="utf-8"))
    rows = [(split, text, intent) for split in ("train", "val") for text, intent in data[split]]
    rows += [(split, text, "oos") for split in ("oos_train", "oos_val") for text, _ in data[split]]
    for line in ISSUE_13.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row["split"] == "dev":
            rows.append(("issue13", row["text"], "issue13:" + (row.get("command") or "")))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command")
    parser.add_argument("--show-outside", action="store_true", help="print the must-not-claim sentences it lets stand")
    parser.add_argument("--show-inside", action="store_true", help="print the in-domain sentences it turns down")
    args = parser.parse_args()
    from voxd.commands.api import RouteContext
    from voxd.commands.registry import built_in_commands
    from voxd.commands.scanning import refined_arguments
    from voxd.language.fillers import drop_fillers
    from voxd.language.slips import repair

    commands = built_in_commands()
    loaded, command = {c.name for c in commands}, next(c for c in commands if c.name == args.command)
    zone = ZoneInfo(HOUSEHOLD_ZONE)
    context = RouteContext(now=datetime.now(zone), timezone=zone)
    inside = turned_down = outside = let_stand = 0
    for where, text, intent in sentences():
        wanted = ((intent[8:],) if intent[8:] else ()) if intent.startswith("issue13:") else expected(intent, loaded)
        if not wanted and tolerated(Query(text, intent, where), command.name):
            continue
        said = repair(drop_fillers(text))
        stands = not command.declines(said) and command.stands(refined_arguments(command, said, context), said)
        if command.name in wanted:
            inside += 1
            turned_down += not stands
            if args.show_inside and not stands:
                print(f"  turned down  {where:9} {intent:22} {text!r}")
        elif not wanted:
            outside += 1
            let_stand += stands
            if args.show_outside and stands:
                print(f"  let stand    {where:9} {intent:22} {text!r}")
    print(f"{command.name}: in-domain turned down {turned_down}/{inside}; must-not-claim let stand {let_stand}/{outside}")


if __name__ == "__main__":
    main()
