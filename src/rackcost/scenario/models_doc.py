"""A models document: several workloads (models) over one fleet's systems (docs/model.md, Several models, one fleet).

A single-workload scenario is left as it is. A models document gives the shared parts once (``facility``,
``finance``, ``fleet``, and each system type's ``hardware`` and ``costs`` under ``systems``) and lists the models
under ``workloads``: each its ``workload``, ``slo``, ``demand`` (or ``demand_profile``) and the systems it may run on,
by name, each with its curve for that model (``performance``, optionally ``memory`` and its own
``accelerators_per_replica``). Each model is then an ordinary scenario (:meth:`ModelsDocument.scenarios`), validated
by the scenario's own rules; a problem found there is reported at the document's own YAML path.
"""

from __future__ import annotations

import copy
import os
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from rackcost.errors import Problem, ScenarioError, check_argument
from rackcost.scenario.fields import Name
from rackcost.scenario.loading import (
    bundled_file,
    in_file_order,
    problems_from_validation,
    read_text_file,
    read_yaml_document,
    scenario_from_dict,
)
from rackcost.scenario.schema import Scenario
from rackcost.scenario.yaml_paths import YamlPath, format_path, parse_path

__all__ = [
    "BUNDLED_KIND",
    "ModelEntry",
    "ModelScenario",
    "ModelSystem",
    "ModelsDocument",
    "SharedSystem",
    "load_models",
    "models_from_dict",
    "models_from_yaml",
    "path_in_document",
    "unnamed_systems",
]

BUNDLED_KIND = "scenarios/models"
"""Where bundled models documents are (beside the single-workload scenarios, in their own folder)."""

_PER_MODEL = ("workload", "slo", "demand", "demand_profile")
_SHARED = ("facility", "finance", "fleet")
_ENTRY_SYSTEM_KEYS = ("provenance", "performance", "memory")


