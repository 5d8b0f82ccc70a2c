"""Importers: InferenceX result files (stages A, B, C) and CSV tables become curves with provenance (issue 4).

The tests that always run read the invented fixtures of tests/data/inferencex_fixtures/ (InferenceX's formats, our
own numbers; its README says what each is) and check the importer against closed forms computed here. Tests marked
``data`` read the real InferenceX files beside the repository (conftest.py's ``real_inferencex``), and are skipped
where they are absent.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest
import yaml

import rackcost
from inferencex_files import (
    AGG_8,
    AGG_32,
    ARRAY,
    DENSE,
    FIXTURE_FILES,
    FIXTURES,
    MOE,
    RAW_8,
    RAW_32,
    REAL_AGG_4,
    REAL_AGG_32,
    REAL_FILES,
    REAL_GAUDI,
    REAL_RAW_4,
    REAL_RAW_32,
)
from rackcost.importers import (
    FIELD_MAP,
    PERCENTILES,
    curve_to_yaml,
    curves_to_yaml,
    detect_stage,
    differing_keys,
    inferencex,
    read_csv_table,
    read_csv_table_path,
    read_inferencex,
    read_inferencex_paths,
)
from rackcost.importers.csv_table import CSV_COLUMNS
from rackcost.importers.curves import names_from_file_name
from rackcost.importers.mapping import (
    NOT_IN_SOURCE,
    SOURCES,
    SkipError,
    field_map_markdown,
    number,
    rename_fields,
    seconds_to_ms,
    source_names,
    tpot_ms_from_interactivity,
)
from reference import TWO_SYSTEMS

BAD = Path(__file__).resolve().parent / "data" / "importers"
DOCS = Path(__file__).resolve().parents[1] / "docs" / "importers.md"
GPUS = 8  # of the twins' deployment (tp8 in their names)
GAUDI_SCENARIO = "llama-3.3-70b-gaudi25-tp-precision"

# A stage-B aggregate is computed from its stage-A raw output by exact arithmetic: throughput divided by the GPU
# count, milliseconds divided by 1000, interactivity = 1000 / TPOT ms. Only floating-point rounding (a few ulp,
# about 1e-15) separates the two, so 1e-12 relative is strict enough to catch any unit or percentile mix-up
# (those are factors of 1000, 8 or at least a few percent) and loose enough for every platform's rounding.
SAME_RUN_RTOL = 1e-12
# One float operation (x 1000, / 1000, x GPUs) rounds by at most half an ulp: 1e-15 relative allows that only.
ONE_OP_RTOL = 1e-15


def _json(path: Path) -> object:
    return json.loads(path.read_text(encoding="utf-8"))


def _only_point(result):
    (curve,) = result.curves
    (point,) = curve.points
    return curve, point


def _rows_of(curve, rows: list[dict]) -> list[dict]:
    """The stage-C rows of a curve, matched by hardware, TP and precision."""
    k = curve.key
    return [r for r in rows if (r["hw"], r["tp"], r["precision"]) == (k.hardware, k.tensor_parallel, k.precision)]


def _id(name: str) -> str:
    return name[:40]


# ---- the fixtures themselves: invented, but consistent, so the tests below can compute what the importer gives ----


def test_the_fixtures_are_there_and_described():
    readme = (FIXTURES / "README.md").read_text(encoding="utf-8")
    assert [p.name for p in FIXTURE_FILES] == sorted([RAW_8.name, AGG_8.name, RAW_32.name, AGG_32.name, ARRAY.name])
    for path in FIXTURE_FILES:
        assert f"`{path.name}`" in readme, f"{path.name} is not described in {FIXTURES / 'README.md'}"
    assert "invented" in readme


@pytest.mark.parametrize(("raw", "agg"), [(RAW_8, AGG_8), (RAW_32, AGG_32)], ids=["1k1k-conc8", "8k1k-conc32"])
def test_each_stage_a_fixture_and_its_aggregate_describe_one_run(raw: Path, agg: Path):
    a, b = _json(raw), _json(agg)
    seconds = a["duration"]
    assert a["request_throughput"] == pytest.approx(a["completed"] / seconds, rel=ONE_OP_RTOL)
    assert a["total_token_throughput"] == pytest.approx(
        (a["total_input_tokens"] + a["total_output_tokens"]) / seconds, rel=ONE_OP_RTOL
    )
    assert a["output_throughput"] == pytest.approx(a["total_output_tokens"] / seconds, rel=ONE_OP_RTOL)
    assert a["completed"] == 10 * a["max_concurrency"]  # InferenceX runs 10 x concurrency prompts
    # closed loop: Little's law, mean request time = concurrency / request rate (a few float operations: 1e-12)
    assert a["mean_e2el_ms"] / 1000 == pytest.approx(a["max_concurrency"] / a["request_throughput"], rel=1e-12)
    assert (b["conc"], b["tp"], b["model"]) == (a["max_concurrency"], GPUS, a["model_id"])
    assert b["tput_per_gpu"] == pytest.approx(a["total_token_throughput"] / GPUS, rel=ONE_OP_RTOL)
    assert b["output_tput_per_gpu"] == pytest.approx(a["output_throughput"] / GPUS, rel=ONE_OP_RTOL)
    for pct in ("mean", "median", "p99"):
        assert b[f"{pct}_ttft"] == pytest.approx(a[f"{pct}_ttft_ms"] / 1000, rel=ONE_OP_RTOL)
        assert b[f"{pct}_tpot"] == pytest.approx(a[f"{pct}_tpot_ms"] / 1000, rel=ONE_OP_RTOL)
        assert b[f"{pct}_intvty"] == pytest.approx(1000 / a[f"{pct}_tpot_ms"], rel=ONE_OP_RTOL)


def test_the_stage_c_fixture_is_four_curves_of_three_points_and_an_h100_row():
    rows = _json(ARRAY)
    mi300x = [r for r in rows if r["hw"] == "mi300x"]
    assert sorted((r["tp"], r["precision"], r["conc"]) for r in mi300x) == sorted(
        (tp, p, c) for tp in (2, 4) for p in ("bf16", "fp8") for c in (4, 16, 64)
    )
    assert [r["conc"] for r in mi300x] != sorted(r["conc"] for r in mi300x)  # the reader must sort them
    (h100,) = [r for r in rows if r["hw"] == "h100"]
    assert not {"isl", "osl", "source_file"} & set(h100) and 0 < rows.index(h100) < len(rows) - 1
    for r in rows:
        assert "isl" not in r and "osl" not in r
        for pct in ("mean", "median", "p99"):
            assert r[f"{pct}_intvty"] == pytest.approx(1 / r[f"{pct}_tpot"], rel=ONE_OP_RTOL)
        # throughput from Little's law on the invented latencies at mean lengths 0.9 x 1k/1k; throughputs and
        # mean_e2el are written to four decimals, which moves them by at most 5e-5 in > 100 tokens/s and > 8 s
        # (under 1e-5 relative) and the output half by at most 5e-5 + 2.5e-5
        rate = r["conc"] / r["mean_e2el"]
        assert r["tput_per_gpu"] == pytest.approx(rate * 2 * 0.9 * 1024 / r["tp"], rel=1e-5)
        assert r["output_tput_per_gpu"] == pytest.approx(r["tput_per_gpu"] / 2, abs=1e-4)


# ---- InferenceX: stages, numbers, provenance ----


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=[_id(p.name) for p in FIXTURE_FILES])
def test_every_fixture_imports_on_its_own(path: Path):
    result = read_inferencex_paths([path])
    assert result.curves, [str(s) for s in result.skipped]
    for curve in result.curves:
        rackcost.scenario.schema.Performance.model_validate(curve.performance)
        rackcost.scenario.schema.Provenance.model_validate(curve.provenance)


@pytest.mark.data
@pytest.mark.parametrize("name", REAL_FILES, ids=[_id(n) for n in REAL_FILES])
def test_every_real_inferencex_file_imports_on_its_own(real_inferencex: Path, name: str):
    result = read_inferencex_paths([real_inferencex / name])
    assert result.curves, [str(s) for s in result.skipped]
    for curve in result.curves:
        rackcost.scenario.schema.Performance.model_validate(curve.performance)
        rackcost.scenario.schema.Provenance.model_validate(curve.provenance)


def test_stages_are_detected_by_content_not_by_name():
    assert detect_stage(_json(RAW_8)) == "A"
    assert detect_stage(_json(AGG_8)) == "B"
    assert detect_stage(_json(ARRAY)) == "C"
    assert detect_stage(_json(BAD / "other_schema.json")) is None
    # a stage-B file under a stage-A-looking name is still stage B
    result = read_inferencex([(RAW_8.name, AGG_8.read_bytes())])
    assert result.curves[0].stages == ["B"]


@pytest.mark.parametrize("percentile", PERCENTILES)
def test_stage_a_numbers_match_the_file(percentile: str):
    raw = _json(RAW_8)
    curve, point = _only_point(read_inferencex_paths([RAW_8], percentile=percentile))
    assert point["concurrency"] == raw["max_concurrency"]
    # deployment-wide = one replica: (73600 + 72800) tokens in 160 s, never divided or multiplied by the GPUs
    assert point["throughput_tokens_per_s"] == raw["total_token_throughput"] == (73600 + 72800) / 160
    assert point["ttft_ms"] == raw[f"{percentile}_ttft_ms"]  # already ms
    assert point["tpot_ms"] == raw[f"{percentile}_tpot_ms"]
    assert curve.key.gpus_per_replica == GPUS and "file name: tp8" in curve.gpus_source
    assert curve.key.input_tokens == 1024 and curve.isl_osl_source.endswith("nominal from file name (1k1k)")
    assert curve.key.hardware is None  # stage A does not name the hardware: unstated, not guessed
    assert "runner in the file name: mi355x-fx01" in curve.provenance["notes"]
    assert curve.provenance["date"] == "2025-11-04"  # date 20251104-093012


@pytest.mark.parametrize("percentile", PERCENTILES)
def test_stage_b_numbers_match_the_file(percentile: str):
    agg = _json(AGG_8)
    curve, point = _only_point(read_inferencex_paths([AGG_8], percentile=percentile))
    assert point["concurrency"] == agg["conc"]
    # throughput per replica = per-GPU throughput x GPUs (tp8): 114.375 x 8 = 915 tokens/s, exact in binary
    assert point["throughput_tokens_per_s"] == agg["tput_per_gpu"] * agg["tp"] == 915.0
    assert point["ttft_ms"] == pytest.approx(agg[f"{percentile}_ttft"] * 1000, rel=ONE_OP_RTOL)  # s -> ms
    assert point["tpot_ms"] == pytest.approx(1000 / agg[f"{percentile}_intvty"], rel=ONE_OP_RTOL)  # 1 / intvty
    assert point["tpot_ms"] == {"p99": 20.0, "median": 16.0}[percentile]  # intvty 50 and 62.5 tokens/s per user
    k = curve.key
    assert (k.hardware, k.model, k.precision, k.framework) == ("mi355x", MOE, "fp8", "vllm")
    assert (k.tensor_parallel, k.expert_parallel, k.speculative_decoding) == (8, 8, "mtp")
    assert curve.label == "mi355x moe-1t-a32b fp8 vllm tp8-ep8 1024/1024 spec-mtp"
    assert (k.input_tokens, k.output_tokens, curve.isl_osl_source) == (1024, 1024, "file (isl, osl)")
    assert curve.provenance["class"] == "independent"
    assert agg["image"] in curve.provenance["software_stack"]
    assert AGG_8.name in curve.provenance["source"]


def _assert_same_point(a, b) -> None:
    for name in ("concurrency", "throughput_tokens_per_s", "tpot_ms", "ttft_ms"):
        assert math.isclose(a.points[0][name], b.points[0][name], rel_tol=SAME_RUN_RTOL), name
    assert (a.key.input_tokens, a.key.output_tokens) == (b.key.input_tokens, b.key.output_tokens)
    assert a.key.gpus_per_replica == b.key.gpus_per_replica


@pytest.mark.parametrize(("raw", "agg"), [(RAW_8, AGG_8), (RAW_32, AGG_32)], ids=["1k1k-conc8", "8k1k-conc32"])
@pytest.mark.parametrize("percentile", PERCENTILES)
def test_stage_a_and_stage_b_of_one_run_give_the_same_point(raw: Path, agg: Path, percentile: str):
    (a,) = read_inferencex_paths([raw], percentile=percentile).curves
    (b,) = read_inferencex_paths([agg], percentile=percentile).curves
    _assert_same_point(a, b)


@pytest.mark.data
@pytest.mark.parametrize(
    ("raw", "agg"), [(REAL_RAW_4, REAL_AGG_4), (REAL_RAW_32, REAL_AGG_32)], ids=["1k1k-conc4", "8k1k-conc32"]
)
@pytest.mark.parametrize("percentile", PERCENTILES)
def test_the_real_kimi_raw_file_and_its_aggregate_give_the_same_point(
    real_inferencex: Path, raw: str, agg: str, percentile: str
):
    (a,) = read_inferencex_paths([real_inferencex / raw], percentile=percentile).curves
    (b,) = read_inferencex_paths([real_inferencex / agg], percentile=percentile).curves
    _assert_same_point(a, b)
    # and given together, they are recognised as one run
    both = read_inferencex_paths([real_inferencex / raw, real_inferencex / agg], percentile=percentile)
    (curve,) = both.curves
    assert curve.stages == ["B"] and len(curve.points) == 1
    (skip,) = both.skipped
    assert skip.file == str(real_inferencex / raw) and "same run as " + agg in skip.reason


def test_given_together_the_raw_file_is_recognised_as_the_same_run():
    result = read_inferencex_paths([RAW_8, AGG_8])
    (curve,) = result.curves
    assert curve.stages == ["B"] and len(curve.points) == 1
    (skip,) = result.skipped
    assert skip.file == str(RAW_8) and "same run as " + AGG_8.name in skip.reason


def test_stage_c_array_gives_one_curve_per_tp_and_precision_and_skips_the_row_without_lengths():
    rows = _json(ARRAY)
    result = read_inferencex_paths([ARRAY])
    assert len(result.curves) == 4
    assert {(c.key.tensor_parallel, c.key.precision) for c in result.curves} == {
        (tp, p) for tp in (2, 4) for p in ("bf16", "fp8")
    }
    for c in result.curves:
        assert [p["concurrency"] for p in c.points] == [4, 16, 64]  # sorted, though the rows are not
        assert c.key.hardware == "mi300x" and c.key.model == DENSE
        assert (c.key.input_tokens, c.key.output_tokens) == (1024, 1024)
        assert c.isl_osl_source == "source_file name (1k1k)"
        assert c.key.gpus_per_replica == c.key.tensor_parallel
        days = sorted({r["timestamp"][: len("YYYY-MM-DD")] for r in _rows_of(c, rows)})
        assert c.provenance["date"] == (days[0] if len(days) == 1 else f"{days[0]} to {days[-1]}")
        run = {2: "run-fixture-1", 4: "run-fixture-2"}[c.key.tensor_parallel]  # the source files' folders
        assert f"Original result files (under artifacts/{run}): agg_dense70b_1k1k_" in c.provenance["notes"]
    assert any(" to " in c.provenance["date"] for c in result.curves)  # the TP4 FP8 runs span two days
    # the H100 row has no ISL/OSL in the row, a source file or the file name: skipped, never guessed
    (skip,) = result.skipped
    h100 = next(i for i, r in enumerate(rows) if r["hw"] == "h100")
    assert (skip.row, skip.field) == (h100, "isl/osl") and "--isl" in skip.reason


def _assert_points_are_the_rows(curves, rows: list[dict], percentile: str = "p99") -> None:
    """Each point: throughput = per-GPU x tp, TPOT = 1000 / interactivity [ms], TTFT = 1000 x TTFT s [ms]."""
    for curve in curves:
        mine = _rows_of(curve, rows)
        assert len(mine) == len(curve.points)
        for p in curve.points:
            (row,) = [r for r in mine if r["conc"] == p["concurrency"]]
            assert p["throughput_tokens_per_s"] == pytest.approx(row["tput_per_gpu"] * row["tp"], rel=ONE_OP_RTOL)
            assert p["tpot_ms"] == pytest.approx(1000 / row[f"{percentile}_intvty"], rel=ONE_OP_RTOL)
            assert p["ttft_ms"] == pytest.approx(1000 * row[f"{percentile}_ttft"], rel=ONE_OP_RTOL)


@pytest.mark.parametrize("percentile", PERCENTILES)
def test_stage_c_numbers_match_the_rows(percentile: str):
    result = read_inferencex_paths([ARRAY], percentile=percentile)
    _assert_points_are_the_rows(result.curves, _json(ARRAY), percentile)
    # one by hand: TP2 BF16 at concurrency 16 is 546.5706 tokens/s per GPU, p99 TPOT 30.2 ms, p99 TTFT 0.498 s
    (curve,) = [c for c in result.curves if (c.key.tensor_parallel, c.key.precision) == (2, "bf16")]
    point = curve.points[1]
    assert point["throughput_tokens_per_s"] == pytest.approx(2 * 546.5706, rel=ONE_OP_RTOL)
    if percentile == "p99":
        # two float operations (1 / 0.0302, then 1000 / that; 0.498 x 1000): 1e-12 relative
        assert (point["tpot_ms"], point["ttft_ms"]) == (pytest.approx(30.2, rel=1e-12), pytest.approx(498, rel=1e-12))


def test_isl_osl_from_options_says_so():
    result = read_inferencex_paths([ARRAY], isl=1024, osl=1024)
    assert len(result.curves) == 5 and not result.skipped
    (h100,) = [c for c in result.curves if c.key.hardware == "h100"]
    assert len(h100.points) == 1 and h100.isl_osl_source == "option --isl/--osl"
    assert "option --isl/--osl" in h100.provenance["notes"]
    assert h100.provenance["date"] == "unstated (not in the files)"  # the row has no timestamp
    # options never override what the file says
    mi300x = [c for c in result.curves if c.key.hardware == "mi300x"]
    assert len(mi300x) == 4 and all(c.isl_osl_source == "source_file name (1k1k)" for c in mi300x)


def test_only_filter_keeps_one_curve():
    result = read_inferencex_paths([ARRAY], only=["tp=4", "precision=fp8"])
    (curve,) = result.curves
    assert (curve.key.tensor_parallel, curve.key.precision) == (4, "fp8")
    # the other three curves' rows were read and left out; the H100 row was skipped before the filter
    assert result.filtered == 3 * 3
    with pytest.raises(ValueError, match="unknown curve key"):
        read_inferencex_paths([ARRAY], only=["colour=red"])


def test_stage_a_without_tp_in_the_name_needs_the_gpu_count():
    data = RAW_8.read_bytes()
    result = read_inferencex([("raw.json", data)], isl=1024, osl=1024)
    assert not result.curves and result.skipped[0].field == "tp" and "--gpus-per-replica" in result.skipped[0].reason
    result = read_inferencex([("raw.json", data)], isl=1024, osl=1024, gpus_per_replica=8)
    assert result.curves[0].gpus_source.startswith("option --gpus-per-replica")
    # an option that contradicts the file is an error naming both
    result = read_inferencex_paths([AGG_8], gpus_per_replica=4)
    assert not result.curves and "8 GPUs per replica" in result.skipped[0].reason
    assert "--gpus-per-replica says 4" in result.skipped[0].reason


def test_measured_power_is_kept_as_board_power():
    power = BAD / "agg_power_1k1k_conc16.json"
    result = read_inferencex_paths([power])
    curve, point = _only_point(result)
    assert point["power_w_per_accelerator"] == _json(power)["avg_power_w"]  # per GPU, as given: not x 8
    assert "board power, not wall power" in curve.provenance["notes"]
    assert "GPU BOARD POWER" in curves_to_yaml(result.curves)
    # power_valid false: the point stays, the power is dropped with a note
    data = _json(power)
    data["power_valid"] = False
    result = read_inferencex([("p.json", json.dumps(data).encode())])
    assert "power_w_per_accelerator" not in result.curves[0].points[0]
    assert any("power_valid: false" in n for n in result.notes)


# ---- bad input: a clear message naming the file and the field; the other files are still imported ----


@pytest.mark.parametrize(
    ("name", "field", "words"),
    [
        ("other_schema.json", "", "not an InferenceX result"),
        ("agg_truncated_1k1k_vllm_tp8_conc4.json", "", "truncated"),
        ("agg_no_throughput.json", "tput_per_gpu", "missing"),
        ("raw_no_ttft_1k1k_int4_vllm_tp8_conc4.json", "p99_ttft_ms", "missing"),
        ("raw_zero_completed_1k1k_int4_vllm_tp8_conc4.json", "completed", "0 requests completed"),
    ],
)
def test_bad_file_is_skipped_with_file_and_field(name: str, field: str, words: str):
    result = read_inferencex_paths([BAD / name, AGG_32])
    assert len(result.curves) == 1 and result.curves[0].files == [str(AGG_32)]
    (skip,) = result.skipped
    assert skip.file == str(BAD / name) and skip.field == field and words in skip.reason
    assert name in str(skip)


def test_more_bad_input():
    files = [
        ("empty.json", b""),
        ("binary.json", b"\xff\xfe\x00"),
        ("nan.json", json.dumps({**_json(AGG_8), "p99_ttft": float("nan")}).encode()),
        ("zero.json", json.dumps({**_json(AGG_8), "tput_per_gpu": 0}).encode()),
        ("list.json", b"[1, 2, 3]"),
        ("rows.json", json.dumps([_json(AGG_8), {"a": 1}, "text"]).encode()),
    ]
    result = read_inferencex(files)
    assert len(result.curves) == 1  # the one good row of rows.json
    reasons = {(s.file, s.row, s.field): s.reason for s in result.skipped}
    assert "empty file" in reasons["empty.json", None, ""]
    assert "UTF-8" in reasons["binary.json", None, ""]
    assert "finite" in reasons["nan.json", None, "p99_ttft"]
    assert "> 0" in reasons["zero.json", None, "tput_per_gpu"]
    assert "not an InferenceX result" in reasons["list.json", None, ""]
    assert "not an InferenceX aggregate" in reasons["rows.json", 1, ""]
    assert "not an InferenceX aggregate" in reasons["rows.json", 2, ""]
    missing = read_inferencex_paths([BAD / "does-not-exist.json"])
    assert not missing.ok and missing.skipped[0].reason == "no such file"


def test_disaggregated_gpu_counts_add_up_and_a_null_one_is_skipped():
    agg = _json(AGG_8)
    (curve,) = read_inferencex(
        [("d.json", json.dumps({**agg, "num_prefill_gpu": 4, "num_decode_gpu": 8}).encode())]
    ).curves
    assert curve.key.gpus_per_replica == 12 and curve.gpus_source == "file: 4 prefill + 8 decode GPUs"
    assert curve.points[0]["throughput_tokens_per_s"] == 114.375 * 12  # per GPU x (4 + 8), not x tp8
    result = read_inferencex([("d.json", json.dumps({**agg, "num_prefill_gpu": None, "num_decode_gpu": 8}).encode())])
    (skip,) = result.skipped
    assert not result.curves and (skip.field, skip.reason.split(" while")[0]) == ("num_prefill_gpu", "missing")


def test_repeated_concurrency_in_one_curve_is_reported():
    data = AGG_8.read_bytes()
    result = read_inferencex([("a.json", data), ("b.json", data)])
    assert len(result.curves[0].points) == 1
    assert "repeats concurrency 8 of a.json" in result.skipped[0].reason


def test_bad_arguments_raise():
    with pytest.raises(ValueError, match="percentile"):
        read_inferencex([], percentile="p42")
    with pytest.raises(ValueError, match="both isl and osl"):
        read_inferencex([], isl=1024)


# ---- YAML that a scenario accepts, and comparability fed by imported provenance ----


def _scenario_with(systems: list[dict]) -> dict:
    base = yaml.safe_load(TWO_SYSTEMS.read_text(encoding="utf-8"))
    template = base["systems"][0]
    base["systems"] = [{**template, **s} for s in systems]
    worst_ttft = max(p["ttft_ms"] for s in systems for p in s["performance"]["points"])
    worst_tpot = max(p["tpot_ms"] for s in systems for p in s["performance"]["points"])
    base["slo"] = {"ttft_limit_ms": 2 * worst_ttft, "tpot_limit_ms": 2 * worst_tpot}
    return base


def _entries(text: str) -> dict:
    data = yaml.safe_load(text)
    assert isinstance(data, dict)
    return data


def _paste_every_curve(paths: list[Path]) -> dict[str, float]:
    """Import ``paths``, paste each curve's YAML into a scenario and evaluate it; ISL per curve label."""
    result = read_inferencex_paths(paths)
    entries = _entries(curves_to_yaml(result.curves))
    assert len(entries) == len(result.curves)
    isl = {}
    for label, entry in entries.items():
        gpus = int(re.search(r"tp(\d+)", label).group(1))
        data = _scenario_with([{"name": label, **entry}])
        data["systems"][0]["hardware"] = {**data["systems"][0]["hardware"], "accelerators_per_replica": gpus}
        scenario = rackcost.scenario_from_dict(data, "pasted.yaml")
        rackcost.evaluate(scenario)
        perf = scenario.systems[0].performance
        assert perf.framework == "vllm"
        isl[label] = perf.benchmark_input_tokens
    return isl


