"""The comparison behind ``benchmarks/equivalence.py`` (two rackcost executables, face by face): JSON walked leaf by
leaf, numbers bit for bit or within a relative 1e-12, keys on one side only listed, text compared line by line.

The script lives in ``benchmarks/`` (it runs executables, it is not part of the library), so its folder is put on
the path as the dashboard's tests put ``app/``.
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from equivalence import compare, compare_text, read_csv, relative_difference  # noqa: E402

BEFORE: dict[str, Any] = {
    "scenario": "toy",
    "systems": [
        {"system": "A", "usd_per_accepted_request": 0.3, "racks": 4},
        {"system": "B", "usd_per_accepted_request": 1.25, "racks": 2},
    ],
    "solver": {"solve_s": 1.56, "status": "optimal"},
    "warnings": [],
}


def _after(**changes: object) -> dict[str, Any]:
    """BEFORE with system A's fields changed (a fresh copy each time)."""
    after = copy.deepcopy(BEFORE)
    after["systems"][0].update(changes)
    return after


def test_equal_documents_are_identical() -> None:
    found = compare(BEFORE, _after())
    assert found.status() == "identical"
    assert (found.within, found.different, found.only_before, found.only_after) == ([], [], [], [])
    assert found.leaves == 9  # scenario, 2 x (system, cost, racks), solve_s, status; an empty list has no leaf


def test_a_sum_in_another_order_is_within_and_says_where() -> None:
    # 0.1 + 0.2 is 0.30000000000000004: one ulp (2^-54) above 0.3, a relative 1.85e-16
    found = compare(BEFORE, _after(usd_per_accepted_request=0.1 + 0.2))
    assert found.status() == "within 1e-12"
    [(path, rel)] = found.within
    assert path == "$.systems[0]{system=A}.usd_per_accepted_request"
    assert rel == relative_difference(0.3, 0.1 + 0.2) == (0.1 + 0.2 - 0.3) / (0.1 + 0.2)
    assert 1e-16 < rel < 2e-16


def test_a_changed_number_string_or_type_is_different_with_both_values() -> None:
    found = compare(BEFORE, _after(usd_per_accepted_request=0.3 * (1 + 1e-9), system="A2", racks=4.0))
    assert found.status() == "DIFFERENT"
    assert found.different == [
        ("$.systems[0]{system=A}.system", "'A'", "'A2'"),
        ("$.systems[0]{system=A}.usd_per_accepted_request", "0.3", repr(0.3 * (1 + 1e-9))),
        ("$.systems[0]{system=A}.racks", "int 4", "float 4.0"),  # 4 -> 4.0 changes the JSON text
    ]


def test_new_keys_are_listed_and_pass_only_when_allowed_lost_keys_never_pass() -> None:
    after = _after()
    after["years"] = [{"year": 1}]
    found = compare(BEFORE, after)
    assert found.only_after == ["$.years"] and found.only_before == []
    assert found.status() == "DIFFERENT"
    assert found.status(allow_new_keys=True) == "identical"
    lost = compare(after, BEFORE)
    assert lost.only_before == ["$.years"]
    assert lost.status(allow_new_keys=True) == "DIFFERENT"


def test_a_longer_list_lists_its_extra_items() -> None:
    after = _after()
    after["systems"].append({"system": "C", "usd_per_accepted_request": 2.0, "racks": 1})
    assert compare(BEFORE, after).only_after == ["$.systems[2]{system=C}"]


def test_wall_clock_keys_are_ignored_where_asked() -> None:
    after = _after()
    after["solver"]["solve_s"] = 9.0
    assert compare(BEFORE, after).status() == "DIFFERENT"
    assert compare(BEFORE, after, ignore=["solve_s"]).status() == "identical"


def test_text_compares_numbers_as_tokens_and_lists_new_lines() -> None:
    before = "# Report\nJalapeño costs $1,234.5 per 1,000 requests\nend\n"
    assert compare_text(before, before).status() == "identical"
    assert compare_text(before, before).leaves == 2  # 1,234.5 and 1,000 (a thousands separator is part of it)
    formatted = compare_text(before, before.replace("$1,234.5", "$1,234.50"))  # the same number, written longer
    assert formatted.status() == "within 1e-12" and formatted.within == [("line 2", 0.0)]
    changed = compare_text(before, before.replace("1,234.5", "1,234.6"))
    assert changed.different == [
        ("line 2", "Jalapeño costs $1,234.5 per 1,000 requests", "Jalapeño costs $1,234.6 per 1,000 requests")
    ]
    added = compare_text(before, before.replace("end", "A buying plan is cheaper.\nend"))
    assert added.only_after == ["line 3: A buying plan is cheaper."]
    assert added.status(allow_new_keys=True) == "identical"
    reworded = compare_text(before, before.replace("costs", "cost"))
    assert reworded.status() == "DIFFERENT"


def test_a_paragraph_moved_in_text_is_listed_as_moved_not_lost() -> None:
    before = "# Report\n\n**Systems: A is cheapest at $2.41.**\n\n**Plan: $23.6M.**\n\nend\n"
    after = "# Report\n\n**Plan: $23.6M.**\n\n**Systems: A is cheapest at $2.41.**\n\nend\n"
    found = compare_text(before, after)
    # which of the two paragraphs counts as the one that moved is difflib's choice; either is a move
    assert (found.only_before, found.only_after, found.different) == ([], [], [])
    [moved] = [m.split(": ", 1)[1] for m in found.moved]  # the blank line that moved with it is not listed
    assert moved in ("**Plan: $23.6M.**", "**Systems: A is cheapest at $2.41.**")
    assert found.status() == "DIFFERENT" and found.status(allow_new_keys=True) == "identical"
    swapped = compare_text("a 1\nb 2\n", "b 2\na 1\n")
    assert (len(swapped.moved), swapped.different, swapped.only_before, swapped.only_after) == (1, [], [], [])


def test_a_csv_table_is_compared_cell_by_cell() -> None:
    table = "configuration,system,usd,note\n0,A,0.3,\n1,B,1.25,x\n"
    rows = read_csv(table)
    assert rows[0] == {"configuration": 0, "system": "A", "usd": 0.3, "note": None}
    found = compare(rows, read_csv(table.replace("0.3,", "0.30000000000000004,")), path="table")
    assert found.within == [("table[0]{configuration=0, system=A}.usd", relative_difference(0.3, 0.1 + 0.2))]
