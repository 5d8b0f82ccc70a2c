"""Which InferenceX schema a parsed JSON file is (stages A to F), told by content, and what an unknown file holds.

Used by :mod:`rackcost.importers.inferencex`; docs/importers.md describes the stages.
"""

from __future__ import annotations

import re
from typing import Any

from rackcost.importers.mapping import FIELD_MAP, PCT

__all__ = ["EXPECTED_SCHEMAS", "describe_found", "detect_stage", "is_stage_b", "is_stage_f_row"]

# How the stages are told apart by content: source names a stage's records have (from the map) and how their
# latency fields end (stage A's names say ms; stage B's are the map's {pct} names without the percentile).
_STAGE_A_MARKERS = tuple(FIELD_MAP[n].stage_a for n in ("concurrency", "throughput_tokens_per_s", "requests_completed"))
_STAGE_A_LATENCY_SUFFIX = "_ms"
_STAGE_B_MARKERS = tuple(FIELD_MAP[n].stage_b for n in ("throughput_tokens_per_s", "concurrency", "hardware"))
_STAGE_B_LATENCY_SUFFIXES = tuple(
    FIELD_MAP[n].stage_b.removeprefix(PCT) for n in ("ttft_ms", "interactivity_tokens_per_s", "tpot_ms")
)


def _is_stage_a(d: object) -> bool:
    return (
        isinstance(d, dict)
        and any(k in d for k in _STAGE_A_MARKERS)
        and any(isinstance(k, str) and k.endswith(_STAGE_A_LATENCY_SUFFIX) for k in d)
    )


def is_stage_b(d: object) -> bool:
    return (
        isinstance(d, dict)
        and any(k in d for k in _STAGE_B_MARKERS)
        and any(isinstance(k, str) and k.endswith(_STAGE_B_LATENCY_SUFFIXES) for k in d)
    )


_F_STATISTICS = ("p95_", "p90_", "p75_")
"""Prefixes of the statistics a stage-F (agentic) aggregate gives instead of ``median_``/``p99_``."""
_B_STATISTICS = ("p99_", "median_")


def is_stage_f_row(d: object) -> bool:
    """A stage-B-like row with mean/p75/p90/p95 statistics only (an agentic aggregate)."""
    if not is_stage_b(d):
        return False
    assert isinstance(d, dict)
    names = [k for k in d if isinstance(k, str)]
    return any(k.startswith(_F_STATISTICS) for k in names) and not any(k.startswith(_B_STATISTICS) for k in names)


def _is_stage_d(d: object) -> bool:
    """One point with nested ``metrics`` (the deployment's ``*_throughput``) and a ``gpu`` or config block."""
    if not isinstance(d, dict):
        return False
    metrics = next((v for k, v in d.items() if k == "metrics"), None)  # the block, not a field the map names
    return (
        isinstance(metrics, dict)
        and any(isinstance(k, str) and k.endswith("_throughput") for k in metrics)
        and ("conc" in d or "hw" in d)
    )


def _is_stage_e(d: object) -> bool:
    """A raw client file whose latencies are in seconds without a unit suffix (``p99_ttft``, ``median_tpot``)."""
    return (
        isinstance(d, dict)
        and FIELD_MAP["concurrency"].stage_a in d
        and "tput_per_gpu" not in d
        and any(isinstance(k, str) and k.endswith(("_ttft", "_tpot")) for k in d)
    )


def detect_stage(obj: object) -> str | None:
    """Which InferenceX schema parsed JSON is: ``"A"`` to ``"F"``, or ``None`` for another schema.

    Decided by content: stage A has ``max_concurrency``/``total_token_throughput`` and ``*_ms`` latencies;
    stage B has ``hw``/``conc``/``tput_per_gpu`` and latencies in seconds (``*_ttft``, ``*_intvty``);
    stage C is an array in which at least one row is stage B; stage F an array (or object) of such rows with
    mean/p75/p90/p95 statistics only; stage D nests the deployment's metrics under ``metrics`` (and measured power
    under ``gpu``); stage E is a raw client file with ``max_concurrency`` and latencies in s without ``_ms``.
    """
    if isinstance(obj, list):
        if any(is_stage_f_row(x) for x in obj):
            return "F"
        return "C" if any(is_stage_b(x) for x in obj) else None
    if _is_stage_a(obj):
        return "A"
    if _is_stage_d(obj):
        return "D"
    if is_stage_f_row(obj):
        return "F"
    if is_stage_b(obj):
        return "B"
    if _is_stage_e(obj):
        return "E"
    return None


EXPECTED_SCHEMAS = (
    "an InferenceX result: stage A (max_concurrency, total_token_throughput, *_ttft_ms), B or an array C of them "
    "(hw, conc, tput_per_gpu, *_ttft in s), D (metrics: and gpu: blocks), E (max_concurrency, *_ttft in s) or an "
    "array F of agentic aggregates (p95_ttft, tput_per_gpu)"
)
"""What the reader expects, for the message that refuses a file of another schema."""

SHOWN_KEYS = 5
"""Top-level keys an unknown file's message names, at most (never their values) [-]."""

SHOWN_KEY_CHARS = 24
"""A key an unknown file's message names is cut to this many characters [-]."""


def _key_text(key: object) -> str:
    """A key for a message: word characters only (others as ``?``), cut to :data:`SHOWN_KEY_CHARS`."""
    text = re.sub(r"[^\w.\-:]", "?", str(key), flags=re.ASCII)
    return text if len(text) <= SHOWN_KEY_CHARS else text[: SHOWN_KEY_CHARS - 3] + "..."


def _keys_text(d: dict[Any, Any]) -> str:
    keys = list(d)
    if not keys:
        return "no keys"
    more = f" and {len(keys) - SHOWN_KEYS:,} more" if len(keys) > SHOWN_KEYS else ""
    return "keys " + ", ".join(_key_text(k) for k in keys[:SHOWN_KEYS]) + more


def describe_found(obj: object) -> str:
    """What a file of an unknown schema holds, for its message: its top-level keys (a few, never values).

    Examples
    --------
    >>> describe_found({"hello": "world", "n": 1})
    'a JSON object with keys hello, n'
    """
    if isinstance(obj, dict):
        return f"a JSON object with {_keys_text(obj)}"
    if isinstance(obj, list):
        first = next((x for x in obj if isinstance(x, dict)), None)
        rows = f"a JSON array of {len(obj):,} item(s)"
        return rows + (f", the first object with {_keys_text(first)}" if first is not None else " and no object")
    return f"a JSON {type(obj).__name__} value"
