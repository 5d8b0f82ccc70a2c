"""Several models on one fleet in words and tables (:func:`rackcost.evaluate_models`), as ``rackcost models`` and
the dashboard's Several models page show them: the title, each model's cost per accepted request with the shared
racks' cost attributed, and each system type's fleet, shared or apart."""

from __future__ import annotations

from typing import Any

from rackcost import display
from rackcost.evaluation.columns import column
from rackcost.evaluation.models import ModelsResult
from rackcost.reporting.blocks import Table

__all__ = ["fleet_rows", "fleet_table", "model_rows", "model_table", "models_title"]

_PER_REQUEST = column("systems", "blended_usd_per_accepted_request")
"""How a cost per accepted request is shown everywhere: dollars per 1,000 accepted requests."""


def model_rows(result: ModelsResult) -> list[dict[str, Any]]:
    """Each model's row of :attr:`ModelsResult.models` as plain data (the JSON and CSV faces)."""
    return [{str(k): v for k, v in r.items()} for r in result.models.to_dict("records")]


def fleet_rows(result: ModelsResult) -> list[dict[str, Any]]:
    """Each system type's row of :attr:`ModelsResult.fleets` as plain data."""
    return [{str(k): v for k, v in r.items()} for r in result.fleets.to_dict("records")]


def models_title(name: str, placement: str, rule: str) -> str:
    """The title of the models' table: the document, where the racks are and how their cost is attributed."""
    return f"{name}: each model's cost per accepted request ({placement} racks, {rule}-based attribution)"


def model_table(rows: list[dict[str, Any]]) -> Table:
    """Each model: its system, fleet, accepted share (and the simulator's, where the rows have it), accepted
    requests, its own, shared and attributed cost a day, its cost per 1,000 accepted requests attributed and alone,
    and its fleet's carbon alone."""
    simulated = bool(rows) and "simulated_accepted_fraction" in rows[0]
    columns = [
        ("model", "model"),
        ("system", "system"),
        ("provisioned_replicas", "replicas"),
        ("nodes", "nodes"),
        ("accepted_fraction", "accepted share"),
        *([("simulated_accepted_fraction", "accepted share (simulated)")] if simulated else []),
        ("accepted_requests_per_day", "accepted [requests/day]"),
        ("direct_usd_per_day", "own [USD/day]"),
        ("shared_usd_per_day", "shared [USD/day]"),
        ("usd_per_day", "total [USD/day]"),
        ("blended_usd_per_accepted_request", f"cost [{display.PER_1K_ACCEPTED}]"),
        ("blended_usd_per_accepted_request_alone", f"alone [{display.PER_1K_ACCEPTED}]"),
        ("blended_carbon_g_per_accepted_request_alone", "carbon, its fleet alone [g CO2e/request]"),
    ]
    cells = [
        [
            str(r["model"]),
            str(r["system"]),
            f"{r['provisioned_replicas']:,}",
            f"{r['nodes']:,}",
            f"{r['accepted_fraction']:.2%}",
            *([f"{r['simulated_accepted_fraction']:.2%}"] if simulated else []),
            display.num(r["accepted_requests_per_day"]),
            display.money(r["direct_usd_per_day"]),
            display.money(r["shared_usd_per_day"]),
            display.money(r["usd_per_day"]),
            _PER_REQUEST.format(r["blended_usd_per_accepted_request"]),
            _PER_REQUEST.format(r["blended_usd_per_accepted_request_alone"]),
            display.num(r["blended_carbon_g_per_accepted_request_alone"]),
        ]
        for r in rows
    ]
    return Table("models", columns, cells)


def fleet_table(rows: list[dict[str, Any]]) -> Table:
    """Each system type: the models on it, its nodes, racks shared and apart, a rack's day and the fleet's day
    (its own, shared and total cost, and the models' fleets apart)."""
    columns = [
        ("system", "system"),
        ("models", "models"),
        ("nodes", "nodes"),
        ("racks", "racks"),
        ("racks_apart", "racks apart"),
        ("rack_usd_per_day", "rack [USD/day]"),
        ("direct_usd_per_day", "own [USD/day]"),
        ("shared_usd_per_day", "shared [USD/day]"),
        ("usd_per_day", "fleet [USD/day]"),
        ("usd_per_day_apart", "apart [USD/day]"),
    ]
    cells = [
        [
            str(r["system"]),
            str(r["models"]),
            f"{r['nodes']:,}",
            f"{r['racks']:,}",
            f"{r['racks_apart']:,}",
            display.money(r["rack_usd_per_day"]),
            display.money(r["direct_usd_per_day"]),
            display.money(r["shared_usd_per_day"]),
            display.money(r["usd_per_day"]),
            display.money(r["usd_per_day_apart"]),
        ]
        for r in rows
    ]
    return Table("models-fleets", columns, cells)