def test_yaml_of_every_fixture_pastes_into_a_scenario():
    isl = _paste_every_curve(FIXTURE_FILES)
    # two twin runs (their aggregates kept) and the array's four curves; the H100 row is skipped
    assert len(isl) == 2 + 4
    for label, tokens in isl.items():
        if label.startswith("mi355x"):  # the twins carry their runs' measured mean lengths, in six digits
            expected = 73600 / 80 if "1024/1024" in label else float(f"{2368062 / 320:.6g}")
        else:  # the array's rows carry no counts: the nominal 1k
            expected = 1024
        assert tokens == expected, label


@pytest.mark.data
def test_yaml_of_every_real_inferencex_file_pastes_into_a_scenario(real_inferencex: Path):
    isl = _paste_every_curve([real_inferencex / n for n in REAL_FILES])
    assert len(isl) == 8
    # Kimi K2.5 runs carry their measured mean lengths (37068 / 40 = 926.7 tokens), the Gaudi rows do not
    assert {label: tokens in (1024, 926.7, 7350.19) for label, tokens in isl.items()} == dict.fromkeys(isl, True)


def test_yaml_numbers_round_to_six_digits_only():
    result = read_inferencex_paths([ARRAY], only=["tp=2", "precision=bf16"])
    (entry,) = _entries(curves_to_yaml(result.curves)).values()
    rounded = 0
    for written, exact in zip(entry["performance"]["points"], result.curves[0].points, strict=True):
        for name, value in exact.items():
            assert written[name] == pytest.approx(value, rel=5e-6)  # half a unit in the sixth digit
            rounded += written[name] != value
    assert rounded  # 2 x 546.5706 = 1093.1412 tokens/s has seven digits: written 1093.14


