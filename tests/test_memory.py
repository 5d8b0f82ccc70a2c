"""KV-cache memory (issue 23, item 4): closed forms with their sources, properties of the limit, the schema's bad
inputs, and a replica too small for any SLO-feasible point left out while the other system is evaluated."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

import rackcost
from rackcost.cli import app
from rackcost.model.replica.memory import (
    KvMemory,
    free_bytes,
    kv_bytes_per_request,
    kv_bytes_per_token_gqa,
    kv_bytes_per_token_mla,
    max_concurrency,
)
from rackcost.model.replica.operating_point import choose_point, feasible
from rackcost.reporting.result_sections import unserved_sentence
from rackcost.scenario.feasibility import unserved_systems
from rackcost.scenario.loading import scenario_to_data
from rackcost.scenario.unpack import slo_inputs, system_inputs
from reference import TWO_SYSTEMS

GIB = 2**30
runner = CliRunner()
BASE_TEXT = TWO_SYSTEMS.read_text(encoding="utf-8")
BASE = rackcost.load_scenario(TWO_SYSTEMS)

# Llama 3.3 70B: 80 layers, 64 query heads and 8 KV heads over a model dimension of 8192 (head dimension 128);
# Meta, "The Llama 3 Herd of Models", arXiv 2407.21783, 2024-07, Table 3 (the 70B column); Llama 3.3 70B keeps
# the architecture of Llama 3.1 70B (Meta, Llama 3.3 model card, 2024-12-06). 70.6e9 parameters (the model card).
LLAMA_70B = {"parameters": 70.6e9, "layers": 80, "kv_heads": 8, "head_dim": 128}
# DeepSeek R1: the DeepSeek-V3 architecture, 61 layers, KV compression dimension d_c = 512 and decoupled RoPE key
# d_h^R = 64 per token and layer, 671e9 parameters; DeepSeek-AI, "DeepSeek-V3 Technical Report", arXiv
# 2412.19437, 2024-12-27, section 4.2 (hyper-parameters); DeepSeek-R1 is trained from DeepSeek-V3-Base (DeepSeek-AI,
# arXiv 2501.12948, 2025-01-22).
DEEPSEEK_R1 = {"parameters": 671e9, "layers": 61, "kv_lora_rank": 512, "qk_rope_head_dim": 64}


# --------------------------------------------------------------------------- closed forms


def test_llama_70b_keeps_320_kib_per_token_at_fp16() -> None:
    # 2 (K and V) x 80 layers x 8 KV heads x 128 x 2 bytes = 327,680 B = 320 KiB
    assert float(kv_bytes_per_token_gqa(80, 8, 128, 2)) == 2 * 80 * 8 * 128 * 2 == 327_680 == 320 * 1024
    assert float(kv_bytes_per_token_gqa(80, 8, 128, 1)) == 163_840  # an FP8 cache halves it


def test_deepseek_mla_keeps_one_latent_per_token_not_one_per_head() -> None:
    # 61 layers x (512 + 64) x 2 bytes = 70,272 B, about 70 kB; MLA caches one latent for all 128 heads
    assert float(kv_bytes_per_token_mla(61, 512, 64, 2)) == 61 * (512 + 64) * 2 == 70_272
    # the same 61 layers with 128 uncompressed heads (keys of 128 + 64, values of 128) would keep 71 times as much
    uncompressed = 61 * 128 * (128 + 64 + 128) * 2
    assert uncompressed == 4_997_120 and uncompressed / 70_272 == pytest.approx(71.11, abs=0.01)


def test_kimi_k2_5_has_the_deepseek_v3_cache() -> None:
    # Kimi K2.5's text model is Kimi K2's, a DeepSeek-V3 architecture: 61 layers, kv_lora_rank 512, RoPE 64
    # (Moonshot AI, "Kimi K2: Open Agentic Intelligence", arXiv 2507.20534, 2025-07; Kimi-K2.5 model card, 2026-01)
    assert float(kv_bytes_per_token_mla(61, 512, 64, 2)) == 70_272


def test_gpt_oss_120b_keeps_a_window_on_half_its_layers() -> None:
    # 36 layers alternating full and 128-token banded attention, 8 KV heads of 64 (OpenAI, "gpt-oss-120b &
    # gpt-oss-20b Model Card", 2025-08-05): 18 full layers keep 2 x 18 x 8 x 64 x 2 = 36,864 B per token, the 18
    # windowed ones as much for the last 128 tokens only
    full = float(kv_bytes_per_token_gqa(18, 8, 64, 2))
    assert full == 36_864
    assert float(kv_bytes_per_request(9216, full, full, 128)) == 9216 * 36_864 + 128 * 36_864
    assert float(kv_bytes_per_request(100, full, full, 128)) == 200 * 36_864  # shorter than the window: both keep all


def test_the_free_memory_and_the_limit_of_eight_h100s_serving_llama_70b() -> None:
    # 8 x 80 GiB (NVIDIA H100 SXM, 80 GB HBM3), 10% reserved, 70.6e9 BF16 weights: 444.5 GiB free; 2,048 tokens of
    # 320 KiB each are 640 MiB per request, so 711 requests (444.5 x 1024 / 640 = 711.2)
    free = float(free_bytes(80 * GIB, 8, 70.6e9 * 2, 0.1))
    assert free == pytest.approx(8 * 80 * GIB * 0.9 - 141.2e9, rel=1e-15)
    assert int(max_concurrency(free, 2048 * 327_680)) == 711
    assert int(max_concurrency(-1.0, 2048 * 327_680)) == 0  # weights that do not fit: nothing held


def test_the_scenario_unpacks_to_the_hand_computed_memory() -> None:
    data = _with_memory(LLAMA_70B, {"hbm_gib_per_accelerator": 80, "weight_bytes_per_parameter": 2})
    memory = system_inputs(*_first(data)).kv_memory
    assert memory is not None
    context = 1000 + 500  # two_systems.yaml: ISL 1000, OSL 500
    assert memory.context_tokens == context
    assert memory.kv_bytes_per_token == 327_680
    assert memory.kv_bytes_per_request == context * 327_680
    assert memory.hbm_bytes == 8 * 80 * GIB and memory.weights_bytes == 141.2e9
    assert memory.max_concurrency == int((8 * 80 * GIB * 0.9 - 141.2e9) // (context * 327_680))
    # MLA under plain tensor parallelism on 8 accelerators: every rank keeps the latent, 8 copies
    data = _with_memory(DEEPSEEK_R1, {"hbm_gib_per_accelerator": 180, "weights_gib": 360, "kv_cache_copies": 8})
    memory = system_inputs(*_first(data)).kv_memory
    assert memory is not None and memory.kv_bytes_per_request == 8 * context * 70_272
    # given directly, the bytes per token are used as they are; an FP8 cache of the shape halves them
    direct = _with_memory(None, {"hbm_gib_per_accelerator": 80, "weights_gib": 100, "kv_bytes_per_token": 1000})
    assert system_inputs(*_first(direct)).kv_memory.kv_bytes_per_request == context * 1000
    fp8 = _with_memory(LLAMA_70B, {"hbm_gib_per_accelerator": 80, "weights_gib": 70, "kv_bytes_per_element": 1})
    assert system_inputs(*_first(fp8)).kv_memory.kv_bytes_per_token == 163_840


# --------------------------------------------------------------------------- properties

MEMORY = st.builds(
    KvMemory,
    hbm_bytes=st.floats(1 * GIB, 2e4 * GIB),
    weights_bytes=st.floats(0.0, 1e3 * GIB),
    reserve_fraction=st.floats(0.0, 0.95),
    context_tokens=st.floats(2.0, 1e6),
    kv_bytes_per_token=st.floats(1.0, 1e6),
    kv_bytes_per_request=st.floats(1.0, 1e11),
)


@settings(max_examples=200, deadline=None)
@given(MEMORY, st.floats(0.0, 1e4 * GIB), st.floats(0.0, 1.0))
def test_more_free_memory_never_lowers_the_limit(memory: KvMemory, more_hbm: float, less_reserve: float) -> None:
    bigger = replace(
        memory, hbm_bytes=memory.hbm_bytes + more_hbm, reserve_fraction=memory.reserve_fraction * less_reserve
    )
    lighter = replace(memory, weights_bytes=memory.weights_bytes * less_reserve)
    assert bigger.max_concurrency >= memory.max_concurrency
    assert lighter.max_concurrency >= memory.max_concurrency


@settings(max_examples=200, deadline=None)
@given(
    st.floats(1.0, 1e6),
    st.floats(1.0, 1e6),
    st.floats(0.0, 1e6),
    st.floats(0.0, 1e5),
    st.integers(1, 72),
    st.floats(1e9, 1e13),
    st.floats(1.0, 10.0),
)
def test_a_longer_context_never_raises_the_limit(
    context: float, per_token: float, window_per_token: float, window: float, copies: int, free: float, longer: float
) -> None:
    short = kv_bytes_per_request(context, per_token, window_per_token, window, copies)
    long = kv_bytes_per_request(context * longer, per_token, window_per_token, window, copies)
    assert long >= short
    assert max_concurrency(free, long) <= max_concurrency(free, short)


@settings(max_examples=200, deadline=None)
@given(MEMORY, st.integers(0, 10**6))
def test_an_integer_concurrency_fits_exactly_up_to_the_limit(memory: KvMemory, c: int) -> None:
    assert bool(memory.fits(c)) == (c <= memory.max_concurrency)


INPUTS_A = system_inputs(BASE, BASE.systems[0])  # candidates 8 to 128, SLO-feasible up to about 96
SLO = slo_inputs(BASE)
SIZING_RPS = 20.0


def _limited(requests_held: float):
    """System A of two_systems.yaml with a memory that holds ``requests_held`` requests of 1,500 tokens."""
    per = 1500 * 327_680.0
    memory = KvMemory(requests_held * per + 100 * GIB, 100 * GIB, 0.0, 1500.0, 327_680.0, per)
    return replace(INPUTS_A, kv_memory=memory)


@settings(max_examples=60, deadline=None)
@given(st.floats(8.0, 200.0), st.floats(0.0, 100.0))
def test_a_limit_never_makes_an_infeasible_point_feasible(held: float, more: float) -> None:
    free = choose_point(INPUTS_A, SLO, SIZING_RPS, 1.0)
    tight, loose = (
        choose_point(_limited(held), SLO, SIZING_RPS, 1.0),
        choose_point(_limited(held + more), SLO, SIZING_RPS, 1.0),
    )
    cand = INPUTS_A.coarse
    meets = feasible(cand.ttft_ms, cand.tpot_ms, SLO.output_tokens, SLO.ttft_limit_ms, SLO.tpot_limit_ms)
    for chosen in (tight, loose):
        # the chosen point met the SLO without the limit and fits the memory
        assert meets[np.flatnonzero(cand.concurrency == chosen.concurrency)[0]]
        assert chosen.concurrency <= held + more
    assert tight.concurrency <= held
    # more memory never needs more replicas (the search is exact over a superset), and none ever beats no limit
    assert free.slo_replicas <= loose.slo_replicas <= tight.slo_replicas
    if held >= free.concurrency:  # a limit that does not bind changes nothing
        assert (tight.concurrency, tight.slo_replicas, tight.busy_w) == (
            free.concurrency,
            free.slo_replicas,
            free.busy_w,
        )


def test_a_limit_below_every_slo_feasible_point_leaves_no_candidate() -> None:
    with pytest.raises(ValueError, match="no operating point"):
        choose_point(_limited(7.5), SLO, SIZING_RPS, 1.0)


# --------------------------------------------------------------------------- bad inputs


def _with_memory(architecture: dict | None, memory: dict, index: int = 0) -> dict:
    data = scenario_to_data(BASE)
    if architecture is not None:
        data["workload"]["architecture"] = dict(architecture)
    data["systems"][index]["memory"] = dict(memory)
    return data


def _first(data: dict):
    scenario = rackcost.scenario_from_dict(data)
    return scenario, scenario.systems[0]


def _yaml(architecture: str | None, memory: str) -> str:
    """two_systems.yaml with ``workload.architecture`` (flow mapping) and system A's ``memory`` (flow mapping)."""
    text = BASE_TEXT
    if architecture is not None:
        text = text.replace(
            "  output_tokens_per_request: 500\n",
            f"  output_tokens_per_request: 500\n  architecture: {architecture}\n",
            1,
        )
    return text.replace("  - name: A\n", f"  - name: A\n    memory: {memory}\n", 1)


