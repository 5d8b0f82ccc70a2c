"""Edits of a scenario's systems as plain data: copy one, remove one, and switch how one is paid for (owned,
rented or an API), each with the provenance of every value it puts in.

Like :mod:`rackcost.scenario.edits`, every function takes the scenario as the plain dict YAML gives and returns a
new one, leaving its arguments untouched, and none validates (:func:`rackcost.scenario_from_dict` does that).

- :func:`copy_system` appends a copy of a system under a new name, its ``figures:`` entries copied with it (the
  same numbers from the same sources); :func:`remove_system` removes one (never the last), renumbering the
  figures of the systems after it; :func:`unique_name` finds a name no system has.
- :func:`plan_payment` says what switching a system to ``own``, ``rent`` or ``api`` takes: the blocks to put in and
  their figures (:class:`Switch`), or which values are missing and why (:class:`Missing`). Each block comes from,
  in order: the values the user gives, the system's own earlier block (``stash``: what it had before a previous
  switch), the scenario as loaded (the same system by name), then a starting value labelled as an assumption to be
  reviewed (:data:`DEFAULT_SOURCE`). :func:`with_payment` puts the blocks in.

Starting values, each an ``assumption`` in ``figures:`` with the reason:

- **rented**: InferenceX's published 3-year rental price of the system's accelerator (``rackcost/data/
  inferencex_price_tiers.yaml``), else the rent of another rented system of the same accelerator, else *parity*:
  what owning the system costs per accelerator-hour in the last results (its cost per day / 24 / its
  accelerators, rounded up to the cent), so that renting starts level with owning; billing ``reserved``, power and
  facility included (the schema's defaults).
- **owned**: the costs of another owned system of the same accelerator; otherwise nothing (a purchase price has no
  neutral default): the capex per accelerator and the service life are missing.
- **API**: the prices of another API system, else the scenario's ``revenue`` prices (what its tokens sell for);
  otherwise the two prices per million tokens are missing.
- **from an API to hardware**: the operating points, hardware and facility override (and provenance) of the first
  system that has hardware, copied; its costs too when it is owned.
"""

from __future__ import annotations

import copy
import math
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel

from rackcost.scenario.price_tiers import price_tiers
from rackcost.scenario.systems import Api, Costs, Rent

__all__ = [
    "DEFAULT_SOURCE",
    "HARDWARE_BLOCKS",
    "PAYMENTS",
    "PAYMENT_BLOCK",
    "Missing",
    "Payment",
    "Switch",
    "copy_system",
    "payment_of",
    "owned_usd_per_accelerator_hour",
    "plan_payment",
    "remove_system",
    "required_fields",
    "unique_name",
    "with_payment",
]

Payment = Literal["own", "rent", "api"]
PAYMENTS: tuple[Payment, ...] = ("own", "rent", "api")
PAYMENT_BLOCK: dict[Payment, str] = {"own": "costs", "rent": "rent", "api": "api"}
"""The block that says how a system is paid for."""
HARDWARE_BLOCKS = ("performance", "hardware", "facility")
"""The blocks of a system that runs hardware (an API system has none of them)."""
DEFAULT_SOURCE = "a starting value of the rackcost dashboard"
"""Start of the ``source`` of every value :func:`plan_payment` chooses itself (to be reviewed)."""
RENTAL_TIER = "rental-3-year"
_ITS = {"costs": "its costs are", "rent": "its rent is", "api": "its API prices are"}
MAX_NAME_CHARS = 200  # schema.fields.Name

_WORDS = re.compile(r"[^a-z0-9]+")
_SYSTEM_KEY = re.compile(r"^systems\[(\d+)\](.*)$")


def payment_of(system: Any) -> Payment:
    """How a system (plain data) is paid for: ``api`` with an api block, ``rent`` with a rent block, else ``own``."""
    if isinstance(system, dict) and system.get("api") is not None:
        return "api"
    if isinstance(system, dict) and system.get("rent") is not None:
        return "rent"
    return "own"


