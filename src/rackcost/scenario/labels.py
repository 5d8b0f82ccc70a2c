"""Words for the fields and YAML paths of a scenario: what the dashboard's forms, the CLI's tornado, sweep and
break-even tables and their charts call an input, with its unit.

One function per question, shared by every front end: :func:`label_and_unit` and :func:`label` for a field name,
:func:`input_label` for an input's YAML path (the system or demand point it belongs to named).

Examples
--------
>>> label("accelerator_idle_w"), label("electricity_usd_per_kwh")
('accelerator idle [W]', 'electricity price [USD/kWh]')
>>> input_label("systems[1].costs.capex_usd_per_accelerator", ["GB300", "Jalapeño"], ["peak"])
'Jalapeño: capex per accelerator [USD]'
"""

from __future__ import annotations

from collections.abc import Sequence

from rackcost.scenario.yaml_paths import parse_path

__all__ = ["input_label", "label", "label_and_unit"]

# unit suffixes of field names (longest first) -> (text left in the label, unit shown in brackets)
_SUFFIXES = [
    ("_usd_per_kw_month", " per provisioned kW", "USD/kW-month"),
    ("_usd_per_accelerator_year", " per accelerator", "USD/year"),
    ("_usd_per_rack_year", " per rack", "USD/year"),
    ("_usd_per_accelerator", " per accelerator", "USD"),
    ("_usd_per_node", " per node", "USD"),
    ("_usd_per_rack", " per rack", "USD"),
    ("_usd_per_kwh", "", "USD/kWh"),
    ("_usd_per_kw", " per provisioned kW", "USD/kW"),
    ("_fraction_per_year", "", "share of capex per year"),
    ("_capex_fraction", " capex", "share 0-1"),
    ("_fraction", "", "share 0-1"),
    ("_kw_per_accelerator", "", "kW per accelerator"),
    ("_w_per_node", " per node", "W"),
    ("_tokens_per_s_per_kw", "", "tokens/s per kW"),
    ("tokens_per_s_per_kw", "tokens per s per kW", "tokens/s/kW"),
    ("_tokens_per_request", " tokens per request", "tokens"),
    ("_gib_per_accelerator", " per accelerator", "GiB"),
    ("_gib", "", "GiB"),
    ("_bytes_per_parameter", " per parameter", "bytes"),
    ("_bytes_per_element", " per element", "bytes"),
    ("_bytes_per_token", " per token", "bytes"),
    ("_tokens", " tokens", "tokens"),
    ("_limit_kw", " limit", "kW"),
    ("_limit_ms", " limit", "ms"),
    ("_years", "", "years"),
    ("_quarters", "", "quarters"),
    ("_minutes", "", "min"),
    ("s_per_hour", "s", "1/h"),
    ("_rps", "", "requests/s"),
    ("_ms", "", "ms"),
    ("_kw", "", "kW"),
    ("_w", "", "W"),
]
_UNITS = {
    "usd_per_million_input_tokens": "USD/M tokens",
    "usd_per_million_output_tokens": "USD/M tokens",
    "usd_per_million_cached_input_tokens": "USD/M tokens",
    "usd_per_accelerator_hour": "USD/accelerator-h",
    "rate_limit_rps": "requests/s",
    "pue": "-",
    "power_utilization_exponent": "-",
    "spare_replicas": "replicas",
    "replicas": "replicas",
    "max_racks": "racks",
    "accelerators_per_replica": "count",
    "accelerators_per_node": "count",
    "nodes_per_rack": "count",
    "concurrency": "requests in flight",
    "hours_per_day": "h/day",
    "carbon_g_per_kwh": "g CO2e/kWh",
    "carbon_usd_per_tonne": "USD/t CO2e",
}
_LABELS = {
    "usd_per_million_input_tokens": "input token price",
    "usd_per_million_output_tokens": "output token price",
    "usd_per_million_cached_input_tokens": "cached input token price",
    "usd_per_accelerator_hour": "rental price",
    "pue": "PUE",
    "electricity_usd_per_kwh": "electricity price",
    "carbon_g_per_kwh": "grid carbon intensity",
    "carbon_usd_per_tonne": "carbon price",
    "ttft_limit_ms": "TTFT limit (queueing included)",
    "tpot_limit_ms": "TPOT limit",
    "e2e_limit_ms": "end-to-end limit",
    "input_tokens_per_request": "input tokens per request (ISL)",
    "output_tokens_per_request": "output tokens per request (OSL)",
    "output_tokens_cv_fraction": "output length coefficient of variation",
    "provenance_class": "provenance class",
    "class": "provenance class",
    "tpot_ms": "TPOT",
    "ttft_ms": "TTFT",
    "hbm_gib_per_accelerator": "HBM per accelerator",
    "kv_bytes_per_token": "KV cache per token",
    "kv_bytes_per_element": "KV cache element",
    "kv_cache_copies": "KV cache copies",
    "kv_heads": "KV heads",
    "kv_lora_rank": "MLA latent (kv_lora_rank)",
    "qk_rope_head_dim": "MLA RoPE key (qk_rope_head_dim)",
    "reserve_fraction": "memory reserve",
}