def test_system_entry_has_hardware_placeholders_and_loads_once_filled():
    (curve,) = read_inferencex_paths([ARRAY], only=["tp=4", "precision=fp8"]).curves
    text = curve_to_yaml(curve, system_name="MI300X TP4 FP8")
    assert "FILL IN" in text and "accelerators_per_replica: 4" in text
    (entry,) = yaml.safe_load(text)
    assert entry["hardware"]["accelerator_rated_w"] is None  # clearly unfilled: a scenario refuses it
    with pytest.raises(rackcost.ScenarioError, match="accelerator_rated_w"):
        rackcost.scenario_from_dict(_scenario_with([entry]))
    template = yaml.safe_load(TWO_SYSTEMS.read_text(encoding="utf-8"))["systems"][0]
    entry["hardware"] = {**template["hardware"], "accelerators_per_replica": 4}
    entry["costs"] = template["costs"]
    scenario = rackcost.scenario_from_dict(_scenario_with([entry]))
    assert scenario.systems[0].provenance.provenance_class.value == "independent"
    with pytest.raises(ValueError, match="one curve"):
        curves_to_yaml(read_inferencex_paths([ARRAY]).curves, system_name="x")


def test_comparability_warnings_name_the_imported_differences():
    curves = read_inferencex_paths([ARRAY, AGG_32], isl=1024, osl=1024).curves
    pick = {
        "bf16 tp4": next(c for c in curves if c.key.precision == "bf16" and c.key.tensor_parallel == 4),
        "fp8 tp4": next(c for c in curves if c.key.precision == "fp8" and c.key.tensor_parallel == 4),
        "moe": next(c for c in curves if c.key.hardware == "mi355x"),
    }
    systems = [{"name": n, "performance": c.performance, "provenance": c.provenance} for n, c in pick.items()]
    data = _scenario_with(systems)
    data["workload"].update(model=DENSE, precision="bf16")
    data["workload"].update(input_tokens_per_request=1024, output_tokens_per_request=1024)
    data["systems"][2]["provenance"] = {**data["systems"][2]["provenance"], "class": "vendor"}
    warnings = rackcost.evaluate(rackcost.scenario_from_dict(data)).warnings
    text = "\n".join(warnings)
    assert "fp8 tp4 vs bf16 tp4: different precision (fp8 vs bf16)" in text
    assert f"moe vs bf16 tp4: different model ({MOE} vs {DENSE})" in text
    assert "moe vs bf16 tp4: different ISL/OSL (8192/1024 vs 1024/1024)" in text
    assert "moe vs bf16 tp4: different provenance class (vendor vs independent)" in text
    assert "moe: curve measured at ISL/OSL 8192/1024" in text
    assert "bf16 tp4: curve measured" not in text  # the workload's own model, precision and lengths


