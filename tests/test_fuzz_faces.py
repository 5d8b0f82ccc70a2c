"""The fuzzer of the analyses beyond evaluate (tests/fuzzing_faces.py) at a small budget: scenarios at the edges of
their ranges through the Monte Carlo, "how sure", the tornado, break-even, the site budget and the simulator, each
keeping the contract (no traceback; finite figures; problems at the scenario's file and a YAML path; a simulation
too large refused with its estimate). ``benchmarks/fuzz_faces.py`` runs the same strategy at a large budget, with
counts."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from fuzzing import Case, nudged_scenarios
from fuzzing_faces import SITE_KW, check_faces
from rackcost.model.queues.routers import router_names


@settings(max_examples=12, deadline=None)  # six analyses an example: 1-5 s
@given(nudged_scenarios(), st.sampled_from(SITE_KW), st.sampled_from(router_names()))
def test_every_analysis_of_a_scenario_at_its_edges_keeps_the_contract(case: Case, site_kw: float, routing: str) -> None:
    assert check_faces(case.text, site_kw, routing)