def required_fields(payment: Payment, data: dict[str, Any] | None = None) -> tuple[str, ...]:
    """The fields of the payment block that have no default (the schema's), e.g. ``("usd_per_accelerator_hour",)``;
    owning also needs a service life unless the scenario ``data`` gives one for every system (``finance``)."""
    models: dict[str, type[BaseModel]] = {"own": Costs, "rent": Rent, "api": Api}
    model = models[payment]
    required = tuple(f.alias or n for n, f in model.model_fields.items() if f.is_required())
    finance = (data or {}).get("finance")
    shared_life = isinstance(finance, dict) and isinstance(finance.get("service_life_years"), int | float | dict)
    return required + ("service_life_years",) if payment == "own" and not shared_life else required


def _systems(data: dict[str, Any]) -> list[Any]:
    systems = data.get("systems")
    return systems if isinstance(systems, list) else []


def _names(data: dict[str, Any]) -> list[str]:
    return [str(s.get("name")) if isinstance(s, dict) else "" for s in _systems(data)]


def _system(data: dict[str, Any], index: int) -> dict[str, Any]:
    systems = _systems(data)
    if not 0 <= index < len(systems) or not isinstance(systems[index], dict):
        raise IndexError(f"the scenario has {len(systems)} system(s), so there is no systems[{index}]")
    return systems[index]


def unique_name(name: str, taken: list[str], tag: str) -> str:
    """``"<name> (<tag>)"``, or ``"<name> (<tag> 2)"``, 3... the first no system has; at most 200 characters.

    Examples
    --------
    >>> unique_name("GB300", ["GB300", "GB300 (copy)"], "copy")
    'GB300 (copy 2)'
    """
    n = 1
    while True:
        suffix = f" ({tag})" if n == 1 else f" ({tag} {n})"
        candidate = name[: MAX_NAME_CHARS - len(suffix)] + suffix
        if candidate not in taken:
            return candidate
        n += 1


def _figures(data: dict[str, Any]) -> dict[str, Any]:
    given = data.get("figures")
    return given if isinstance(given, dict) else {}


def _under(key: str, path: str) -> bool:
    return key == path or key.startswith(path + ".") or key.startswith(path + "[")


def copy_system(data: dict[str, Any], index: int, name: str, *, source: dict[str, Any] | None = None) -> dict[str, Any]:
    """The scenario with a copy of system ``index`` (of ``source``, default ``data``) appended under ``name``.

    Its ``figures:`` entries are copied to the new index as they are: the copy's numbers are the same numbers from
    the same sources. (The dashboard copies the draft's system into the draft and into its baseline alike.)

    Raises
    ------
    IndexError
        ``source`` has no system ``index``.
    """
    source = data if source is None else source
    system = copy.deepcopy(_system(source, index))
    system["name"] = name
    out = copy.deepcopy(data)
    if not isinstance(out.get("systems"), list):
        out["systems"] = []
    target = f"systems[{len(out['systems'])}]"
    out["systems"].append(system)
    origin = f"systems[{index}]"
    figures = dict(_figures(out))
    for key, fig in _figures(source).items():
        if _under(str(key), origin):
            figures[target + str(key)[len(origin) :]] = copy.deepcopy(fig)
    if figures or "figures" in out:
        out["figures"] = figures
    return out


def remove_system(data: dict[str, Any], index: int) -> dict[str, Any]:
    """The scenario without system ``index``: its figures dropped, those of later systems renumbered, and
    ``baseline_system`` removed when it named it (the first system is then the baseline).

    Raises
    ------
    IndexError
        No system ``index``.
    ValueError
        It is the only system (a scenario compares at least one).
    """
    removed = _system(data, index)
    if len(_systems(data)) == 1:
        raise ValueError(f"{removed.get('name')!r} is the only system: a scenario needs at least one")
    out = copy.deepcopy(data)
    del out["systems"][index]
    if out.get("baseline_system") is not None and out.get("baseline_system") == removed.get("name"):
        del out["baseline_system"]
    if "figures" in out and isinstance(out["figures"], dict):
        figures = {}
        for key, fig in out["figures"].items():
            match = _SYSTEM_KEY.match(str(key))
            if match is None:
                figures[key] = fig
            elif int(match.group(1)) < index:
                figures[key] = fig
            elif int(match.group(1)) > index:
                figures[f"systems[{int(match.group(1)) - 1}]{match.group(2)}"] = fig
        out["figures"] = figures
    return out