def test_differing_keys_names_what_differs():
    differ = differing_keys(read_inferencex_paths([ARRAY]).curves)
    assert set(differ) == {"precision", "tensor_parallel", "gpus_per_replica"}
    assert differ["tensor_parallel"] == ["2", "4"] and differ["precision"] == ["bf16", "fp8"]


def test_mapping_table_is_one_table_with_units():
    for name in ("concurrency", "throughput_tokens_per_s", "tpot_ms", "ttft_ms", "power_w_per_accelerator"):
        assert name in FIELD_MAP and FIELD_MAP[name].unit
    assert FIELD_MAP["ttft_ms"].stage_b == "{pct}_ttft" and FIELD_MAP["ttft_ms"].stage_a == "{pct}_ttft_ms"


def test_file_names_say_isl_osl_and_parallelism():
    names = names_from_file_name("kimik2.5_8k1k_int4_vllm_tp8-ep1-dpafalse_disagg-false_spec-mtp_conc32_MI355.json")
    assert (names["isl"], names["osl"], names["tp"], names["ep"]) == (8192, 1024, 8, 1)
    assert (names["precision"], names["framework"], names["spec_decoding"], names["conc"]) == (
        "int4",
        "vllm",
        "mtp",
        32,
    )
    assert names["dp_attention"] == "false" and names["disagg"] == "false"
    assert (names_from_file_name(RAW_32.name)["ep"], names_from_file_name(RAW_32.name)["precision"]) == (8, "fp8")
    assert "isl" not in names_from_file_name(ARRAY.name)
    assert "isl" not in names_from_file_name(REAL_GAUDI)


