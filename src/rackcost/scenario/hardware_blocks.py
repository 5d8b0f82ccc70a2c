"""The hardware of a system and how it is paid for: its packaging and power (``hardware``), owning it (``costs``) or
renting it (``rent``). Part of the scenario schema (:mod:`rackcost.scenario.schema`), through
:mod:`rackcost.scenario.systems`, which re-exports them; in a module of their own so that the blocks of a
disaggregated system's pools (:mod:`rackcost.scenario.pool_blocks`) can name them too."""

from enum import StrEnum
from typing import Self

from pydantic import Field, model_validator

from rackcost.scenario.fields import (
    AcceleratorCount,
    AcceleratorIdleW,
    AcceleratorW,
    Exponent,
    Fraction,
    HostW,
    MinimumHoursPerDay,
    Name,
    RackOverheadW,
    ScenarioBlock,
    SlotCount,
    Source,
    Usd,
    UsdPerAcceleratorHour,
    UsdPerYear,
    Years,
    raise_problems,
)

__all__ = ["FINANCE_TERMS", "Billing", "Costs", "Finance", "Hardware", "Rent", "finance_problems", "finance_term"]


class Hardware(ScenarioBlock):
    """Packaging and power of one system."""

    accelerator: Name | None = Field(
        default=None,
        description="The accelerator (e.g. H100, H200, B200, GB300, MI355X): chooses the fitted power law where "
        "the curve has no measured power (Hopper parts take the H100 fit, Blackwell the B200 fit, others the "
        "fit of both).",
    )
    accelerators_per_replica: AcceleratorCount = Field(description="Accelerators one replica spans; 1 to 1e5.")
    accelerators_per_node: SlotCount = Field(description="Accelerators in one node (tray); 1 to 1e4.")
    nodes_per_rack: SlotCount = Field(description="Node slots in one rack; 1 to 1e4.")
    accelerator_rated_w: AcceleratorW = Field(
        description="Rated (nameplate) accelerator power; provisioning only; 1 to 1e5 [W]."
    )
    accelerator_busy_w: AcceleratorW = Field(
        description="Sustained accelerator power when every slot is busy; 1 to 1e5 [W]."
    )
    accelerator_idle_w: AcceleratorIdleW = Field(description="Accelerator power when powered and idle; 0 to 1e5 [W].")
    accelerator_parked_w: AcceleratorIdleW | None = Field(
        default=None, description="Accelerator power when parked (sleep); default the idle power; 0 to 1e5 [W]."
    )
    power_exponent: Exponent | None = Field(
        default=None,
        description="This system's exponent of slot utilisation in accelerator power (idle + (busy - idle) * "
        "u ** exponent); overrides fleet.power_utilization_exponent and the fitted law; 0 to 10.",
    )
    host_w_per_node: HostW = Field(
        default=0.0, description="CPUs, memory, NICs, fans of one node while it is on; 0 to 1e6 [W]."
    )
    host_rated_w_per_node: HostW | None = Field(
        default=None, description="Host nameplate power for provisioning; default host_w_per_node; 0 to 1e6 [W]."
    )
    host_parked_w_per_node: HostW | None = Field(
        default=None,
        description="Host power of a parked node; default host_w_per_node (parking saves nothing "
        "on the host unless stated); 0 to 1e6 [W].",
    )
    rack_overhead_w: RackOverheadW = Field(
        default=0.0, description="Switches, fans, CDU and power conversion of one rack, always on; 0 to 1e7 [W]."
    )
    source: Source = None

    @model_validator(mode="after")
    def _power_order(self) -> Self:
        problems = []
        if self.accelerator_idle_w > self.accelerator_busy_w:
            problems.append(
                (
                    "accelerator_idle_w",
                    f"must not exceed accelerator_busy_w ({self.accelerator_busy_w:g}), "
                    f"got {self.accelerator_idle_w:g}",
                )
            )
        if self.accelerator_busy_w > self.accelerator_rated_w:
            problems.append(
                (
                    "accelerator_busy_w",
                    f"must not exceed accelerator_rated_w ({self.accelerator_rated_w:g}), "
                    f"got {self.accelerator_busy_w:g}",
                )
            )
        raise_problems(problems)
        return self