def label_and_unit(name: str) -> tuple[str, str | None]:
    """Readable label and unit of a scenario field name, e.g. ``accelerator_idle_w`` -> ('accelerator idle', 'W')."""
    unit = _UNITS.get(name)
    text = _LABELS.get(name)
    if text is None:
        text = name
        for suffix, rest, suffix_unit in _SUFFIXES:
            if name.endswith(suffix):
                text = name[: -len(suffix)] + rest
                unit = unit or suffix_unit
                break
        text = text.replace("_", " ").strip()
    elif unit is None:
        for suffix, _rest, suffix_unit in _SUFFIXES:
            if name.endswith(suffix):
                unit = suffix_unit
                break
    return text, unit


def label(name: str) -> str:
    """Label with the unit in brackets: ``accelerator idle [W]``."""
    text, unit = label_and_unit(name)
    return f"{text} [{unit}]" if unit and unit != "-" else text


def input_label(path: str, systems: Sequence[str] = (), demand: Sequence[str] = ()) -> str:
    """A readable name of an input's YAML path, its system or demand point named: ``Jalapeño: capex per
    accelerator [USD]``.

    Parameters
    ----------
    path
        YAML path of the input (``facility.pue``, ``systems[1].costs.capex_usd_per_accelerator``).
    systems
        Names of the scenario's systems, in order (``systems[i]`` is named by the i-th).
    demand
        Names of its demand points, in order.

    Examples
    --------
    >>> input_label("demand[0].arrival_rps", [], ["quiet"]), input_label("facility.pue")
    ('quiet demand: arrival [requests/s]', 'PUE')
    >>> input_label("systems[0].points[2].output_tokens_per_s", ["A"])
    'A: operating point 3, output tokens per s'
    >>> input_label("uncertainty.throughput_derate.vendor")
    'throughput derate of vendor figures [x]'
    """
    parts = parse_path(path)
    if not parts:
        return path
    last = str(parts[-1])
    if parts[0] == "systems" and len(parts) > 2 and isinstance(parts[1], int) and parts[1] < len(systems):
        who = systems[parts[1]]
        if "points" in parts and isinstance(point := parts[parts.index("points") + 1], int):
            return f"{who}: operating point {point + 1}, {label(last)}"
        where = " (facility override)" if "facility" in parts else ""
        return f"{who}: {label(last)}{where}"
    if parts[0] == "demand" and len(parts) > 2 and isinstance(parts[1], int) and parts[1] < len(demand):
        return f"{demand[parts[1]]} demand: {label(last)}"
    if parts[0] == "uncertainty":
        return f"throughput derate of {last} figures [x]"
    return label(last)