# ---- CSV ----


def test_csv_table_imports_with_units_and_provenance():
    result = read_csv_table_path(BAD / "good_1k1k.csv")
    (curve,) = result.curves
    assert [p["concurrency"] for p in curve.points] == [4, 16, 64]
    assert curve.points[1] == {
        "concurrency": 16,
        "throughput_tokens_per_s": 1400,
        "tpot_ms": 25,
        "ttft_ms": 400,
        "power_w_per_accelerator": 520,
    }
    assert curve.key.gpus_per_replica == 4 and curve.gpus_source == "column tensor_parallel"
    assert curve.isl_osl_source == "file name (1k1k)" and curve.key.input_tokens == 1024
    assert curve.provenance["class"] == "assumption"
    assert curve.performance["token_basis"] == "total" and curve.performance["throughput_per"] == "replica"
    assert "good_1k1k.csv (lines 3, 4, 5)" in curve.provenance["source"]


def test_csv_options_and_interactivity():
    data = b"throughput_tokens_per_s,interactivity_tokens_per_s,ttft_ms\n500,50,200\n"
    result = read_csv_table(
        "t.csv", data, token_basis="output", throughput_per="accelerator", isl=2000, osl=100, provenance_class="vendor"
    )
    (curve,) = result.curves
    assert curve.points == [{"throughput_tokens_per_s": 500, "tpot_ms": 20.0, "ttft_ms": 200}]
    assert curve.performance["token_basis"] == "output" and curve.performance["throughput_per"] == "accelerator"
    assert curve.key.input_tokens == 2000 and curve.isl_osl_source == "option --isl/--osl"
    assert curve.provenance["class"] == "vendor"


def test_csv_bad_rows_are_skipped_with_line_and_column():
    result = read_csv_table_path(BAD / "bad_rows.csv")
    (curve,) = result.curves
    assert [p["concurrency"] for p in curve.points] == [4, 64]
    where = {(s.row, s.field): s.reason for s in result.skipped}
    assert where == {
        (3, "throughput_tokens_per_s"): "missing",
        (4, "ttft_ms"): "missing",
        (5, "interactivity_tokens_per_s"): "must be a number, got text, not a number",
    }
    assert str(result.skipped[0]).startswith(str(BAD / "bad_rows.csv") + ":line 3: throughput_tokens_per_s")


def test_csv_missing_column_and_unknown_isl():
    result = read_csv_table("t.csv", b"concurrency,throughput,ttft_ms,tpot_ms\n4,100,200,20\n")
    assert not result.ok and result.skipped[0].field == "throughput_tokens_per_s"
    assert "columns found: concurrency, throughput" in result.skipped[0].reason
    result = read_csv_table("t.csv", b"throughput_tokens_per_s,ttft_ms,tpot_ms\n100,200,20\n")
    assert not result.ok and "--isl" in result.skipped[0].reason
    result = read_csv_table("t_1k1k.csv", b"throughput_tokens_per_s,ttft_ms,tpot_ms,tpot_ms\n1,2,3,4\n")
    assert not result.ok and "repeated" in result.skipped[0].reason
    result = read_csv_table(
        "t_1k1k.csv", b"throughput_tokens_per_s,ttft_ms,tpot_ms,interactivity_tokens_per_s\n1,2,20,10\n"
    )
    assert not result.ok and "disagrees" in result.skipped[0].reason


# ---- the mapping table is what renames: every reader reads a source only through it ----


def test_a_stage_b_record_renamed_through_the_map_gives_our_names():
    record = {
        "conc": 16,
        "tput_per_gpu": 55.6,
        "p99_ttft": 0.586,
        "p99_intvty": 54.2,
        "median_ttft": 0.297,  # another percentile: not read at p99
        "hw": "mi355x",
        "num_prefill_gpu": 4,
        "num_decode_gpu": 8,
        "power_valid": False,
        "timestamp": "20260527-075026",
        "mean_e2el": 16.2,  # not in the map: dropped
    }
    renamed = rename_fields(record, "stage_b", "p99")
    assert dict(renamed) == {
        "concurrency": 16,
        "throughput_tokens_per_s": 55.6,  # still per GPU and in s: the reader converts after the rename
        "interactivity_tokens_per_s": 54.2,
        "ttft_ms": 0.586,
        "hardware": "mi355x",
        "prefill_gpus": 4,
        "decode_gpus": 8,
        "power_valid": False,
        "date": "20260527-075026",
    }
    assert renamed.source_name("ttft_ms") == "p99_ttft" and renamed.source_name("date") == "timestamp"
    assert rename_fields(record, "stage_b", "median")["ttft_ms"] == 0.297
    # alternatives: the first with a value, as Python's `or`
    assert rename_fields({"timestamp": None, "date": "2025-10-15"}, "stage_b")["date"] == "2025-10-15"
    assert rename_fields({"timestamp": "t", "date": "d"}, "stage_b")["date"] == "t"


def test_a_stage_a_record_renamed_through_the_map_gives_our_names():
    raw = _json(RAW_8)
    renamed = rename_fields(raw, "stage_a", "p99")
    assert renamed["concurrency"] == raw["max_concurrency"]
    assert renamed["throughput_tokens_per_s"] == raw["total_token_throughput"]
    assert (renamed["ttft_ms"], renamed["tpot_ms"]) == (raw["p99_ttft_ms"], raw["p99_tpot_ms"])
    assert (renamed["benchmark_model"], renamed["framework"]) == (raw["model_id"], raw["backend"])
    assert renamed["requests_completed"] == raw["completed"]
    assert set(renamed) == set(source_names("stage_a", "p99")) - {"benchmark_input_tokens", "benchmark_output_tokens"}


