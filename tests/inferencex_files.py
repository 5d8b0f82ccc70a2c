"""InferenceX result files the tests read: the invented fixtures, and the names of the real files.

The fixtures (tests/data/inferencex_fixtures/, described in its README) are in InferenceX's formats with numbers
invented for the tests: two stage-A runs and their stage-B twins of a MoE model on 8 x MI355X (1k/1k at
concurrency 8, 8k/1k at 32), and a stage-C array of a dense 70B model on MI300X (TP2/TP4 x BF16/FP8 at
concurrency 4, 16, 64) with one H100 row that has no ISL/OSL. The real files are not in the repository: tests
marked ``data`` find them through conftest.py's ``real_inferencex`` fixture, under these names.
"""

from __future__ import annotations

from pathlib import Path

FIXTURES = Path(__file__).resolve().parent / "data" / "inferencex_fixtures"
FIXTURE_FILES = sorted(FIXTURES.glob("*.json"))
_RUN = "fp8_vllm_tp8-ep8-dpafalse_disagg-false_spec-mtp"
RAW_8 = FIXTURES / f"moe1t_1k1k_{_RUN}_conc8_mi355x-fx01.json"
AGG_8 = FIXTURES / f"agg_{RAW_8.name}"
RAW_32 = FIXTURES / f"moe1t_8k1k_{_RUN}_conc32_mi355x-fx01.json"
AGG_32 = FIXTURES / f"agg_{RAW_32.name}"
ARRAY = FIXTURES / "mi300x-h100-dense70b-results.json"
MOE = "example/moe-1t-a32b"
DENSE = "example/dense-70b-instruct"

_KIMI = "kimik2.5_{}_int4_vllm_tp8-ep1-dpafalse_disagg-false_spec-mtp_{}_MI355-gbt350-odcdh5-wbb3.json"
REAL_RAW_4, REAL_RAW_32 = _KIMI.format("1k1k", "conc4"), _KIMI.format("8k1k", "conc32")
REAL_AGG_4, REAL_AGG_32 = f"agg_{REAL_RAW_4}", f"agg_{REAL_RAW_32}"
REAL_GAUDI = "gaudi25-h100-llama33-70b-results.json"
REAL_FILES = sorted([REAL_RAW_4, REAL_RAW_32, REAL_AGG_4, REAL_AGG_32, REAL_GAUDI])
"""The real files in the schemas the importer reads today (stages A, B, C); newer schemas beside them are not."""
