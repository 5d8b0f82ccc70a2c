"""The package face: names load on first use, and the console script pauses the collector only while importing."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

import rackcost


def _run(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_import_rackcost_loads_no_numeric_library() -> None:
    out = _run(
        "import sys, rackcost; print(sorted(m for m in ('numpy', 'scipy', 'pydantic', 'yaml') if m in sys.modules))"
    )
    assert out == "[]"


def test_every_public_name_resolves_to_its_module_object() -> None:
    for name in rackcost.__all__:
        value = getattr(rackcost, name)
        module = importlib.import_module(rackcost._LAZY[name])
        assert value is (module if name in rackcost._CORE_MODULES else getattr(module, name)), name
    assert set(rackcost.__all__) == set(rackcost._LAZY)
    assert set(rackcost.__all__) <= set(dir(rackcost))


def test_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no_such_name"):
        rackcost.no_such_name  # noqa: B018


def test_from_import_of_a_lazy_name_works_in_a_fresh_interpreter() -> None:
    out = _run("from rackcost import evaluate, queueing, ScenarioError; print(evaluate.__module__, queueing.__name__)")
    assert out == "rackcost.evaluation.chain rackcost.model.queues.queueing"


def test_console_entry_runs_the_command_with_the_collector_on_and_the_imports_frozen() -> None:
    code = (
        "import gc, sys\n"
        "import rackcost.cli.entry as entry\n"
        "entry.main = lambda: print(gc.isenabled(), gc.get_freeze_count() > 0)\n"
        "from rackcost.cli import console\n"
        "gc.unfreeze()\n"
        "console.main()\n"
    )
    assert _run(code) == "True True"


def test_the_core_modules_keep_their_documented_short_names() -> None:
    """``rackcost.queueing`` and the other documented building blocks are the modules of ``rackcost.model``, as
    attributes after ``import rackcost`` and as import paths, in a fresh interpreter."""
    code = (
        "import rackcost\n"
        "mods = [rackcost.sizing, rackcost.performance, rackcost.queueing, rackcost.power, rackcost.finance]\n"
        "import rackcost.finance, rackcost.model.costs.finance\n"
        "from rackcost.queueing import erlang_c\n"
        "from rackcost.model.queues.queueing import erlang_c as core_erlang_c\n"
        "same = rackcost.finance is rackcost.model.costs.finance\n"
        "print([m.__name__ for m in mods], same, erlang_c is core_erlang_c)\n"
    )
    names = [f"rackcost.model.{n}" for n in ("fleets.sizing", "replica.performance", "queues.queueing")]
    names += ["rackcost.model.energy.power", "rackcost.model.costs.finance"]
    assert _run(code) == f"{names} True True"