def test_a_csv_row_renamed_through_the_map_gives_our_names():
    row = {"throughput_tokens_per_s": "1400", "ttft_ms": "400", "tensor_parallel": "4", "colour": "red"}
    renamed = rename_fields(row, "csv")
    assert dict(renamed) == {"throughput_tokens_per_s": "1400", "ttft_ms": "400", "tensor_parallel": "4"}
    assert renamed.source_name("tensor_parallel") == "tensor_parallel"


def test_a_missing_field_is_reported_under_the_sources_name():
    renamed = rename_fields({"tput_per_gpu": 55.6}, "stage_b", "median")
    with pytest.raises(SkipError) as missing:
        number(renamed, "ttft_ms")
    assert (missing.value.field, missing.value.reason) == ("median_ttft", "missing")
    # through a reader: the skipped entry names the source's field, at the percentile asked for
    agg = {k: v for k, v in _json(AGG_8).items() if k not in ("conc", "median_ttft")}
    (skip,) = read_inferencex([("a.json", json.dumps(agg).encode())]).skipped
    assert (skip.field, skip.reason) == ("conc", "missing")
    (skip,) = read_inferencex([("a.json", json.dumps({**agg, "conc": 4}).encode())], percentile="median").skipped
    assert (skip.field, skip.reason) == ("median_ttft", "missing")
    (skip,) = read_inferencex([("r.json", json.dumps({**_json(RAW_8), "max_concurrency": "four"}).encode())]).skipped
    assert (skip.field, skip.reason) == ("max_concurrency", "must be a number, got text, not a number")


def test_a_name_the_map_does_not_give_for_the_source_cannot_be_read():
    renamed = rename_fields(_json(RAW_8), "stage_a", "p99")
    for ours in ("hardware", "p99_ttft_ms", "power_w_per_accelerator"):  # stage A has no hw; source names; no power
        with pytest.raises(KeyError, match="not a stage_a field"):
            renamed.get(ours)
    with pytest.raises(KeyError):
        number(rename_fields({}, "csv"), "requests_completed")  # a stage-A field, not a CSV column


def _json_names_in_the_map() -> set[str]:
    """Every field name the map gives for stage A or B, at either percentile."""
    return {
        name
        for source in ("stage_a", "stage_b")
        for percentile in PERCENTILES
        for alternatives in source_names(source, percentile).values()
        for name in alternatives
    }


def _only_mapped(record: dict) -> dict:
    """The record's fields that the map names; nothing else."""
    return {k: v for k, v in record.items() if k in _json_names_in_the_map()}


def _assert_only_the_mapped_names_matter(path: Path) -> None:
    data = _json(path)
    trimmed = [_only_mapped(r) for r in data] if isinstance(data, list) else _only_mapped(data)
    assert trimmed != data  # the files carry fields the readers do not need
    for percentile in PERCENTILES:
        full = read_inferencex([(path.name, json.dumps(data).encode())], percentile=percentile, isl=1024, osl=1024)
        mapped = read_inferencex([(path.name, json.dumps(trimmed).encode())], percentile=percentile, isl=1024, osl=1024)
        assert [(c.performance, c.provenance) for c in mapped.curves] == [
            (c.performance, c.provenance) for c in full.curves
        ]
        assert [str(s) for s in mapped.skipped] == [str(s) for s in full.skipped]


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=[_id(p.name) for p in FIXTURE_FILES])
def test_a_record_with_only_the_mapped_names_reads_the_same(path: Path):
    _assert_only_the_mapped_names_matter(path)


@pytest.mark.data
@pytest.mark.parametrize("name", REAL_FILES, ids=[_id(n) for n in REAL_FILES])
def test_a_real_record_with_only_the_mapped_names_reads_the_same(real_inferencex: Path, name: str):
    _assert_only_the_mapped_names_matter(real_inferencex / name)


class _Spy(dict):
    """A JSON object that records every field name a reader looks up in it."""

    looked_up: set[str] = set()

    def __getitem__(self, key):
        _Spy.looked_up.add(key)
        return super().__getitem__(key)

    def __contains__(self, key):
        _Spy.looked_up.add(key)
        return super().__contains__(key)

    def get(self, key, default=None):
        _Spy.looked_up.add(key)
        return super().get(key, default)


def _spy_on_json(monkeypatch: pytest.MonkeyPatch) -> None:
    class SpyJson:
        JSONDecodeError = json.JSONDecodeError

        @staticmethod
        def loads(text: str):
            return json.loads(text, object_hook=_Spy)

    monkeypatch.setattr(inferencex, "json", SpyJson)
    monkeypatch.setattr(_Spy, "looked_up", set())


def test_every_field_a_reader_looks_up_is_in_the_map(monkeypatch: pytest.MonkeyPatch):
    _spy_on_json(monkeypatch)
    agg, raw = _json(AGG_8), _json(RAW_8)
    variants = [  # the paths the fixtures do not take: disaggregated, pcp, TPOT without interactivity, power
        {**agg, "num_prefill_gpu": 4, "num_decode_gpu": 8},
        {**agg, "pcp": 2, "pp": 2},
        {k: v for k, v in agg.items() if not k.endswith("_intvty")},
        {**agg, "avg_power_w": 600, "power_valid": False, "timestamp": "20260527-075026"},
        {**raw, "isl": 1024, "osl": 1024},
    ]
    files = [(p.name, p.read_bytes()) for p in FIXTURE_FILES + sorted(BAD.glob("*.json"))]
    files += [(f"v{i}_tp8.json", json.dumps(v).encode()) for i, v in enumerate(variants)]
    for percentile in PERCENTILES:
        assert read_inferencex(files, percentile=percentile).curves
    assert _Spy.looked_up >= {"conc", "num_prefill_gpu", "pcp", "p99_tpot", "power_valid", "completed"}
    assert _Spy.looked_up - _json_names_in_the_map() == set()


@pytest.mark.data
def test_every_field_a_reader_looks_up_in_the_real_files_is_in_the_map(
    monkeypatch: pytest.MonkeyPatch, real_inferencex: Path
):
    _spy_on_json(monkeypatch)
    files = [(n, (real_inferencex / n).read_bytes()) for n in REAL_FILES]
    for percentile in PERCENTILES:
        assert read_inferencex(files, percentile=percentile).curves
    assert _Spy.looked_up >= {"conc", "tput_per_gpu", "max_concurrency", "source_file", "timestamp"}
    assert _Spy.looked_up - _json_names_in_the_map() == set()


def test_conversions_after_the_rename():
    # InferenceX stage B: latencies in s; interactivity = output tokens/s per user = 1 / TPOT (docs/importers.md)
    assert seconds_to_ms(0.586) == 586.0
    assert tpot_ms_from_interactivity(50.0) == 20.0  # 50 tokens/s per user -> 20 ms per token


def test_each_source_names_a_field_once():
    for source in SOURCES:
        names = [n for v in source_names(source, "p99").values() for n in v]
        assert len(names) == len(set(names)), source


def test_the_csv_columns_are_the_maps_csv_column():
    assert set(CSV_COLUMNS) == {n for v in source_names("csv").values() for n in v}


