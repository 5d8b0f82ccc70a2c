"""The kinds of capacity source a buying plan mixes, one definition each (docs/model.md, "The buying plan").

A kind is one :class:`SourceKind`, registered by name (:func:`register`). Everything that must know what a kind
means asks its object instead of comparing names:

- the scenario schema (:mod:`rackcost.scenario.plan_blocks`) accepts ``plan.sources[].kind`` among the registered
  names, and a source's optional fields only where its kind reads them (:meth:`SourceKind.reads`);
- the program (:mod:`rackcost.model.buying.plan`, :mod:`rackcost.model.buying.plan_problem`) holds a source's units by
its
  :class:`Holding` law, and charges start-up hours where :attr:`SourceKind.startup` says;
- the evaluation (:mod:`rackcost.evaluation.plan_sources`, :mod:`rackcost.evaluation.planning`) evaluates the
  source's system paid as its :attr:`SourceKind.payment` says, and names its units in the plan's tables by
  :attr:`SourceKind.units`.

A new kind that holds its units by one of the four holding laws is one :class:`SourceKind` and one call of
:func:`register`, wherever it is defined; a new holding law is a new way of writing the program's columns and rows
(:mod:`rackcost.model.buying.plan`: the program, the rounding to whole units and its repair) with its own independent
check and brute-force enumeration (:mod:`rackcost.model.buying.plan_problem`, :mod:`rackcost.model.buying.plan_brute`),
written beside the four (docs/architecture.md, "Plan sources", says why these are not one object).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from rackcost.model.strategies import Payment

__all__ = [
    "API",
    "KIND_FIELDS",
    "ON_DEMAND",
    "OWNED",
    "RESERVED",
    "SPOT",
    "Holding",
    "SourceKind",
    "kind_named",
    "kind_names",
    "kinds",
    "register",
    "unregister",
]


class Holding(StrEnum):
    """How a kind's units are held in the program: what its columns are and which rows tie them."""

    bought = "bought"
    """Whole units held for whole quarters, never released; none added before the source's lead time."""
    term = "term"
    """Whole units committed for a term of quarters from the quarter each starts, paid every hour of it."""
    per_block = "per_block"
    """Whole units held in each block of hours, as many as the block needs."""
    rate = "rate"
    """A continuous rate held in each block (one unit carries one request/s), up to the source's limit."""

    @property
    def whole(self) -> bool:
        """Held in whole units (else a continuous rate)."""
        return self is not Holding.rate

    @property
    def per_quarter(self) -> bool:
        """The same units in every block of a quarter (they may start with units already held)."""
        return self in (Holding.bought, Holding.term)


@dataclass(frozen=True, eq=False)
class SourceKind:
    """One kind of capacity source: its name and everything the schema, the program and the tables read of it.

    Attributes
    ----------
    name
        As written in a scenario (``plan.sources[].kind``) and in every table.
    payment
        How its system is paid when its fleet is evaluated: owned (the system's ``costs``, capex through the
        capital recovery factor), rented per accelerator-hour at the source's price (``rent reserved``: the fleet
        held is billed), or per token through an API.
    holding
        How its units are held in the program (:class:`Holding`).
    words
        The kind in a sentence ("on-demand").
    units
        The suffix of its units column in the plan's per-quarter table (``"<source>: <suffix>"``), the unit of
        that column's header in the report, and the unit of its holdings in words.
    description
        One line for the docs: what the kind is.
    startup
        Pays start-up hours once a day on its most units of the day (``startup_minutes``).
    preempted
        Serves ``1 - preemptions x refill`` of its held time (``preemptions_per_hour``, ``refill_minutes``).
    """

    name: str
    payment: Payment
    holding: Holding
    words: str
    units: tuple[str, str, str]
    description: str
    startup: bool = False
    preempted: bool = False

    def __str__(self) -> str:
        return self.name

    def __copy__(self) -> SourceKind:
        return self  # one object per kind: a copied scenario keeps the registry's object

    def __deepcopy__(self, memo: dict[int, Any]) -> SourceKind:
        return self

    def __reduce__(self) -> tuple[Callable[[str], SourceKind], tuple[str]]:
        return kind_named, (self.name,)  # pickled by name, read back as the registry's object

    @property
    def has_fleet(self) -> bool:
        """Runs hardware the model sizes (not an API)."""
        return self.payment.has_fleet

    def reads(self, field: str) -> bool:
        """Whether a source of this kind reads the optional field ``field`` of its scenario block."""
        return _READS[field](self)


