"""The pluggable strategies of the model, one enum each, carrying their properties: how requests are routed to
replicas (:class:`Routing`), how a system is paid for (:class:`Payment`), what idle replicas do
(:class:`IdlePolicy`) and what a rate that moves within its hour is sized for (:class:`SubHourSizing`).

Every module that must know what a strategy means asks its member (``payment.has_fleet``, ``policy.parks``) or, for
a router, its object (:func:`rackcost.model.queues.routers.router_of`) instead of comparing names; the scenario schema
uses the same enums as its field types (``fleet.routing`` takes any registered router's name). The members are
:class:`enum.StrEnum`, so each equals its name as text (``Routing.pooled == "pooled"``) and is written as that text
in every table and file.
"""

from __future__ import annotations

from enum import StrEnum

from rackcost.model.queues.routers import POOLED, SPLIT, Router, router_of

__all__ = ["DEFAULT_ROUTING", "IdlePolicy", "Payment", "Routing", "SubHourSizing"]


class Routing(StrEnum):
    """How the load balancer spreads requests over a fleet's replicas, and so which queue the model solves."""

    # The names of the built-in routers (rackcost.model.queues.routers holds each one's object: its analytic queue, its
    # occupancy law and its simulator dispatch; the properties below read it). A scenario may name any registered
    # router. (A comment, not the docstring: the docstring is the JSON Schema's description.)

    pooled = "pooled"
    least_outstanding = "least_outstanding"
    power_of_two = "power_of_two"
    round_robin = "round_robin"
    random = "random"

    @property
    def router(self) -> Router:
        """The router's object (:func:`rackcost.model.queues.routers.router_of`)."""
        return router_of(self.value)

    @property
    def words(self) -> str:
        """What the router does and how the model treats it, in words (for output headers)."""
        return self.router.words

    @property
    def one_queue(self) -> bool:
        """Solved as one M/M/k queue over every slot of the fleet."""
        return self.router.queue is POOLED

    @property
    def independent_queues(self) -> bool:
        """Solved as independent M/M/c queues, one per replica, each at ``lambda / N``."""
        return self.router.queue is SPLIT

    @property
    def analytic(self) -> bool:
        """The model has a closed form for it (else only the simulator evaluates it)."""
        return self.router.analytic

    @property
    def central_queue(self) -> bool:
        """In the simulator: one FIFO queue in front of every slot (else each replica queues its own requests)."""
        return self.router.central_queue

    @property
    def state_blind(self) -> bool:
        """In the simulator: the replica is chosen without looking at the replicas' state."""
        return self.router.state_blind


DEFAULT_ROUTING = Routing.least_outstanding
"""The router everything assumes unless told otherwise: the scenario schema (``fleet.routing``), the fleet policy,
the model's functions and the simulator. Least-outstanding is what serving stacks' load balancers do (vLLM's router,
llm-d, Dynamo route on load); the model solves it as one pooled queue, so the analytic figures are the pooled ones."""


class Payment(StrEnum):
    """How a system is paid for: owned, rented (reserved for the provisioned fleet, or on demand for what each
    demand point needs), or per token through an API."""

    own = "own"
    rent_reserved = "rent reserved"
    rent_on_demand = "rent on_demand"
    api = "api"

    @property
    def has_fleet(self) -> bool:
        """Runs hardware the model sizes (everything but an API)."""
        return self is not Payment.api

    @property
    def owned(self) -> bool:
        """Bought: capex through the capital recovery factor."""
        return self is Payment.own

    @property
    def rented(self) -> bool:
        """Paid per accelerator-hour."""
        return self in (Payment.rent_reserved, Payment.rent_on_demand)

    @property
    def active_only(self) -> bool:
        """Only the replicas a demand point needs run and are billed (the provider scales): idle ones park."""
        return self is Payment.rent_on_demand


class IdlePolicy(StrEnum):
    """What the replicas a demand point does not need do: stay powered (and serve), or park."""

    powered = "powered"
    park = "park"

    @property
    def parks(self) -> bool:
        """Replicas beyond what a demand point needs draw parked power and do not serve."""
        return self is IdlePolicy.park

    @property
    def words(self) -> str:
        """In words, for a report."""
        return "park when not needed" if self.parks else "stay powered when idle"


class SubHourSizing(StrEnum):
    """What a fleet is sized for where its sizing point's rate moves within the hour (a rate swing or sub-hour
    windows; :mod:`rackcost.model.queues.rate_swing`).

    ``busiest_window``: every window (every phase of a swing) meets the attainment target at its own rate, so no
    stretch of minutes is above the fleet's capacity at SLO. A serving stack that queues every request (vLLM,
    SGLang and TensorRT-LLM do, without SLO-aware shedding) carries the queue an overloaded window builds into the
    windows after it, and those requests miss the SLO too: a fleet at 96% of its slots replayed under an Azure
    production hour with a 30-minute hump 3% above the hour's mean accepted 84%, and 100% once it carried the
    hump. ``hour_average``: the hour's arrival-weighted accepted share meets the target, the overload of the busier
    windows shed by admission control as the analytic figures assume (a stack that rejects what it cannot serve
    in time).
    """

    busiest_window = "busiest_window"
    hour_average = "hour_average"

    @property
    def every_window(self) -> bool:
        """Each window (phase) must meet the target on its own, not only their average."""
        return self is SubHourSizing.busiest_window

    @property
    def words(self) -> str:
        """In words, for a report."""
        if self.every_window:
            return "sized for its busiest window (every window within the SLO, as a stack that queues every request)"
        return "sized for the hour's average (the busier windows' overload shed by admission control)"