# ---- how a system is paid for -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Switch:
    """What switching a system's payment puts in.

    Attributes
    ----------
    blocks
        Block name (``costs``, ``rent``, ``api``, ``performance``, ``hardware``, ``facility``, ``provenance``) ->
        its plain data.
    figures
        ``figures:`` entries of the values chosen here, keyed by the path under the system (``rent``,
        ``costs.capex_usd_per_accelerator``).
    baseline
        The blocks that are starting values or the loaded file's (they go into the dashboard's baseline with their
        figures, so they do not read as the user's edits); the others are the user's (given or stashed).
    said
        What was done, in a sentence per block chosen, for the page.
    """

    blocks: dict[str, Any] = field(default_factory=dict)
    figures: dict[str, dict[str, str]] = field(default_factory=dict)
    baseline: frozenset[str] = frozenset()
    said: tuple[str, ...] = ()

    def baseline_only(self) -> Switch:
        """The switch's baseline blocks alone, with their figures (what the dashboard puts into its baseline)."""
        return Switch(
            {b: v for b, v in self.blocks.items() if b in self.baseline},
            {k: v for k, v in self.figures.items() if k.split(".", 1)[0].split("[", 1)[0] in self.baseline},
            self.baseline,
            self.said,
        )


@dataclass(frozen=True)
class Missing:
    """A switch that cannot be made from what the scenario holds.

    Attributes
    ----------
    fields
        The values the user must give, as paths under the system (``rent.usd_per_accelerator_hour``); empty when
        no form could supply them (operating points and hardware).
    reason
        Why, naming what is missing.
    """

    fields: tuple[str, ...]
    reason: str


def _assumption(how: str, why: str) -> dict[str, str]:
    return {"provenance": "assumption", "source": f"{DEFAULT_SOURCE}: {how}", "why": why}


def _accelerator(system: dict[str, Any]) -> str:
    hardware = system.get("hardware")
    value = hardware.get("accelerator") if isinstance(hardware, dict) else None
    return str(value).strip() if value else ""


def _same_accelerator(data: dict[str, Any], index: int, accelerator: str, payment: Payment) -> int | None:
    """The first other system of this accelerator paid this way."""
    if not accelerator:
        return None
    for j, other in enumerate(_systems(data)):
        if j == index or not isinstance(other, dict) or payment_of(other) != payment:
            continue
        if _accelerator(other).lower() == accelerator.lower() and isinstance(other.get(PAYMENT_BLOCK[payment]), dict):
            return j
    return None


def _rental_tier(accelerator: str) -> Any:
    """InferenceX's 3-year rental tier of the accelerator, when its name is one InferenceX GPU as a word."""
    tiers = price_tiers()
    gpus = {t.gpu for t in tiers.values()}
    named = sorted(set(_WORDS.split(accelerator.lower())) & gpus)
    return tiers.get(f"{named[0]}:{RENTAL_TIER}") if len(named) == 1 else None


def _loaded_system(loaded: dict[str, Any] | None, name: str) -> tuple[int, dict[str, Any]] | None:
    if not isinstance(loaded, dict):
        return None
    for j, other in enumerate(_systems(loaded)):
        if isinstance(other, dict) and other.get("name") == name:
            return j, other
    return None


def _figures_under(data: dict[str, Any], index: int, block: str) -> dict[str, dict[str, str]]:
    """The figures of ``systems[index].<block>`` and below, keyed by the path under the system."""
    prefix = f"systems[{index}]"
    return {
        str(key)[len(prefix) + 1 :]: copy.deepcopy(fig)
        for key, fig in _figures(data).items()
        if _under(str(key), f"{prefix}.{block}") and isinstance(fig, dict)
    }