class _Block(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ModelSystem(_Block):
    """A system a model may run on: the shared system's name and the model's own curve on it."""

    name: Name = Field(description="Name of a system under the document's `systems`.")
    provenance: dict[str, Any] | None = Field(
        default=None, description="Who reported this model's curve on the system; default the system's."
    )
    performance: dict[str, Any] = Field(description="The model's curve on this system (as a scenario's).")
    memory: dict[str, Any] | None = Field(default=None, description="The model's KV-cache memory block, if any.")
    accelerators_per_replica: int | None = Field(
        default=None, ge=1, description="This model's replica size on the system; default the system's."
    )


class SharedSystem(_Block):
    """A system type of the fleet: its name, checked here (the models name it), and its ``hardware`` and ``costs``,
    which each model's scenario checks by the scenario's own rules."""

    model_config = ConfigDict(extra="allow")

    name: Name = Field(description="Name of the system type, by which each model names the systems it may use.")


class ModelEntry(_Block):
    """One model of the fleet: its workload, SLO, demand and the systems it may use."""

    name: Name = Field(description="Name of the model in the results.")
    workload: dict[str, Any]
    slo: dict[str, Any]
    demand: list[Any] | dict[str, Any] | None = None
    demand_profile: dict[str, Any] | None = None
    systems: list[ModelSystem] = Field(min_length=1)


class ModelsDocument(_Block):
    """Several models over one fleet's systems (see the module docstring)."""

    name: Name
    description: str | None = None
    placement: Literal["shared", "separate"] = Field(
        default="shared",
        description="shared: the models' nodes of one system type are packed onto one pool of racks; separate: "
        "each model on racks of its own.",
    )
    attribution: Literal["reservation", "usage"] = Field(
        default="reservation", description="The rule that splits the shared racks' cost (docs/model.md)."
    )
    facility: dict[str, Any]
    finance: dict[str, Any] | None = None
    fleet: dict[str, Any] | None = None
    systems: list[SharedSystem] = Field(min_length=1)
    workloads: list[ModelEntry] = Field(min_length=1)
    figures: dict[str, Any] = Field(default_factory=dict)


@dataclass(frozen=True)
class ModelScenario:
    """One model of a document as an ordinary scenario, and where its systems are in the document.

    Attributes
    ----------
    name
        The model's name (``workloads[i].name``).
    index
        Its position under ``workloads``.
    scenario
        The model's scenario: its workload, SLO and demand, the shared blocks, its systems.
    system_indices
        For each of the scenario's systems, its position under the document's ``systems``.
    """

    name: str
    index: int
    scenario: Scenario
    system_indices: tuple[int, ...]


def _doc_loc(loc: YamlPath, i: int, entry: dict[str, Any], shared_index: tuple[int, ...]) -> YamlPath:
    """The document's YAML path of a path in model ``i``'s scenario."""
    if not loc:
        return ("workloads", i)
    head = loc[0]
    if head in _PER_MODEL:
        return ("workloads", i, *loc)
    if loc == ("systems",):  # the model's list of systems as a whole (a name given twice)
        return ("workloads", i, "systems")
    if head == "systems" and len(loc) > 1 and isinstance(loc[1], int) and loc[1] < len(shared_index):
        j, rest = loc[1], loc[2:]
        mine = entry["systems"][j]
        if rest and rest[0] in _ENTRY_SYSTEM_KEYS:
            return ("workloads", i, "systems", j, *rest)
        if rest[:2] == ("hardware", "accelerators_per_replica") and "accelerators_per_replica" in mine:
            return ("workloads", i, "systems", j, "accelerators_per_replica")
        if rest == ("name",):
            return ("workloads", i, "systems", j, "name")
        return ("systems", shared_index[j], *rest)
    return loc


def _scenario_key(key: str, i: int, shared_index: tuple[int, ...]) -> list[str]:
    """The keys in model ``i``'s scenario of a key of the document's ``figures`` (none when it is another's)."""
    loc = parse_path(key)
    if loc[:2] == ("workloads", i):
        rest = loc[2:]
        if rest[:1] == ("systems",) and len(rest) > 1:
            tail = rest[2:]
            if tail[:1] == ("accelerators_per_replica",):
                tail = ("hardware", *tail)
            return [format_path(("systems", rest[1], *tail))]
        return [format_path(rest)] if rest else []
    if loc[:1] == ("workloads",):
        return []
    if loc[:1] == ("systems",) and len(loc) > 1:
        return [format_path(("systems", j, *loc[2:])) for j, k in enumerate(shared_index) if k == loc[1]]
    return [key]


def _system_indices(doc: dict[str, Any], i: int, file: str, lines: dict[YamlPath, int] | None) -> tuple[int, ...]:
    """Where each system model ``i`` names is under the document's ``systems``."""
    by_name = {s["name"]: k for k, s in enumerate(doc["systems"])}  # (names checked: text, each once)
    problems, found = [], []
    for j, mine in enumerate(doc["workloads"][i]["systems"]):
        k = by_name.get(mine["name"])
        if k is None:
            loc = ("workloads", i, "systems", j, "name")
            names = ", ".join(f"'{n}'" for n in by_name)
            message = f"no system of that name under `systems` (expected one of {names})"
            problems.append(Problem(format_path(loc), message, file, None if lines is None else lines.get(loc)))
        found.append(-1 if k is None else k)
    if problems:
        raise ScenarioError(problems)
    return tuple(found)


def _model_data(doc: dict[str, Any], i: int, index: tuple[int, ...]) -> dict[str, Any]:
    """Model ``i``'s scenario as plain data: its own blocks, the shared ones merged (copies: each model validates
    its own), its figures (the document's entries, read only)."""
    entry = doc["workloads"][i]
    systems = []
    for mine, k in zip(entry["systems"], index, strict=True):
        system = copy.deepcopy(doc["systems"][k])
        system.update({key: mine[key] for key in _ENTRY_SYSTEM_KEYS if mine.get(key) is not None})
        if mine.get("accelerators_per_replica") is not None and isinstance(system.get("hardware"), dict):
            system["hardware"]["accelerators_per_replica"] = mine["accelerators_per_replica"]
        systems.append(system)
    data: dict[str, Any] = {"name": f"{doc['name']}: {entry['name']}"}
    if doc.get("description"):
        data["description"] = doc["description"]
    data.update({key: entry[key] for key in _PER_MODEL if entry.get(key) is not None})
    data.update({key: copy.deepcopy(doc[key]) for key in _SHARED if doc.get(key) is not None})
    data["systems"] = systems
    data["figures"] = {new: value for key, value in doc["figures"].items() for new in _scenario_key(key, i, index)}
    return data


def _at_document(
    p: Problem, i: int, entry: dict[str, Any], index: tuple[int, ...], file: str, lines: dict[YamlPath, int] | None
) -> Problem:
    """A problem of model ``i``'s scenario, at the document's YAML path and line."""
    if p.path.startswith("workloads"):  # at the document's path already
        return p
    if not p.path:
        return Problem(format_path(("workloads", i)), p.message, file)
    if p.path.startswith("figures."):  # a figures key of the model's scenario: the document's key it came from
        key = format_path(_doc_loc(parse_path(p.path.removeprefix("figures.")), i, entry, index))
        return Problem(f"figures.{key}", p.message, file, None if lines is None else lines.get(("figures", key)))
    loc = _doc_loc(parse_path(p.path), i, entry, index)
    return Problem(format_path(loc), p.message, file, None if lines is None else lines.get(loc))


def models_from_dict(
    data: Any, file: str = "<models>", lines: dict[YamlPath, int] | None = None
) -> tuple[ModelsDocument, list[ModelScenario]]:
    """Validate a models document and each model's scenario.

    Returns
    -------
    document, models
        The document, and each model as a scenario (:class:`ModelScenario`), in the order of ``workloads``.

    Raises
    ------
    ScenarioError
        Every problem, each at the document's YAML path (and line, when ``lines`` is given).
    """
    if not isinstance(data, dict):
        raise ScenarioError([Problem("", f"expected a mapping with `workloads`, got {type(data).__name__}", file)])
    if "workloads" not in data and "workload" in data:
        message = "a single-workload scenario, not a models document (which lists `workloads:`); use rackcost evaluate"
        raise ScenarioError([Problem("", message, file)])
    try:
        doc = ModelsDocument.model_validate(data)
    except ValidationError as exc:
        raise ScenarioError(in_file_order(problems_from_validation(exc, file, lines))) from None
    for block, names in (("systems", [s.name for s in doc.systems]), ("workloads", [e.name for e in doc.workloads])):
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            what = "system" if block == "systems" else "model"
            line = None if lines is None else lines.get((block,))
            raise ScenarioError([Problem(block, f"{what} names must differ; given twice: {twice}", file, line)])
    plain = doc.model_dump(mode="python")  # nested values as given (a null stays null for the scenario to judge)
    problems: list[Problem] = []
    out: list[ModelScenario] = []
    for i, entry in enumerate(plain["workloads"]):
        index: tuple[int, ...] = ()
        try:
            index = _system_indices(plain, i, file, lines)
            scenario = scenario_from_dict(_model_data(plain, i, index), file)
        except ScenarioError as exc:
            problems += [_at_document(p, i, entry, index, file, lines) for p in exc.problems]
            continue
        out.append(ModelScenario(entry["name"], i, scenario, index))
    if problems:  # a shared system's problem is found by every model that runs on it: said once
        raise ScenarioError(in_file_order(list(dict.fromkeys(problems))))
    return doc, out


def path_in_document(doc: ModelsDocument, model: ModelScenario, path: str) -> str:
    """The document's YAML path of a YAML path in ``model``'s scenario (``systems[0].performance`` is the model's own
    curve, under ``workloads[i].systems[0]``; ``systems[0].hardware`` the shared system type's)."""
    entry = doc.workloads[model.index].model_dump(mode="python")
    return format_path(_doc_loc(parse_path(path), model.index, entry, model.system_indices))


def unnamed_systems(doc: ModelsDocument, models: list[ModelScenario]) -> list[str]:
    """The document's system types no model names, each as a sentence with its YAML path: they are not evaluated, so
    their figures are not checked (a warning of :func:`rackcost.evaluate_models`, a note of ``rackcost validate``)."""
    named = {k for m in models for k in m.system_indices}
    return [
        f"systems[{k}] ({s.name!r}): no model names it under its `systems`, so it is not evaluated"
        for k, s in enumerate(doc.systems)
        if k not in named
    ]


def models_from_yaml(text: str, file: str = "<models>") -> tuple[ModelsDocument, list[ModelScenario]]:
    """Parse a models document's YAML text (safe loader) and validate it (:func:`models_from_dict`)."""
    check_argument("rackcost.models_from_yaml", "text", text, str, "the YAML text of a models document")
    data, lines, problems = read_yaml_document(text, file, "models document")
    if problems:
        raise ScenarioError(problems)
    return models_from_dict(data, file, lines)


def _bundled(name: str, missing_ok: bool = False) -> Any:
    return bundled_file(BUNDLED_KIND, name, missing_ok)


def load_models(path: str | os.PathLike[str]) -> tuple[ModelsDocument, list[ModelScenario]]:
    """Load a models document: a YAML file, or the name of a bundled one (in ``scenarios/models``).

    Raises
    ------
    ScenarioError
        Every problem, each naming the file, YAML path and line, and what was expected.
    """
    check_argument("rackcost.load_models", "path", path, (str, os.PathLike), "a file path or a bundled name")
    name, text = read_models_text(path)
    return models_from_yaml(text, name)


def read_models_text(path: str | os.PathLike[str]) -> tuple[str, str]:
    """A models document's name as given (its file, or a bundled one's path) and its text, unparsed (a report's
    appendix shows it as written).

    Raises
    ------
    ScenarioError
        The file cannot be read as text (missing, a folder, too large, not UTF-8).
    """
    return read_text_file(path, _bundled, "models document")