def test_what_the_map_says_a_file_name_gives_it_gives():
    name = "x_8k1k_fp8_sglang_tp4-ep2-dpatrue_disagg-true_spec-mtp_conc8.json"
    renamed = rename_fields(names_from_file_name(name), "stage_b")
    from_file_name = {f.ours for f in FIELD_MAP.values() if f.file_name != NOT_IN_SOURCE}
    assert from_file_name <= set(renamed)
    assert (renamed["tensor_parallel"], renamed["benchmark_input_tokens"], renamed["disaggregated"]) == (
        4,
        8192,
        "true",
    )


def test_docs_print_the_mapping_table():
    assert field_map_markdown() in DOCS.read_text(encoding="utf-8"), "regenerate with field_map_markdown()"


# --- measured tokens per request (issue 12): the request rate rackcost derives is the one the run measured ---

SHORT = BAD / "raw_short_requests_1k1k_fp8_vllm_tp8_conc16.json"  # synthetic: 160 requests of 517 + 469 tokens
RATE_RTOL = 1e-9  # the brief's bound; rounding a mean length to 10 significant digits moves the rate <= 5e-10


def _derived_rps(curve) -> list[float]:
    """Requests/s per point as the model derives them from the imported curve (step 1, through the scenario)."""
    from rackcost.scenario.unpack import system_inputs

    data = _scenario_with([{"name": "imported", "performance": curve.performance}])
    gpus = curve.key.gpus_per_replica
    data["systems"][0]["hardware"] = {**data["systems"][0]["hardware"], "accelerators_per_replica": gpus}
    scenario = rackcost.scenario_from_dict(data, "pasted.yaml")
    return [float(x) for x in system_inputs(scenario, scenario.systems[0]).curve.request_rps]


def _stage_a(name: str = "x_1k1k_fp8_vllm_tp8_conc4.json", **fields) -> tuple[str, bytes]:
    """A small synthetic stage-A record (conc 4); ``fields`` add or replace client fields (None drops one)."""
    record = {"model_id": "m", "max_concurrency": 4, "total_token_throughput": 650.0, "p99_ttft_ms": 100.0}
    record |= {"p99_tpot_ms": 20.0, "completed": 10, "total_input_tokens": 9000, "total_output_tokens": 4000}
    record |= {"request_throughput": 0.5, "output_throughput": 200.0}
    record |= fields
    return name, json.dumps({k: v for k, v in record.items() if v is not None}).encode()


@pytest.mark.parametrize("raw", [RAW_8, RAW_32, SHORT], ids=["1k1k", "8k1k", "short"])
def test_stage_a_curve_gives_the_measured_request_rate(raw: Path):
    measured = _json(raw)
    curve, _ = _only_point(read_inferencex_paths([raw]))
    perf = curve.performance
    assert curve.token_lengths == "measured"
    assert perf["benchmark_input_tokens"] == pytest.approx(measured["total_input_tokens"] / measured["completed"])
    assert perf["benchmark_output_tokens"] == pytest.approx(measured["total_output_tokens"] / measured["completed"])
    (rps,) = _derived_rps(curve)
    assert rps == pytest.approx(measured["request_throughput"], rel=RATE_RTOL)
    # the throughput itself is the file's, untouched: only the tokens per request changed
    assert perf["points"][0]["throughput_tokens_per_s"] == measured["total_token_throughput"]


@pytest.mark.parametrize(("raw", "agg"), [(RAW_8, AGG_8), (RAW_32, AGG_32)], ids=["1k1k-conc8", "8k1k-conc32"])
def test_the_slot_holding_time_is_the_runs_mean_request_time(raw: Path, agg: Path):
    # Little's law on the closed loop: the model's holding time S = concurrency / request rate, with the measured
    # rate (80 / 160 s = 0.5 and 320 / 400 s = 0.8 requests/s), is 8 / 0.5 = 16 s and 32 / 0.8 = 40 s: the runs'
    # mean end-to-end latency
    from rackcost.scenario.unpack import system_inputs

    run = _json(raw)
    for paths in ([raw], [agg, raw]):  # the raw file alone, or the aggregate with its twin's counts
        curve, _ = _only_point(read_inferencex_paths(paths))
        data = _scenario_with([{"name": "imported", "performance": curve.performance}])
        data["systems"][0]["hardware"] = {**data["systems"][0]["hardware"], "accelerators_per_replica": GPUS}
        scenario = rackcost.scenario_from_dict(data, "pasted.yaml")
        (service_s,) = system_inputs(scenario, scenario.systems[0]).curve.service_s
        expected = run["max_concurrency"] / (run["completed"] / run["duration"])
        assert service_s == pytest.approx(expected, rel=RATE_RTOL)
        assert service_s == pytest.approx(run["mean_e2el_ms"] / 1000, rel=RATE_RTOL)


def test_short_requests_no_longer_halve_the_request_rate():
    # the case: 986 tokens per request (469 output) under a nominal 1k/1k; the nominal 2048 gave 0.48x
    curve, _ = _only_point(read_inferencex_paths([SHORT]))
    assert (curve.performance["benchmark_input_tokens"], curve.performance["benchmark_output_tokens"]) == (517, 469)
    assert _derived_rps(curve) == [pytest.approx(1.6, rel=RATE_RTOL)]  # 1577.6 tokens/s / 986 tokens
    assert curve.key.input_tokens == 1024 and curve.key.output_tokens == 1024  # the curve is still the 1k/1k one
    notes = curve.provenance["notes"]
    assert "measured mean 517.0 input + 469.0 output" in notes and "not the nominal 1024/1024" in notes
    assert curve.isl_osl_source == "measured mean 517.0/469.0 over 160 requests; nominal from file name (1k1k)"


def test_a_stage_b_aggregate_takes_the_counts_of_its_raw_twin():
    raw = _json(RAW_8)
    result = read_inferencex_paths([AGG_8, RAW_8])
    curve, _ = _only_point(result)
    assert curve.stages == ["B"] and curve.token_lengths == "measured"
    assert (curve.performance["benchmark_input_tokens"], curve.performance["benchmark_output_tokens"]) == (920, 910)
    assert _derived_rps(curve) == [pytest.approx(raw["request_throughput"], rel=RATE_RTOL)]
    assert _derived_rps(curve) == [pytest.approx(80 / 160, rel=RATE_RTOL)]  # 915 tokens/s / (920 + 910) tokens
    assert f"completed of {RAW_8.name}" in curve.provenance["notes"]


@pytest.mark.parametrize("path", [AGG_8, AGG_32, ARRAY], ids=["agg-1k1k", "agg-8k1k", "array"])
def test_without_measured_counts_the_lengths_stay_nominal(path: Path):
    result = read_inferencex_paths([path], isl=1024, osl=1024)
    for curve in result.curves:
        perf = curve.performance
        assert curve.token_lengths == "nominal"
        assert (perf["benchmark_input_tokens"], perf["benchmark_output_tokens"]) == (
            curve.key.input_tokens,
            curve.key.output_tokens,
        )
        nominal = curve.key.input_tokens + curve.key.output_tokens
        expected = [p["throughput_tokens_per_s"] / nominal for p in curve.points]  # today's behaviour
        assert _derived_rps(curve) == pytest.approx(expected, rel=1e-12)
        assert f"Tokens per request: nominal ISL/OSL {curve.key.input_tokens}/" in curve.provenance["notes"]
    assert any(n.startswith(f"ISL/OSL nominal for {len(result.curves)} curve(s)") for n in result.notes)