def _copied(what: str, name: str, index: int, source: dict[str, Any], block: str) -> dict[str, str]:
    fig = _figures(source).get(f"systems[{index}].{block}") or _figures(source).get(f"systems[{index}]")
    was = f" (its figure: {fig.get('provenance')}, {fig.get('source')})" if isinstance(fig, dict) else ""
    return _assumption(f"{what} copied from system {name}{was}", "a starting point of the switch, to be reviewed")


def plan_payment(
    data: dict[str, Any],
    index: int,
    payment: Payment,
    *,
    given: dict[str, float] | None = None,
    stash: dict[str, Any] | None = None,
    loaded: dict[str, Any] | None = None,
    owned_usd_per_accelerator_hour: dict[str, float] | None = None,
    priced_like: str | None = None,
) -> Switch | Missing:
    """What switching system ``index`` to ``payment`` puts in, or what is missing (see the module's docstring).

    Parameters
    ----------
    data
        The scenario (the dashboard's draft).
    index
        The system.
    payment
        ``own``, ``rent`` or ``api``.
    given
        Values the user typed for the payment block's required fields (:func:`required_fields`), by field name.
    stash
        The system's blocks from before an earlier switch (block name -> data; ``provenance`` of hardware under
        ``provenance:hardware``, of an API under ``provenance:api``).
    loaded
        The scenario as loaded: a system of the same name gives its block, with its figures.
    owned_usd_per_accelerator_hour
        What owning each system costs per accelerator-hour in the last results, by system name (the parity price
        of a rented system).
    priced_like
        The system whose owned cost is the parity price (a rented copy of an owned system: the original); default
        the system itself, or the one its hardware is copied from.

    Raises
    ------
    IndexError
        No system ``index``.
    """
    system = _system(data, index)
    name = str(system.get("name", f"system {index + 1}"))
    current = payment_of(system)
    stash = stash or {}
    if payment == current:
        return Switch()
    blocks: dict[str, Any] = {}
    figures: dict[str, dict[str, str]] = {}
    baseline: set[str] = set()
    said: list[str] = []
    found_loaded = _loaded_system(loaded, name)
    template: int | None = None  # the system whose hardware is copied (from an API)
    if current == "api":  # operating points and hardware first
        if all(isinstance(stash.get(b), dict) for b in ("performance", "hardware")):
            for block in HARDWARE_BLOCKS:
                if isinstance(stash.get(block), dict):
                    blocks[block] = copy.deepcopy(stash[block])
            if isinstance(stash.get("provenance:hardware"), dict):
                blocks["provenance"] = copy.deepcopy(stash["provenance:hardware"])
            said.append("its operating points and hardware are those it had before")
        elif found_loaded and all(isinstance(found_loaded[1].get(b), dict) for b in ("performance", "hardware")):
            j, other = found_loaded
            for block in (*HARDWARE_BLOCKS, "provenance"):
                if isinstance(other.get(block), dict):
                    blocks[block] = copy.deepcopy(other[block])
                    figures |= _figures_under(loaded or {}, j, block)
                    baseline.add(block)
            said.append("its operating points and hardware are those of the file as loaded")
        else:
            template = next((j for j, s in enumerate(_systems(data)) if j != index and payment_of(s) != "api"), None)
            if template is None:
                return Missing(
                    (),
                    f"{name} is an API: to run it on hardware it needs operating points and hardware, and no system "
                    "of this scenario has them to start from. Import benchmark results as a new system (Import "
                    "benchmark results, above), or write its performance and hardware blocks in the YAML tab.",
                )
            hardware_system = _system(data, template)
            tname = str(hardware_system.get("name"))
            for block in (*HARDWARE_BLOCKS, "provenance"):
                if isinstance(hardware_system.get(block), dict):
                    blocks[block] = copy.deepcopy(hardware_system[block])
                    baseline.add(block)
                    if block != "provenance":
                        figures[block] = _copied(f"the {block} block", tname, template, data, block)
            said.append(
                f"its operating points, hardware and provenance are copied from {tname}, as a starting point to be "
                "reviewed"
            )

    block = PAYMENT_BLOCK[payment]
    chosen = _payment_block(
        data,
        index,
        payment,
        template,
        given,
        stash,
        found_loaded,
        loaded,
        owned_usd_per_accelerator_hour or {},
        priced_like,
    )
    if isinstance(chosen, Missing):
        return chosen
    value, block_figures, is_baseline, sentence, copied_from = chosen
    copied = None if copied_from is None else _system(data, copied_from)
    blocks[block] = value
    figures |= block_figures
    if is_baseline:
        baseline.add(block)
    said.append(sentence)
    if payment == "api" or current == "api":
        _provenance(blocks, baseline, said, payment, system, stash, found_loaded, given, figures.get(block, {}), copied)
    return Switch(blocks, figures, frozenset(baseline), tuple(said))


