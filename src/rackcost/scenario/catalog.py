"""The catalogue of accelerators and systems the package ships (``rackcost/data/catalog.yaml``), validated by
pydantic, and a scenario's systems filled from it.

A system names an entry (``catalog: b200``); at loading, before validation, :func:`apply_catalog` fills every
figure of the entry that the system leaves out and adds a ``figures:`` entry (provenance class and source) for each
figure it fills. A figure the scenario gives wins, and so does the scenario's own ``figures:`` entry for a path.
``memory.hbm_gib_per_accelerator`` goes into a ``memory`` block the system gives, never into a new one (a memory
block needs the model's weights, which no catalogue knows).
"""

from __future__ import annotations

import copy
import difflib
from functools import lru_cache
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, model_validator

from rackcost.scenario.fields import model_in
from rackcost.scenario.price_tiers import DATA_DIR, PriceTier, price_tiers
from rackcost.scenario.systems import ProvenanceClass, System

__all__ = [
    "CATALOG_FILE",
    "FILLED_BLOCKS",
    "Catalog",
    "CatalogEntry",
    "CatalogFigure",
    "CatalogSource",
    "apply_catalog",
    "catalog",
    "catalog_entry",
    "entry_price_tiers",
    "figure_rows",
    "unknown_entry",
]

CATALOG_FILE = "catalog.yaml"
"""Name of the catalogue's data file in the ``rackcost.data`` folder."""

FILLED_BLOCKS = ("hardware", "memory")
"""The blocks of a system a catalogue entry fills."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class CatalogSource(_Strict):
    """Where a catalogue figure was published: publisher, document, date (``not recorded`` where unknown)."""

    publisher: str = Field(min_length=1, description="Who published the figure.")
    document: str = Field(min_length=1, description="The document (datasheet, post, measurement) that gives it.")
    date: str = Field(min_length=1, description="When it was published (ISO date, year-month, or 'not recorded').")

    def text(self) -> str:
        """Publisher, document and date in one line."""
        return f"{self.publisher}, {self.document}, {self.date}"


class CatalogFigure(_Strict):
    """One figure of an entry: its value, provenance class, source, and for an assumption why it was chosen."""

    value: int | float | str = Field(union_mode="left_to_right", description="The figure, in the unit its path names.")
    provenance: ProvenanceClass = Field(description="vendor, collaborative, independent or assumption.")
    source: CatalogSource
    note: str | None = Field(default=None, description="How the value was derived from the source, if it was.")
    why: str | None = Field(default=None, description="For an assumption: why this value was chosen.")

    @model_validator(mode="after")
    def _assumption_says_why(self) -> CatalogFigure:
        if self.provenance is ProvenanceClass.assumption and not self.why:
            raise ValueError("an assumption must say why it was chosen (field 'why')")
        return self

    def source_text(self, entry: str) -> str:
        """The ``source`` of the scenario figure it fills: the entry, the original source and the note."""
        note = f"; {self.note}" if self.note else ""
        return f"rackcost catalogue entry {entry}: {self.source.text()}{note}"

    def scenario_figure(self, entry: str) -> dict[str, str]:
        """The ``figures:`` entry of a scenario value it fills."""
        out = {"provenance": self.provenance.value, "source": self.source_text(entry)}
        if self.why:
            out["why"] = self.why
        return out


def _field_type(path: str) -> Any:
    """The annotated type of the system field at ``path`` (``hardware.accelerator_rated_w``), or a message why not."""
    parts = path.split(".")
    if len(parts) != 2 or parts[0] not in FILLED_BLOCKS:
        return f"must be a field of one of the blocks {', '.join(FILLED_BLOCKS)} (block.field), got {path!r}"
    block = model_in(System.model_fields[parts[0]].annotation)
    if parts[1] not in block.model_fields or parts[1] == "source":
        close = difflib.get_close_matches(parts[1], list(block.model_fields), n=1)
        hint = f"; did you mean `{parts[0]}.{close[0]}`?" if close else ""
        return f"{parts[0]} has no field {parts[1]!r}{hint}"
    info = block.model_fields[parts[1]]
    return TypeAdapter(info.annotation if not info.metadata else _annotated(info.annotation, info.metadata))


def _annotated(annotation: Any, metadata: list[Any]) -> Any:
    from typing import Annotated

    return Annotated[(annotation, *metadata)]


class CatalogEntry(_Strict):
    """One accelerator or system: what it is, the curves that match it, its figures and what it leaves out."""

    name: str = Field(min_length=1, description="The product and its packaging.")
    vendor: str = Field(min_length=1)
    form: str = Field(min_length=1, description="How it is packaged (server, rack) and cooled.")
    inferencex_hardware: list[str] = Field(
        min_length=1, description="InferenceX's `hw` keys of results measured on it (which curves match)."
    )
    price_tier_gpu: str | None = Field(default=None, description="Its key in InferenceX's price tiers, if any.")
    figures: dict[str, CatalogFigure] = Field(min_length=1)
    not_given: dict[str, str] = Field(default_factory=dict, description="Figures left out, and why.")

    @model_validator(mode="after")
    def _figures_fit_the_schema(self) -> CatalogEntry:
        problems = []
        for path, figure in self.figures.items():
            adapter = _field_type(path)
            if isinstance(adapter, str):
                problems.append(f"figures.{path}: {adapter}")
                continue
            try:
                adapter.validate_python(figure.value)
            except ValidationError as exc:
                problems.append(f"figures.{path}: {exc.errors(include_url=False)[0]['msg']}, got {figure.value!r}")
        both = sorted(set(self.figures) & set(self.not_given))
        if both:
            problems.append(f"not_given: {', '.join(both)} also given under figures")
        if self.price_tier_gpu is not None and self.price_tier_gpu not in {t.gpu for t in price_tiers().values()}:
            problems.append(f"price_tier_gpu: no GPU {self.price_tier_gpu!r} in InferenceX's price tiers")
        if problems:
            raise ValueError("; ".join(problems))
        return self

    @property
    def accelerator(self) -> str | None:
        """The accelerator's name (``hardware.accelerator``), if the entry gives it."""
        figure = self.figures.get("hardware.accelerator")
        return None if figure is None else str(figure.value)