def test_synthetic_stage_a_counts_give_the_means_and_the_rate():
    # 10 requests, 9000 input and 4000 output tokens: 900 + 400 per request; 650 tokens/s / 1300 = 0.5 requests/s
    curve, _ = _only_point(read_inferencex([_stage_a()]))
    assert (curve.performance["benchmark_input_tokens"], curve.performance["benchmark_output_tokens"]) == (900, 400)
    assert _derived_rps(curve) == [pytest.approx(0.5, rel=RATE_RTOL)]


def test_synthetic_stage_a_rates_alone_give_the_means():
    # no counts: OSL = 200 output tokens/s / 0.5 requests/s = 400, ISL = (650 - 200) / 0.5 = 900
    data = _stage_a(completed=None, total_input_tokens=None, total_output_tokens=None)
    curve, _ = _only_point(read_inferencex([data]))
    assert curve.token_lengths == "measured"
    assert curve.performance["benchmark_input_tokens"] == pytest.approx(900, rel=1e-12)
    assert curve.performance["benchmark_output_tokens"] == pytest.approx(400, rel=1e-12)
    assert _derived_rps(curve) == [pytest.approx(0.5, rel=RATE_RTOL)]
    assert "total_token_throughput and output_throughput / request_throughput" in curve.provenance["notes"]


def test_synthetic_stage_a_without_measured_fields_stays_nominal():
    measured = ("completed", "total_input_tokens", "total_output_tokens", "request_throughput", "output_throughput")
    data = _stage_a(**dict.fromkeys(measured))
    result = read_inferencex([data])
    curve, _ = _only_point(result)
    assert curve.token_lengths == "nominal" and curve.performance["benchmark_input_tokens"] == 1024
    assert _derived_rps(curve) == [pytest.approx(650 / 2048, rel=1e-12)]
    assert "ISL/OSL nominal for 1 curve(s)" in result.notes[-1]


def test_a_request_rate_that_disagrees_with_the_counts_is_said():
    curve, _ = _only_point(read_inferencex([_stage_a(request_throughput=0.6)]))
    assert curve.performance["benchmark_input_tokens"] == 900  # the counts are kept
    assert (
        "request_throughput 0.6/s differs from total_token_throughput / measured mean length = 0.5/s"
        in (curve.provenance["notes"])
    )


def test_runs_of_one_curve_pool_their_lengths_over_their_requests():
    # conc 4: 10 requests of 900 + 400; conc 8: 30 requests of 700 + 300 (650 tokens/s / 1000 = 0.65 requests/s)
    a = _stage_a("x_1k1k_fp8_vllm_tp8_conc4.json")
    b = _stage_a(
        "x_1k1k_fp8_vllm_tp8_conc8.json",
        max_concurrency=8,
        completed=30,
        total_input_tokens=21000,
        total_output_tokens=9000,
        request_throughput=0.65,
        output_throughput=195.0,
    )
    (curve,) = read_inferencex([a, b]).curves
    mean_in, mean_out = (9000 + 21000) / 40, (4000 + 9000) / 40  # 750 + 325 = 1075 tokens per request
    assert (curve.performance["benchmark_input_tokens"], curve.performance["benchmark_output_tokens"]) == (
        mean_in,
        mean_out,
    )
    assert _derived_rps(curve) == pytest.approx([650 / 1075, 650 / 1075], rel=1e-12)
    gap = max(abs(1300 / 1075 - 1), abs(1000 / 1075 - 1))  # each run's own rate against the pooled length
    assert f"to within {gap:.2%} at each point" in curve.provenance["notes"]


def test_a_curve_with_some_points_unmeasured_stays_nominal():
    a = _stage_a("x_1k1k_fp8_vllm_tp8_conc4.json")
    b = _stage_a(
        "x_1k1k_fp8_vllm_tp8_conc8.json",
        max_concurrency=8,
        completed=None,
        total_input_tokens=None,
        total_output_tokens=None,
        request_throughput=None,
    )
    (curve,) = read_inferencex([a, b]).curves
    assert curve.token_lengths == "nominal" and curve.performance["benchmark_input_tokens"] == 1024
    assert "only 1 of 2 points carry measured token counts" in curve.provenance["notes"]


def test_yaml_writes_measured_lengths_to_six_digits():
    (curve,) = read_inferencex_paths([RAW_32]).curves  # 2368062 / 320 = 7400.19375 input tokens per request
    (entry,) = _entries(curves_to_yaml([curve])).values()
    assert entry["performance"]["benchmark_input_tokens"] == 7400.19
    assert curve.performance["benchmark_input_tokens"] == 2368062 / 320  # the curve keeps them exact


# ---- the real InferenceX files (conftest.py: real_inferencex): the Gaudi 2.5 array and the bundled scenario ----


@pytest.mark.data
def test_the_real_gaudi_file_gives_six_curves_of_five_points_and_one_h100_row(real_inferencex: Path):
    path = real_inferencex / REAL_GAUDI
    rows = _json(path)
    assert len(rows) == 31
    result = read_inferencex_paths([path])
    assert len(result.curves) == 6
    assert {(c.key.tensor_parallel, c.key.precision) for c in result.curves} == {
        (tp, p) for tp in (2, 4, 8) for p in ("bf16", "fp8")
    }
    for c in result.curves:
        assert [p["concurrency"] for p in c.points] == [4, 8, 16, 32, 64]
        assert c.key.hardware == "gaudi25" and c.key.model == "meta-llama/Llama-3.3-70B-Instruct"
        assert (c.key.input_tokens, c.key.output_tokens) == (1024, 1024)
        assert c.isl_osl_source == "source_file name (1k1k)"
        assert c.key.gpus_per_replica == c.key.tensor_parallel
        assert c.provenance["date"] == "2025-10-15"
    _assert_points_are_the_rows(result.curves, rows)
    # the H100 row has no ISL/OSL in the row, its source file or the file name: skipped, never guessed
    (skip,) = result.skipped
    assert (skip.row, skip.field) == (30, "isl/osl") and "--isl" in skip.reason
    given = read_inferencex_paths([path], isl=1024, osl=1024)
    assert len(given.curves) == 7 and not given.skipped
    (h100,) = [c for c in given.curves if c.key.hardware == "h100"]
    assert len(h100.points) == 1 and h100.isl_osl_source == "option --isl/--osl"
    assert read_inferencex_paths([path], only=["tp=8", "precision=fp8"]).filtered == 25


@pytest.mark.data
def test_the_bundled_gaudi_scenario_holds_the_curves_of_the_real_gaudi_file(real_inferencex: Path):
    # scenarios/llama-3.3-70b-gaudi25-tp-precision.yaml was imported from this file, one curve per system
    scenario = rackcost.load_scenario(rackcost.bundled_scenario_path(GAUDI_SCENARIO))
    curves = read_inferencex_paths([real_inferencex / REAL_GAUDI]).curves
    assert len(scenario.systems) == len(curves) == 6
    for system in scenario.systems:
        perf = system.performance
        tp = system.hardware.accelerators_per_replica
        (curve,) = [c for c in curves if (c.key.tensor_parallel, c.key.precision) == (tp, perf.benchmark_precision)]
        assert len(perf.points) == len(curve.points), system.name
        for mine, theirs in zip(perf.points, curve.points, strict=True):
            for name, value in theirs.items():
                # the scenario holds the YAML the importer wrote: six significant digits, half a unit of the sixth
                assert getattr(mine, name) == pytest.approx(value, rel=5e-6), (system.name, name)
