"""Trace readers (rackcost.analysis.trace_files): rackcost's CSV, the Azure LLM inference trace CSV (Microsoft
AzurePublicDataset 2023; Patel et al., "Splitwise", ISCA 2024) and the Mooncake JSONL (Qin et al., "Mooncake",
FAST 2025), on small fixtures written for these tests (tests/data/traces/) and, marked ``data``, on the published
files in the shared data folder's traces/."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from rackcost.analysis.trace_files import MOONCAKE_BLOCK_TOKENS, detect_format, read_arrival_times, read_trace
from rackcost.analysis.trace_measures import measure_arrivals

TRACES = Path(__file__).parent / "data" / "traces"


def test_the_azure_trace_is_read_from_its_published_columns_across_midnight() -> None:
    trace = read_trace(TRACES / "azure_conv_small.csv")
    assert (trace.source_format, trace.columns) == ("azure", ("TIMESTAMP", "ContextTokens", "GeneratedTokens"))
    lines = (TRACES / "azure_conv_small.csv").read_text(encoding="utf-8").splitlines()[1:]
    assert trace.arrival_s.size == len(lines) == 40 and trace.has_tokens and trace.hash_ids is None
    # seconds from midnight of the first row's date, all seven sub-second digits kept: 23:59:50.3763809
    assert trace.arrival_s[0] == pytest.approx(86_390.3763809, abs=1e-9)
    first = lines[0].split(",")
    assert (trace.input_tokens[0], trace.output_tokens[0]) == (float(first[1]), float(first[2]))
    assert trace.arrival_s[-1] > 86_400  # the next day's rows follow on
    assert bool(np.all(np.diff(trace.arrival_s) >= 0))


def test_the_mooncake_trace_keeps_its_prompt_block_hashes() -> None:
    path = TRACES / "mooncake_small.jsonl"
    trace = read_trace(path)
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert trace.source_format == "mooncake" and trace.block_tokens == MOONCAKE_BLOCK_TOKENS == 512
    assert trace.columns == ("timestamp", "input_length", "output_length", "hash_ids")
    assert trace.arrival_s.tolist() == [r["timestamp"] / 1000 for r in records]  # ms from the start
    assert trace.hash_ids is not None and [h.tolist() for h in trace.hash_ids] == [r["hash_ids"] for r in records]
    assert trace.input_tokens.tolist() == [r["input_length"] for r in records]


def test_the_format_is_found_from_the_content_and_can_be_named() -> None:
    assert detect_format((TRACES / "silences.csv").read_text(encoding="utf-8")) == "csv"
    assert detect_format((TRACES / "mooncake_ticks.jsonl").read_text(encoding="utf-8")) == "mooncake"
    assert read_trace(TRACES / "silences.csv").source_format == "csv"
    with pytest.raises(ValueError, match="azure_conv_small.csv: a CSV trace needs the columns arrival_s"):
        read_trace(TRACES / "azure_conv_small.csv", "csv")
    with pytest.raises(ValueError, match="unknown trace format 'parquet'"):
        read_trace(TRACES / "silences.csv", "parquet")
    # what `rackcost trace` measures: any format's arrival times, a CSV of arrival_s alone too
    assert read_arrival_times(TRACES / "mooncake_ticks.jsonl").size == 60


def _azure(rows: list[str]) -> str:
    good = [f"2023-11-16 18:15:{k:02d}.5000000,100,10" for k in range(25)]
    return "TIMESTAMP,ContextTokens,GeneratedTokens\n" + "\n".join(good[:3] + rows + good[3:]) + "\n"


def _mooncake(lines: list[str]) -> str:
    good = [
        json.dumps({"timestamp": 500 * k, "input_length": 600, "output_length": 9, "hash_ids": [0, k]})
        for k in range(25)
    ]
    return "\n".join(good[:3] + lines + good[3:]) + "\n"


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("a.csv", _azure(["2023-11-16 18:15:61.0,100,10"]), "row 5: TIMESTAMP '2023-11-16 18:15:61.0' is not a date"),
        ("a.csv", _azure(["2023-02-30 18:15:01.0,100,10"]), "row 5: TIMESTAMP '2023-02-30 18:15:01.0' is not a date"),
        ("a.csv", _azure(["18:15:01,100,10"]), "row 5: TIMESTAMP is not a date and time"),
        ("a.csv", _azure(["2023-11-15 18:15:01.0,100,10"]), "row 5: TIMESTAMP '2023-11-15 18:15:01.0' is before"),
        ("a.csv", _azure(["2023-11-16 18:15:01.0,0,10"]), "row 5: ContextTokens must be a finite, positive number"),
        ("a.csv", _azure(["2023-11-16 18:15:01.0,100,1e300"]), "row 5: GeneratedTokens is 1e+300, more than the 1e+07"),
        ("a.csv", _azure(["2023-11-16 18:15:01.0,100,nan"]), "row 5: GeneratedTokens must be a finite"),
        ("m.jsonl", _mooncake(["[1, 2]"]), "line 4: not a JSON object"),
        ("m.jsonl", _mooncake(["{not json"]), "line 4: not a JSON object"),
        (
            "m.jsonl",
            _mooncake(['{"timestamp": 1, "input_length": 5}']),
            "line 4: a Mooncake trace line needs the keys timestamp, input_length, output_length; missing "
            "output_length",
        ),
        ("m.jsonl", _mooncake(['{"timestamp": "1", "input_length": 5, "output_length": 5, "hash_ids": []}']), ""),
        (
            "m.jsonl",
            _mooncake(['{"timestamp": true, "input_length": 5, "output_length": 5, "hash_ids": []}']),
            "line 4: timestamp is not a number",
        ),
        (
            "m.jsonl",
            _mooncake(['{"timestamp": -5, "input_length": 5, "output_length": 5, "hash_ids": []}']),
            "line 4: timestamp must be a finite, positive number",
        ),
        (
            "m.jsonl",
            _mooncake(['{"timestamp": 1, "input_length": 5, "output_length": 5}']),
            "line 4: hash_ids are on some lines and not others",
        ),
        (
            "m.jsonl",
            _mooncake(['{"timestamp": 1, "input_length": 5, "output_length": 5, "hash_ids": [1.5]}']),
            "line 4: hash_ids must be a list of integers",
        ),
        (
            "m.jsonl",
            _mooncake(['{"timestamp": 1, "input_length": 5, "output_length": 5, "hash_ids": [-1]}']),
            "line 4: hash_ids must be a list of integers",
        ),
        (
            "m.jsonl",
            _mooncake(['{"timestamp": 1e400, "input_length": 5, "output_length": 5, "hash_ids": []}']),
            "line 4: timestamp must be a finite",
        ),
        ("m.jsonl", "\n".join(_mooncake([]).splitlines()[:10]) + "\n", "needs at least 20 requests, found 10"),
        ("t.txt", "hello\n1,2,3\n", "a trace needs the columns arrival_s, input_tokens, output_tokens"),
    ],
)
def test_a_bad_value_is_refused_naming_the_file_and_its_row_or_line(
    tmp_path: Path, name: str, text: str, message: str
) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    if not message:  # a number written as a JSON string is read as that number, as a CSV cell is
        assert read_trace(path).arrival_s.size == 26
        return
    with pytest.raises(ValueError, match=re.escape(message)) as caught:
        read_trace(path)
    assert str(caught.value).startswith(f"{path}: ")


def test_a_trace_of_another_format_at_a_rate_no_demand_point_takes_is_refused(tmp_path: Path) -> None:
    """Mooncake's timestamps are ms: a file in µs read as ms is a rate 1,000 times too low; at 1e-6 requests/s and
    below the reader refuses it as it does a CSV."""
    path = tmp_path / "slow.jsonl"
    path.write_text(
        "".join(json.dumps({"timestamp": k * 1e12, "input_length": 5, "output_length": 5}) + "\n" for k in range(30)),
        encoding="utf-8",
    )
    with pytest.raises(ValueError, match="outside the 1e-06 to 1e"):
        read_trace(path)


# ---- the published traces (the shared data folder) ----------------------------------------------------------------


@pytest.mark.data
def test_the_azure_conversation_hour_as_published(shared_data: Path) -> None:
    """Azure LLM inference trace 2023, conversation (Microsoft AzurePublicDataset, CC-BY 4.0): 19,366 requests over
    about an hour; its index of dispersion about 1.1 at 0.1-1 s, 4 at 10 s and 16 at 60 s (the traces' README)."""
    path = shared_data / "traces" / "AzureLLMInferenceTrace_conv.csv"
    if not path.is_file():
        pytest.skip(f"needs {path}")
    trace = read_trace(path)
    assert trace.source_format == "azure" and trace.arrival_s.size == 19_366
    assert 3_400 < trace.span_s < 3_600 and trace.arrival_rps == pytest.approx(5.53, abs=0.01)
    measures = measure_arrivals(trace.arrival_s)
    index = dict(zip(measures.time_scales_s, measures.index, strict=True))
    assert 1.0 < index[0.1] < 1.2 and 1.2 < index[1.0] < 1.5
    assert 3.0 < index[10.0] < 5.0 and 12 < index[60.0] < 20
    assert measures.stats.gap_scv == pytest.approx(1.2, abs=0.05) and measures.disagrees


@pytest.mark.data
def test_the_mooncake_conversation_hour_as_published(shared_data: Path) -> None:
    """Mooncake conversation trace (Moonshot AI / kvcache-ai, FAST25-release, Apache-2.0): 12,031 requests on
    3-second ticks, about 90% of the gaps zero; the reader keeps a hash id per 512-token block of each prompt."""
    path = shared_data / "traces" / "mooncake_conversation_trace.jsonl"
    if not path.is_file():
        pytest.skip(f"needs {path}")
    trace = read_trace(path)
    assert trace.source_format == "mooncake" and trace.arrival_s.size == 12_031 and trace.hash_ids is not None
    assert all(h.size == -(-int(n) // 512) for h, n in zip(trace.hash_ids, trace.input_tokens, strict=True))
    measures = measure_arrivals(trace.arrival_s)
    assert measures.zero_gap_fraction == pytest.approx(0.9, abs=0.01)
    assert measures.tick_s == pytest.approx(3.0, abs=0.01)
    assert measures.stats.gap_scv > 8 and any(f.startswith("ticks:") for f in measures.findings)