LLAMA_YAML = "{parameters: 70.6e9, layers: 80, kv_heads: 8, head_dim: 128}"
BAD = {
    "half a GQA shape": (
        "{layers: 80, kv_heads: 8}",
        "{hbm_gib_per_accelerator: 80, weights_gib: 131.5}",
        "workload.architecture.head_dim",
        "give head_dim too",
    ),
    "both shapes": (
        "{layers: 61, kv_heads: 8, head_dim: 128, kv_lora_rank: 512, qk_rope_head_dim: 64}",
        "{hbm_gib_per_accelerator: 80, weights_gib: 131.5}",
        "workload.architecture.kv_lora_rank",
        "not both",
    ),
    "a shape without layers": (
        "{kv_heads: 8, head_dim: 128}",
        "{hbm_gib_per_accelerator: 80, weights_gib: 131.5}",
        "workload.architecture.layers",
        "give the layers",
    ),
    "no KV size": (
        None,
        "{hbm_gib_per_accelerator: 80, weights_gib: 131.5}",
        "systems[0].memory",
        "the KV bytes per token are missing: give kv_bytes_per_token, or workload.architecture",
    ),
    "no weights": (LLAMA_YAML, "{hbm_gib_per_accelerator: 80}", "systems[0].memory", "the weights are missing"),
    "bytes per parameter without parameters": (
        "{layers: 80, kv_heads: 8, head_dim: 128}",
        "{hbm_gib_per_accelerator: 80, weight_bytes_per_parameter: 2}",
        "systems[0].memory.weight_bytes_per_parameter",
        "needs workload.architecture.parameters",
    ),
    "both weights": (
        LLAMA_YAML,
        "{hbm_gib_per_accelerator: 80, weights_gib: 131.5, weight_bytes_per_parameter: 2}",
        "systems[0].memory.weight_bytes_per_parameter",
        "not both",
    ),
    "precision twice": (
        None,
        "{hbm_gib_per_accelerator: 80, weights_gib: 131.5, kv_bytes_per_token: 1000, kv_bytes_per_element: 1}",
        "systems[0].memory.kv_bytes_per_element",
        "give one of the two",
    ),
    "negative HBM": (
        LLAMA_YAML,
        "{hbm_gib_per_accelerator: -80, weights_gib: 131.5}",
        "systems[0].memory.hbm_gib_per_accelerator",
        "must be >= 0.001, got -80",
    ),
    "unknown key": (
        LLAMA_YAML,
        "{hbm_gib_per_accelerator: 80, weights_gib: 131.5, hbm_gb: 80}",
        "systems[0].memory.hbm_gb",
        "",
    ),
    "weights that do not fit": (
        LLAMA_YAML,
        "{hbm_gib_per_accelerator: 16, weight_bytes_per_parameter: 2}",
        "systems[0].memory",
        "the weights (131.5 GiB) do not fit the replica's memory: HBM 128 GiB",
    ),
    "no room for one request": (
        LLAMA_YAML,
        "{hbm_gib_per_accelerator: 18.3, weight_bytes_per_parameter: 2}",
        "systems[0].memory",
        "KV cache: one request of 1,500 tokens needs 0.4578 GiB per replica, 0.2573 GiB free",
    ),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_memory_inputs_are_errors_at_their_yaml_path(tmp_path: Path, name: str) -> None:
    architecture, memory, path, says = BAD[name]
    bad = tmp_path / "bad.yaml"
    bad.write_text(_yaml(architecture, memory), encoding="utf-8")
    with pytest.raises(rackcost.ScenarioError) as info:
        rackcost.load_scenario(bad)
    problems = {p.path: p for p in info.value.problems}
    assert path in problems, [str(p) for p in info.value.problems]
    problem = problems[path]
    assert says in problem.message and problem.file.endswith("bad.yaml") and problem.line is not None
    result = runner.invoke(app, ["validate", str(bad)])
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output and path in result.stderr and "bad.yaml:" in result.stderr


def test_an_api_system_has_no_memory() -> None:
    data = scenario_to_data(rackcost.load_scenario("deepseek-r1-own-vs-rent-vs-api.yaml"))
    api = next(i for i, s in enumerate(data["systems"]) if "api" in s)
    data["systems"][api]["memory"] = {"hbm_gib_per_accelerator": 80, "kv_bytes_per_token": 1000, "weights_gib": 1}
    with pytest.raises(rackcost.ScenarioError, match="an API system has prices, not memory"):
        rackcost.scenario_from_dict(data)


# --------------------------------------------------------------------------- end to end


def test_without_memory_blocks_nothing_changes_and_a_memory_that_holds_every_point_neither() -> None:
    plain = rackcost.evaluate(BASE)
    roomy = rackcost.evaluate(
        rackcost.scenario_from_dict(
            _with_memory(LLAMA_70B, {"hbm_gib_per_accelerator": 288, "weight_bytes_per_parameter": 2})
        )
    )
    assert roomy.records == plain.records and roomy.warnings == plain.warnings and roomy.unserved == []


def test_a_memory_below_the_chosen_point_moves_it_and_says_so() -> None:
    # 8 x 19 GiB less 10% and 131.5 GiB of BF16 weights leave 5.297 GiB: 11 requests of 1,500 tokens x 320 KiB
    # (0.4578 GiB each), below A's chosen 96 without a limit
    plain = rackcost.evaluate(BASE)
    capped = rackcost.evaluate(
        rackcost.scenario_from_dict(
            _with_memory(LLAMA_70B, {"hbm_gib_per_accelerator": 19, "weight_bytes_per_parameter": 2})
        )
    )
    a = {r["system"]: r for r in capped.records["systems"]}["A"]
    a_plain = {r["system"]: r for r in plain.records["systems"]}["A"]
    assert a["concurrency"] == 11 < a_plain["concurrency"]
    assert a["provisioned_replicas"] > a_plain["provisioned_replicas"]
    (said,) = [w for w in capped.warnings if "KV cache" in w]
    assert said.startswith("A: its KV cache holds at most 11 requests in flight per replica")
    assert "systems[0].memory" in said and "concurrency 12 to" in said


def test_a_tight_memory_leaves_one_system_unserved_and_the_other_evaluated(tmp_path: Path) -> None:
    # 8 x 18.45 GiB less 10% and 131.5 GiB of weights leave 1.337 GiB: 2 requests of 1,500 tokens, below A's lowest
    # SLO-feasible concurrency (8). B has no memory block: it is evaluated as before.
    path = tmp_path / "tight.yaml"
    path.write_text(
        _yaml(LLAMA_YAML, "{hbm_gib_per_accelerator: 18.45, weight_bytes_per_parameter: 2}"), encoding="utf-8"
    )
    scenario = rackcost.load_scenario(path)
    (unserved,) = unserved_systems(scenario)
    assert (unserved.system, unserved.path, unserved.limit) == ("A", "systems[0].memory", "kv_cache")
    assert unserved.reason.startswith("KV cache: needs 3.662 GiB per replica at concurrency 8, 1.337 GiB free")
    assert "holds at most 2 requests in flight" in unserved.reason

    result = rackcost.evaluate(scenario)
    assert result.unserved == [unserved.to_dict()]
    assert {r["system"] for r in result.records["systems"]} == {"B"}
    assert result.warnings[0].startswith("A is not evaluated: KV cache: needs 3.662 GiB")
    alone = scenario_to_data(BASE)
    alone["systems"] = [s for s in alone["systems"] if s["name"] == "B"]
    alone.pop("figures", None)
    assert result.records["systems"] == rackcost.evaluate(rackcost.scenario_from_dict(alone)).records["systems"]
    assert unserved_sentence(unserved.to_dict()).startswith(
        "it cannot hold the KV cache of any operating point that meets the SLO. KV cache: needs"
    )

    table = runner.invoke(app, ["evaluate", str(path)])
    assert table.exit_code == 0 and "Traceback" not in table.output
    flat = " ".join(table.stdout.split())
    assert "A: cannot hold the KV cache of any operating point that meets the SLO (systems[0].memory)" in flat
    data = json.loads(runner.invoke(app, ["evaluate", str(path), "--format", "json"]).stdout)
    assert data["unserved"] == [unserved.to_dict()] and {r["system"] for r in data["systems"]} == {"B"}
    validated = runner.invoke(app, ["validate", str(path)])
    assert validated.exit_code == 0 and "note: systems[0].memory: KV cache: needs" in " ".join(validated.stdout.split())


def test_the_curve_explorer_marks_points_whose_cache_does_not_fit() -> None:
    from rackcost.analysis.explore import operating_curves

    scenario = rackcost.scenario_from_dict(
        _with_memory(LLAMA_70B, {"hbm_gib_per_accelerator": 19, "weight_bytes_per_parameter": 2})
    )
    held = system_inputs(scenario, scenario.systems[0]).kv_memory.requests_held  # 5.297 / 0.4578 = 11.57
    assert 11 < held < 12
    rows = [r for r in operating_curves(scenario, points_per_curve=20) if r["system"] == "A" and r["kind"] != "chosen"]
    assert {r["fits_kv_cache"] for r in rows} == {True, False}
    assert all(r["fits_kv_cache"] == (r["concurrency"] <= held) for r in rows)