class Costs(ScenarioBlock):
    """Capital and operating costs of one system."""

    capex_usd_per_accelerator: Usd = Field(description="Accelerator purchase price; 0 to 1e9 [USD].")
    capex_usd_per_node: Usd = Field(default=0.0, description="Node chassis, CPUs, memory; 0 to 1e9 [USD].")
    capex_usd_per_rack: Usd = Field(
        default=0.0, description="Rack, in-rack switches, power shelves, CDU; 0 to 1e9 [USD]."
    )
    networking_capex_fraction: Fraction = Field(
        default=0.0, description="Scale-out networking as a share of hardware capex [-]."
    )
    installation_capex_fraction: Fraction = Field(
        default=0.0, description="Installation and integration as a share of hardware capex [-]."
    )
    service_life_years: Years | None = Field(
        default=None,
        description="Years over which capex is recovered; default finance.service_life_years; 0.1 to 100 [years].",
    )
    cost_of_capital_fraction: Fraction | None = Field(
        default=None,
        description="Annual cost of capital (discount rate); default finance.cost_of_capital_fraction, else 0 "
        "[1/year].",
    )
    maintenance_fraction_per_year: Fraction = Field(
        default=0.0, description="Maintenance and support per year as a share of capex [1/year]."
    )
    software_usd_per_accelerator_year: UsdPerYear = Field(
        default=0.0, description="Software licences per accelerator per year; 0 to 1e9 [USD/year]."
    )
    operations_usd_per_rack_year: UsdPerYear = Field(
        default=0.0, description="Operations labour per rack per year; 0 to 1e9 [USD/year]."
    )
    source: Source = None


class Finance(ScenarioBlock):
    """The financial terms every owned system shares unless its ``costs`` give its own: set once per scenario.

    A buyer's cost of capital and the service life its finance team depreciates over are the buyer's, not a
    system's; each owned system's ``costs`` may still override either (a system bought on other terms)."""

    service_life_years: Years | None = Field(
        default=None,
        description="Years over which every owned system's capex is recovered, unless its costs give its own; 0.1 "
        "to 100 [years].",
    )
    cost_of_capital_fraction: Fraction | None = Field(
        default=None,
        description="Annual cost of capital (discount rate) of every owned system, unless its costs give its own "
        "[1/year].",
    )
    source: Source = None


# each term of ``finance`` and its value where neither the system's costs nor the scenario's finance give it
# (None: required; a system without a service life cannot recover its capex)
FINANCE_TERMS: dict[str, float | None] = {"service_life_years": None, "cost_of_capital_fraction": 0.0}


def finance_term(costs: Costs, finance: Finance, name: str) -> tuple[float | None, str | None]:
    """One financial term of an owned system and where it is set: its ``costs``, else the scenario's ``finance``.

    Parameters
    ----------
    costs
        The system's (or its pool's) costs.
    finance
        The scenario's financial terms.
    name
        ``service_life_years`` or ``cost_of_capital_fraction`` (:data:`FINANCE_TERMS`).

    Returns
    -------
    tuple
        The value (the default of :data:`FINANCE_TERMS` where neither gives it) and the block it was read from,
        ``"costs"`` or ``"finance"`` (None for the default).

    Examples
    --------
    >>> finance = Finance(service_life_years=5, cost_of_capital_fraction=0.08)
    >>> finance_term(Costs(capex_usd_per_accelerator=1.0), finance, "service_life_years")
    (5.0, 'finance')
    >>> finance_term(Costs(capex_usd_per_accelerator=1.0, service_life_years=4), finance, "service_life_years")
    (4.0, 'costs')
    >>> finance_term(Costs(capex_usd_per_accelerator=1.0), Finance(), "cost_of_capital_fraction")
    (0.0, None)
    """
    own = getattr(costs, name)
    if own is not None:
        return float(own), "costs"
    shared = getattr(finance, name)
    if shared is not None:
        return float(shared), "finance"
    return FINANCE_TERMS[name], None


def finance_problems(owned: list[tuple[str, Costs]], finance: Finance) -> list[tuple[str, str]]:
    """Each owned block without a service life of its own or from ``finance``: (its YAML path, what is expected).

    Parameters
    ----------
    owned
        Each owned system's (or pool's) ``costs`` with its YAML path (``systems[0].costs``).
    finance
        The scenario's financial terms.
    """
    return [
        (
            f"{path}.service_life_years",
            "required: the years over which this system's capex is recovered (or give it once for every owned "
            "system as finance.service_life_years)",
        )
        for path, costs in owned
        if finance_term(costs, finance, "service_life_years")[0] is None
    ]


class Billing(StrEnum):
    """How rented accelerators are billed."""

    reserved = "reserved"
    on_demand = "on_demand"


class Rent(ScenarioBlock):
    """Renting the same accelerators from a cloud instead of owning them."""

    usd_per_accelerator_hour: UsdPerAcceleratorHour = Field(
        description="Rental price per accelerator-hour; 0.01 to 1,000 [USD/accelerator-h]."
    )
    billing: Billing = Field(
        default=Billing.reserved,
        description="reserved: the provisioned fleet is paid 24 h a day; on_demand: only the replicas each demand "
        "point needs (the park rule decides how many; replicas for availability are the provider's).",
    )
    minimum_hours_per_day: MinimumHoursPerDay = Field(
        default=0.0,
        description="On demand: every replica started in a day is billed at least this many hours that day (a "
        "provider's minimum commitment); 0 to 24 [h].",
    )
    includes_power_and_facility: bool = Field(
        default=True,
        description="The price covers power, cooling and space (no energy or colocation line); false adds the "
        "scenario's energy and facility cost on top.",
    )
    source: Source = None
