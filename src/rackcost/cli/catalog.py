"""``rackcost catalog``: the catalogue's entries and their sources, or one entry's figures
(:mod:`rackcost.scenario.catalog`)."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer
from rich.markup import escape

from rackcost.cli.common import (
    ForceOpt,
    FormatOpt,
    OutputFormat,
    OutputOpt,
    destination,
    emit,
    emit_table,
    error,
    table_console,
)
from rackcost.cli.layout import Field, print_records
from rackcost.files import csv_text
from rackcost.scenario.catalog import CatalogEntry, catalog, catalog_entry, entry_price_tiers, figure_rows

__all__ = ["COMMANDS", "catalog_command"]


def catalog_command(
    entry: Annotated[
        str | None, typer.Argument(help="An entry's key (e.g. b200): its figures, each with its source.")
    ] = None,
    fmt: FormatOpt = OutputFormat.table,
    output: OutputOpt = None,
    force: ForceOpt = False,
) -> None:
    """The catalogue of accelerators and systems: its entries and their sources, or one entry's figures.

    A scenario's system names an entry (`catalog: b200`) and the entry fills the hardware and memory figures the
    system leaves out; `rackcost new` builds a scenario from entries and benchmark curves (docs/catalog.md).
    """
    dest = destination(output, force)
    entries = catalog().entries
    if entry is not None:
        try:
            found = catalog_entry(entry)
        except KeyError as exc:
            error(str(exc.args[0]))
            raise typer.Exit(code=1) from None
        key = entry.lower()
        chosen = {key: found}
    else:
        chosen = dict(entries)
    if fmt is OutputFormat.json:
        data = {key: _entry_data(key, e) for key, e in chosen.items()}
        emit(json.dumps(data, indent=2, allow_nan=False) + "\n", dest)
        return
    if fmt is OutputFormat.csv:
        emit(csv_text([row for key, e in chosen.items() for row in figure_rows(key, e)]), dest)
        return
    out = table_console(dest)
    if entry is None:
        _print_entries(out, chosen)
    else:
        _print_entry(out, key, found)
    emit_table(out, dest)


def _entry_data(key: str, entry: CatalogEntry) -> dict[str, Any]:
    data = entry.model_dump(mode="json", exclude={"figures"})
    data["figures"] = figure_rows(key, entry)
    return data


def _publishers(entry: CatalogEntry) -> str:
    names = sorted({f.source.publisher for f in entry.figures.values()})
    names += [f"{t.publisher} (price tiers)" for t in entry_price_tiers(entry)[:1]]
    return ", ".join(names)


def _print_entries(out: Any, entries: dict[str, CatalogEntry]) -> None:
    fields = [
        Field("entry", "name"),
        Field("name", "text"),
        Field("figures"),
        Field("not given", "text"),
        Field("sources", "text"),
    ]
    rows = [
        [
            escape(key),
            escape(e.name),
            f"{len(e.figures)} + {len(entry_price_tiers(e))} price tiers",
            escape(", ".join(e.not_given) or "-"),
            escape(_publishers(e)),
        ]
        for key, e in entries.items()
    ]
    print_records(out, "Catalogue (rackcost catalog ENTRY: its figures and sources)", fields, rows)


def _print_entry(out: Any, key: str, entry: CatalogEntry) -> None:
    fields = [Field("figure", "name"), Field("value"), Field("provenance"), Field("source", "text")]
    rows = [
        [
            escape(r["path"]),
            escape(f"{r['value']:,}" if isinstance(r["value"], (int, float)) else str(r["value"])),
            escape(r["provenance"]),
            escape(
                f"{r['publisher']}, {r['document']}, {r['date']}"
                + (f"; {r['note']}" if r["note"] else "")
                + (f"; why: {r['why']}" if r["why"] else "")
            ),
        ]
        for r in figure_rows(key, entry)
    ]
    print_records(out, f"{escape(key)}: {escape(entry.name)} ({escape(entry.form)})", fields, rows)
    out.print(f"InferenceX hardware keys (curves that match): {escape(', '.join(entry.inferencex_hardware))}")
    for path, why in entry.not_given.items():
        out.print(f"not given: {escape(path)}: {escape(why)}", highlight=False)


COMMANDS = (catalog_command,)
"""The commands of this module, in the order ``rackcost --help`` lists them."""