_Chosen = tuple[dict[str, Any], dict[str, dict[str, str]], bool, str, int | None]
"""A payment block chosen: (block, its figures, whether it is a baseline block, a sentence, the system it was copied
from)."""


def _payment_block(
    data: dict[str, Any],
    index: int,
    payment: Payment,
    template: int | None,
    given: dict[str, float] | None,
    stash: dict[str, Any],
    found_loaded: tuple[int, dict[str, Any]] | None,
    loaded: dict[str, Any] | None,
    owned: dict[str, float],
    priced_like: str | None = None,
) -> _Chosen | Missing:
    """(block, its figures, whether it is a baseline block, a sentence, the system it was copied from) or what is
    missing: the values given, else the system's own from before, else the file's as loaded, else a starting value
    the payment finds (:func:`_rent_block`, :func:`_own_block`, :func:`_api_block`).

    ``template``: the system whose hardware was copied (switching from an API), else None (the system's own).
    """
    hardware_system = _system(data, index if template is None else template)
    block = PAYMENT_BLOCK[payment]
    required = required_fields(payment, data)
    if given and all(isinstance(given.get(f), int | float) for f in required):
        return {f: given[f] for f in required}, {}, False, f"{_ITS[block]} the values you gave", None
    if isinstance(stash.get(block), dict):
        return copy.deepcopy(stash[block]), {}, False, f"{_ITS[block]} those it had before", None
    if found_loaded and isinstance(found_loaded[1].get(block), dict):
        at, other = found_loaded
        return (
            copy.deepcopy(other[block]),
            _figures_under(loaded or {}, at, block),
            True,
            f"{_ITS[block]} those of the file as loaded",
            None,
        )
    accelerator = _accelerator(hardware_system)
    if payment == "rent":
        return _rent_block(data, index, hardware_system, accelerator, owned, priced_like)
    if payment == "own":
        return _own_block(data, index, hardware_system, accelerator, template)
    return _api_block(data, index)