class Catalog(_Strict):
    """The catalogue: entries by key (the name a scenario's ``catalog:`` gives)."""

    entries: dict[str, CatalogEntry] = Field(min_length=1)


@lru_cache(maxsize=1)
def catalog() -> Catalog:
    """The catalogue the package ships, read and validated once.

    Raises
    ------
    ValueError
        The data file is not a valid catalogue (naming the file and the entry at fault).
    """
    path = DATA_DIR / CATALOG_FILE
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    try:
        return Catalog.model_validate(data)
    except ValidationError as exc:
        lines = [f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors(include_url=False)]
        raise ValueError(f"{path.name}: not a valid catalogue: " + "; ".join(lines)) from None


def unknown_entry(name: object) -> str:
    """The message of a catalogue name that names no entry: the entry it most likely means, else every entry.

    Examples
    --------
    >>> unknown_entry("b20")
    "no catalogue entry 'b20'; did you mean `b200`? (`rackcost catalog` lists them)"
    """
    keys = list(catalog().entries)
    close = difflib.get_close_matches(str(name).lower(), keys, n=1, cutoff=0.6)
    hint = f"did you mean `{close[0]}`?" if close else f"the entries are {', '.join(keys)}"
    return f"no catalogue entry {str(name)!r}; {hint} (`rackcost catalog` lists them)"


def catalog_entry(name: str) -> CatalogEntry:
    """The entry of that key (case-insensitive).

    Raises
    ------
    KeyError
        No entry of that name; the message says which one it most likely means (:func:`unknown_entry`).
    """
    found = catalog().entries.get(str(name).lower())
    if found is None:
        raise KeyError(unknown_entry(name))
    return found