_READS: dict[str, Callable[[SourceKind], bool]] = {
    "usd_per_accelerator_hour": lambda k: k.payment.rented,
    "includes_power_and_facility": lambda k: k.payment.rented,
    "lead_time_quarters": lambda k: k.holding is Holding.bought,
    "initial_units": lambda k: k.holding.per_quarter,
    "max_units": lambda k: k.has_fleet,
    "term_quarters": lambda k: k.holding is Holding.term,
    "startup_minutes": lambda k: k.startup,
    "preemptions_per_hour": lambda k: k.preempted,
    "refill_minutes": lambda k: k.preempted,
}
"""The optional fields of a source block that only some kinds read: field -> whether a kind reads it."""
KIND_FIELDS: tuple[str, ...] = tuple(_READS)
"""The optional fields of a source block (``plan.sources[]``) that only some kinds read (:meth:`SourceKind.reads`)."""

_REGISTRY: dict[str, SourceKind] = {}


def register(kind: SourceKind) -> SourceKind:
    """Add a kind (its name not yet taken); it is accepted by the schema and the program from then on.

    Raises
    ------
    ValueError
        The name is taken, is not a plain lower-case word (``[a-z_]+``), or the kind pairs an API's payment with
        whole units (or a fleet with a continuous rate).
    """
    if not (kind.name and kind.name.replace("_", "").isalpha() and kind.name.islower()):
        raise ValueError(f"a source kind's name is a lower-case word (letters and _), got {kind.name!r}")
    if kind.name in _REGISTRY:
        raise ValueError(f"the source kind {kind.name!r} is registered already")
    if kind.has_fleet != kind.holding.whole:
        raise ValueError(f"{kind.name}: a kind with a fleet holds whole units, an API a continuous rate")
    _REGISTRY[kind.name] = kind
    return kind


def unregister(name: str) -> None:
    """Remove the kind called ``name`` (a test's toy kind); the built-in five stay."""
    if name in _BUILT_IN:
        raise ValueError(f"the built-in source kind {name!r} cannot be removed")
    _REGISTRY.pop(name, None)


def kinds() -> tuple[SourceKind, ...]:
    """Every registered kind, in the order registered."""
    return tuple(_REGISTRY.values())


def kind_names() -> tuple[str, ...]:
    """Every registered kind's name, in the order registered."""
    return tuple(_REGISTRY)


def kind_named(name: str) -> SourceKind:
    """The registered kind called ``name``.

    Raises
    ------
    KeyError
        No kind has that name (the message lists the names).
    """
    try:
        return _REGISTRY[name]
    except (KeyError, TypeError):
        raise KeyError(f"no source kind {name!r}; the kinds are {', '.join(_REGISTRY)}") from None


OWNED = register(
    SourceKind(
        "owned",
        Payment.own,
        Holding.bought,
        "owned",
        ("racks", "racks", "racks"),
        "whole racks of a system with `costs`, bought with a lead time and kept",
    )
)
RESERVED = register(
    SourceKind(
        "reserved",
        Payment.rent_reserved,
        Holding.term,
        "reserved",
        ("most replicas", "replicas", "replicas"),
        "a system's replicas rented for a term of quarters, paid every hour of it",
    )
)
ON_DEMAND = register(
    SourceKind(
        "on_demand",
        Payment.rent_reserved,
        Holding.per_block,
        "on-demand",
        ("most replicas", "most replicas", "replicas"),
        "a system's replicas rented for the hours they are needed, started once a day",
        startup=True,
    )
)
SPOT = register(
    SourceKind(
        "spot",
        Payment.rent_reserved,
        Holding.per_block,
        "spot",
        ("most replicas", "most replicas", "replicas"),
        "a system's replicas rented for the hours they are needed, preempted now and then",
        preempted=True,
    )
)
API = register(
    SourceKind(
        "api",
        Payment.api,
        Holding.rate,
        "API",
        ("peak rps", "most requests/s", "requests/s"),
        "an API system: its token prices, up to its rate limit",
    )
)
_BUILT_IN = frozenset(_REGISTRY)