def _rent_block(
    data: dict[str, Any],
    index: int,
    hardware_system: dict[str, Any],
    accelerator: str,
    owned: dict[str, float],
    priced_like: str | None,
) -> _Chosen | Missing:
    """A rent block to start from: InferenceX's price for the accelerator, else the rent of a rented system of the
    same accelerator, else what owning the system costs per accelerator-hour (parity), else missing."""
    tier = _rental_tier(accelerator) if accelerator else None
    if tier is not None:
        price = tier.usd_per_gpu_hour
        how = (
            f"InferenceX's {tier.tier} price for {tier.gpu}, ${price:g} per GPU-hour ({tier.publisher}, "
            f"{tier.document}, {tier.date}; docs/sources.md §8)"
        )
        return (
            {"usd_per_accelerator_hour": price},
            {"rent": _assumption(how, "a published rental price of the same GPU, to be replaced by a quote")},
            True,
            f"its rental price is InferenceX's {tier.tier} price for {tier.gpu}, ${price:g} per GPU-hour "
            "(docs/sources.md §8): a starting value, to be reviewed",
            None,
        )
    j = _same_accelerator(data, index, accelerator, "rent")
    if j is not None:
        other = _system(data, j)
        return (
            copy.deepcopy(other["rent"]),
            {"rent": _copied("the rent", str(other.get("name")), j, data, "rent")},
            True,
            f"its rent is copied from {other.get('name')} (the same accelerator): a starting value, to be reviewed",
            j,
        )
    hname = priced_like or str(hardware_system.get("name"))
    parity = owned.get(hname)
    if parity is not None and parity > 0:
        price = max(math.ceil(parity * 100 - 1e-9) / 100, 0.01)  # up to the cent: never cheaper by rounding
        how = (
            f"what owning {hname} costs per accelerator-hour in the last results (${parity:.2f}: its cost per "
            "day / 24 h / its accelerators, rounded up to the cent), so that renting starts level with owning"
        )
        return (
            {"usd_per_accelerator_hour": price},
            {"rent": _assumption(how, "no rental price is published for this accelerator; replace it by a quote")},
            True,
            f"its rental price is ${price:.2f} per accelerator-hour, what owning {hname} costs per "
            "accelerator-hour in the last results (renting starts level with owning): a starting value, to be "
            "reviewed",
            None,
        )
    return Missing(
        tuple(f"rent.{f}" for f in required_fields("rent")),
        f"Renting {data['systems'][index].get('name')} needs a rental price per accelerator-hour: InferenceX "
        f"publishes none for {accelerator or 'an unnamed accelerator'}, no other rented system has this "
        "accelerator, and the last results do not price owning it. Give the price below.",
    )


def _own_block(
    data: dict[str, Any], index: int, hardware_system: dict[str, Any], accelerator: str, template: int | None
) -> _Chosen | Missing:
    """A costs block to start from: an owned system's of the same accelerator, else the one whose hardware was
    copied (if owned), else missing (a purchase price has no neutral default)."""
    j = _same_accelerator(data, index, accelerator, "own")
    if j is None and template is not None and payment_of(hardware_system) == "own":
        j = template  # its hardware was copied: its costs go with it
    if j is not None:
        other = _system(data, j)
        return (
            copy.deepcopy(other["costs"]),
            {"costs": _copied("the costs", str(other.get("name")), j, data, "costs")},
            True,
            f"its costs are copied from {other.get('name')} (the same accelerator): a starting value, to be reviewed",
            j,
        )
    return Missing(
        tuple(f"costs.{f}" for f in required_fields("own", data)),
        f"Owning {data['systems'][index].get('name')} needs what it costs to buy: no owned system of this "
        f"scenario has its accelerator ({accelerator or 'not named'}) to copy costs from, and a purchase price "
        "has no neutral default. Give the capex per accelerator and the service life below (other costs start "
        "at 0; edit them after the switch).",
    )


def _api_block(data: dict[str, Any], index: int) -> _Chosen | Missing:
    """An api block to start from: another API system's prices, else the scenario's revenue prices, else
    missing."""
    required = required_fields("api")
    j = next((k for k, s in enumerate(_systems(data)) if k != index and payment_of(s) == "api"), None)
    if j is not None:
        other = _system(data, j)
        return (
            copy.deepcopy(other["api"]),
            {"api": _copied("the API prices", str(other.get("name")), j, data, "api")},
            True,
            f"its prices are copied from {other.get('name')}: a starting value, to be reviewed",
            j,
        )
    revenue = data.get("revenue")
    if isinstance(revenue, dict) and all(isinstance(revenue.get(f), int | float) for f in required):
        how = "the scenario's revenue prices (what its tokens sell for), taken as what an API charges"
        return (
            {f: revenue[f] for f in required},
            {"api": _assumption(how, "an API sells the same tokens at about their market price; to be reviewed")},
            True,
            f"its prices are {how}: a starting value, to be reviewed",
            None,
        )
    return Missing(
        tuple(f"api.{f}" for f in required),
        f"Calling {data['systems'][index].get('name')} as an API needs its prices per million input and output "
        "tokens: no other API system and no revenue prices in this scenario to start from. Give them below.",
    )