def entry_price_tiers(entry: CatalogEntry) -> list[PriceTier]:
    """InferenceX's price tiers of the entry's GPU ($/GPU-hour, each with its source), none when it has no tier."""
    if entry.price_tier_gpu is None:
        return []
    return [t for t in price_tiers().values() if t.gpu == entry.price_tier_gpu]


def figure_rows(key: str, entry: CatalogEntry) -> list[dict[str, Any]]:
    """The entry's figures and price tiers as flat records (for ``rackcost catalog``'s json and csv)."""
    rows: list[dict[str, Any]] = [
        {
            "entry": key,
            "path": path,
            "value": f.value,
            "provenance": f.provenance.value,
            "publisher": f.source.publisher,
            "document": f.source.document,
            "date": f.source.date,
            "note": f.note or "",
            "why": f.why or "",
        }
        for path, f in entry.figures.items()
    ]
    rows += [
        {
            "entry": key,
            "path": f"price_tier.{t.tier}",
            "value": t.usd_per_gpu_hour,
            "provenance": t.provenance,
            "publisher": t.publisher,
            "document": t.document,
            "date": t.date,
            "note": f"USD per GPU-hour; {t.meaning}" + (f"; {t.note}" if t.note else ""),
            "why": "",
        }
        for t in entry_price_tiers(entry)
    ]
    return rows


def apply_catalog(data: Any) -> tuple[Any, list[tuple[str, str]], set[str]]:
    """A scenario's plain data with each system's catalogue entry filled in, and the problems found.

    Parameters
    ----------
    data
        A scenario as plain data; not modified. Anything not a mapping with a list of systems is returned as it
        is (the schema says what is wrong with it).

    Returns
    -------
    data, problems, unfilled
        A copy with every figure the named entries give and the systems leave out filled in, each with a
        ``figures:`` entry (unless the scenario has one at that path); ``(path, message)`` for each system that
        names no entry (with the entry it most likely means) or names one on an API system; and the YAML paths an
        unknown entry left unfilled (their "required field is missing" is left out of the problems).
    """
    systems = data.get("systems") if isinstance(data, dict) else None
    if not isinstance(systems, list) or not any(isinstance(s, dict) and "catalog" in s for s in systems):
        return data, [], set()
    out = copy.deepcopy(data)
    problems: list[tuple[str, str]] = []
    unfilled: set[str] = set()
    figures = out.get("figures") if isinstance(out.get("figures"), dict) else None
    added: dict[str, Any] = {}
    for i, system in enumerate(out["systems"]):
        name = system.get("catalog") if isinstance(system, dict) else None
        if not isinstance(name, str):
            continue  # absent, or not text: the schema says so
        at = f"systems[{i}]"
        if name.lower() not in catalog().entries:
            problems.append((f"{at}.catalog", unknown_entry(name)))
            # the figures an entry would have filled are not reported missing as well: one mistake, one problem
            unfilled |= {f"{at}.{path}" for e in catalog().entries.values() for path in e.figures}
            continue
        if system.get("api") is not None:
            problems.append((f"{at}.catalog", "an API system runs no hardware of its own: remove catalog or api"))
            continue
        key = name.lower()
        for path, figure in catalog().entries[key].figures.items():
            block, field = path.split(".")
            given = system.get(block)
            if given is None and block == "hardware":
                given = system[block] = {}
            if not isinstance(given, dict) or field in given:
                continue  # no memory block (never added), a block that is not a mapping, or the scenario's value
            given[field] = figure.value
            added[f"{at}.{path}"] = figure.scenario_figure(key)
    if added:
        merged = dict(figures or {})
        for path, figure in added.items():
            merged.setdefault(path, figure)
        if figures is not None or "figures" not in out:
            out["figures"] = merged
    return out, problems, unfilled