def _provenance(
    blocks: dict[str, Any],
    baseline: set[str],
    said: list[str],
    payment: Payment,
    system: dict[str, Any],
    stash: dict[str, Any],
    found_loaded: tuple[int, dict[str, Any]] | None,
    given: dict[str, float] | None,
    api_figure: dict[str, str],
    copied: dict[str, Any] | None,
) -> None:
    """Crossing between hardware and an API: who produced the figures changes too.

    To hardware: the provenance that came with the operating points, else the API's stays. To an API: the one it
    had as an API before, the file's, the one of the API system its prices were copied from, else an assumption.
    """
    if payment != "api":
        if "provenance" not in blocks:
            blocks["provenance"] = copy.deepcopy(system.get("provenance"))
        return
    if isinstance(stash.get("provenance:api"), dict):
        blocks["provenance"] = copy.deepcopy(stash["provenance:api"])
        return
    if found_loaded and found_loaded[1].get("api") is not None and isinstance(found_loaded[1].get("provenance"), dict):
        blocks["provenance"] = copy.deepcopy(found_loaded[1]["provenance"])
    elif copied is not None and isinstance(copied.get("provenance"), dict):
        blocks["provenance"] = copy.deepcopy(copied["provenance"])
    else:
        source = "prices typed in the rackcost dashboard" if given else api_figure.get("source", DEFAULT_SOURCE)
        blocks["provenance"] = {
            "class": "assumption",
            "source": f"{source} (switched from hardware to an API)",
            "notes": "Who sells this API and at what price is to be stated: edit the provenance.",
        }
        said.append("its provenance says the prices are an assumption")
    baseline.add("provenance")


def with_payment(
    data: dict[str, Any], index: int, payment: Payment, switch: Switch, *, keep: bool = False
) -> dict[str, Any]:
    """The scenario with system ``index`` paid as ``payment``: the switch's blocks put in and their figures added.

    Blocks of the other payments (and, for an API, the hardware blocks) are removed with their figures, unless
    ``keep`` (the dashboard's baseline keeps every block it ever had, so that switching back restores their
    figures). The figures under each block put in are replaced by the switch's.

    Raises
    ------
    IndexError
        No system ``index``.
    """
    _system(data, index)
    out = copy.deepcopy(data)
    system = out["systems"][index]
    prefix = f"systems[{index}]"
    gone = {"own": ("rent", "api"), "rent": ("costs", "api"), "api": ("costs", "rent", *HARDWARE_BLOCKS)}[payment]
    gone = () if keep else gone
    for block in gone:
        system.pop(block, None)
    for block, value in switch.blocks.items():
        system[block] = copy.deepcopy(value)
    touched = [f"{prefix}.{b}" for b in (*gone, *switch.blocks)]
    figures = {k: v for k, v in _figures(out).items() if not any(_under(str(k), t) for t in touched)}
    figures |= {f"{prefix}.{key}": copy.deepcopy(fig) for key, fig in switch.figures.items()}
    if figures or "figures" in out:
        out["figures"] = figures
    return out


def owned_usd_per_accelerator_hour(system_rows: list[dict[str, Any]]) -> dict[str, float]:
    """What owning each owned system costs per accelerator-hour, from a result's systems table
    (``Result.records["systems"]``): its cost per day / 24 h / its accelerators [USD/accelerator-h].

    A rented fleet of the same accelerators, reserved with power and facility included, costs the same per day at
    this price (:func:`plan_payment`'s parity price).
    """
    out = {}
    for row in system_rows:
        accelerators = row.get("accelerators")
        if row.get("payment") == "own" and isinstance(accelerators, int | float) and accelerators > 0:
            out[str(row["system"])] = float(row["usd_per_day"]) / 24.0 / float(accelerators)
    return out
