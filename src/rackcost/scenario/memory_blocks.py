"""The scenario blocks of the KV-cache memory limit (docs/model.md, KV-cache memory): the model's shape
(``workload.architecture``) and each system's accelerator memory (``systems[i].memory``). Part of the scenario schema
(:mod:`rackcost.scenario.schema`); the numbers are :mod:`rackcost.model.replica.memory`'s.

Both blocks are optional. A system without ``memory`` has no memory limit: its operating points are limited by
its measured curve alone, as before. A system with one needs the KV bytes per token (its own ``kv_bytes_per_token``,
or the model's shape in ``workload.architecture``) and the weights (its ``weights_gib``, or
``weight_bytes_per_parameter`` with the model's ``parameters``): :func:`memory_problems` says which is missing.
"""

from collections.abc import Sequence
from typing import Any, Self

from pydantic import Field, model_validator

from rackcost.model.replica.memory import DEFAULT_KV_BYTES_PER_ELEMENT, DEFAULT_RESERVE_FRACTION
from rackcost.scenario.fields import (
    AcceleratorCount,
    BytesPerElement,
    KvBytesPerToken,
    MemoryGib,
    ParameterCount,
    ReserveFraction,
    RopeDim,
    ScenarioBlock,
    ShapeCount,
    Source,
    Tokens,
    raise_problems,
)

__all__ = ["Architecture", "Memory", "memory_problems"]

SHAPE_WORDS = "layers and kv_heads + head_dim (kv_lora_rank + qk_rope_head_dim for an MLA cache)"
"""What a shape of the KV cache needs, as the messages say it."""


class Architecture(ScenarioBlock):
    """The model's shape, as far as its memory goes: its parameters and the KV cache one token keeps."""

    parameters: ParameterCount | None = Field(
        default=None,
        description="Total parameters, every expert of a mixture of experts included (all are resident); the "
        "weights are parameters x systems[i].memory.weight_bytes_per_parameter; 1e6 to 1e14 [-].",
    )
    layers: ShapeCount | None = Field(
        default=None, description="Attention layers, each keeping a KV cache; 1 to 1e6 [-]."
    )
    kv_heads: ShapeCount | None = Field(
        default=None,
        description="Key-value heads per layer (grouped-query attention; the query heads under multi-head "
        "attention): a key and a value of head_dim elements each, per token; 1 to 1e6 [-].",
    )
    head_dim: ShapeCount | None = Field(default=None, description="Elements of one head's key; 1 to 1e6 [-].")
    kv_lora_rank: ShapeCount | None = Field(
        default=None,
        description="Multi-head latent attention (MLA, DeepSeek-style): elements of the compressed KV latent each "
        "layer keeps per token, one for all heads; give with qk_rope_head_dim instead of kv_heads and head_dim; "
        "1 to 1e6 [-].",
    )
    qk_rope_head_dim: RopeDim | None = Field(
        default=None,
        description="MLA: elements of the decoupled RoPE key each layer keeps per token besides the latent; "
        "0 to 1e6 [-].",
    )
    sliding_window_layers: ShapeCount | None = Field(
        default=None,
        description="Of the layers, how many attend only to a sliding window of the last sliding_window_tokens "
        "tokens and keep only those (GPT-OSS: half of them, 128 tokens); 1 to 1e6 [-].",
    )
    sliding_window_tokens: Tokens | None = Field(
        default=None, description="Tokens a sliding-window layer keeps; 1 to 1e7 [tokens]."
    )
    source: Source = None

    @model_validator(mode="after")
    def _one_shape(self) -> Self:
        problems = []
        gqa = (self.kv_heads, self.head_dim)
        mla = (self.kv_lora_rank, self.qk_rope_head_dim)
        for (a, b), names in ((gqa, ("kv_heads", "head_dim")), (mla, ("kv_lora_rank", "qk_rope_head_dim"))):
            if (a is None) != (b is None):
                given, missing = names if b is None else names[::-1]
                problems.append((missing, f"{given} is given: give {missing} too (they size the cache together)"))
        if None not in gqa and None not in mla:
            problems.append(
                (
                    "kv_lora_rank",
                    "give kv_heads + head_dim (one key and value per head) or kv_lora_rank + "
                    "qk_rope_head_dim (one MLA latent per token), not both",
                )
            )
        shaped = any(v is not None for v in (*gqa, *mla))
        if shaped and self.layers is None:
            problems.append(("layers", "the cache's shape is given: give the layers that keep it too"))
        if self.layers is not None and not shaped:
            problems.append(("layers", f"layers alone do not size a KV cache: give {SHAPE_WORDS}"))
        window = (self.sliding_window_layers, self.sliding_window_tokens)
        if (window[0] is None) != (window[1] is None):
            missing = "sliding_window_tokens" if window[1] is None else "sliding_window_layers"
            problems.append((missing, "a sliding window needs both sliding_window_layers and sliding_window_tokens"))
        if window[0] is not None and self.layers is not None and window[0] > self.layers:
            problems.append(("sliding_window_layers", f"must not exceed layers ({self.layers}), got {window[0]}"))
        raise_problems(problems)
        return self

    @property
    def has_shape(self) -> bool:
        """Whether the block sizes a KV cache (layers and one of the two shapes)."""
        return self.layers is not None and (self.kv_heads is not None or self.kv_lora_rank is not None)


class Memory(ScenarioBlock):
    """A replica's accelerator memory: the HBM, the weights it holds and the reserve, for the KV-cache limit."""

    hbm_gib_per_accelerator: MemoryGib = Field(
        description="HBM of one accelerator as its vendor quotes it (GB of 2^30 bytes, JEDEC JESD100B.01), e.g. "
        "H100 80, H200 141, B200 180 (DGX) or 192, GB200 186, GB300 288, MI300X 192; 1e-3 to 1e7 [GiB]."
    )
    weights_gib: MemoryGib | None = Field(
        default=None,
        description="The weights one replica holds, e.g. the checkpoint's size; or give weight_bytes_per_parameter; "
        "1e-3 to 1e7 [GiB].",
    )
    weight_bytes_per_parameter: BytesPerElement | None = Field(
        default=None,
        description="Bytes per parameter of the weights (BF16 2, FP8 1, MXFP4 about 0.53 with its scales), times "
        "workload.architecture.parameters; or give weights_gib; 0.05 to 16 [bytes].",
    )
    kv_bytes_per_element: BytesPerElement | None = Field(
        default=None,
        description="Bytes of one cached key or value element, for the shape of workload.architecture: 2 for a "
        f"16-bit cache (the default, {DEFAULT_KV_BYTES_PER_ELEMENT:g}), 1 for FP8; 0.05 to 16 [bytes].",
    )
    kv_bytes_per_token: KvBytesPerToken | None = Field(
        default=None,
        description="KV bytes one token keeps, given directly (precision included) instead of the shape of "
        "workload.architecture; 1 to 1e9 [bytes/token].",
    )
    kv_cache_copies: AcceleratorCount = Field(
        default=1,
        description="Accelerators of the replica that each keep a request's whole cache: 1 when it is split "
        "between them (tensor parallelism over KV heads, data-parallel attention); the tensor-parallel degree for "
        "an MLA cache under plain tensor parallelism; 1 to 1e5 [-].",
    )
    reserve_fraction: ReserveFraction = Field(
        default=DEFAULT_RESERVE_FRACTION,
        description="Share of the HBM kept for activations, CUDA graphs and the runtime; default 0.1, what vLLM "
        "(gpu_memory_utilization 0.9) and TensorRT-LLM (free_gpu_memory_fraction 0.9) leave aside; 0 to 0.95 [-].",
    )
    source: Source = None

    @model_validator(mode="after")
    def _one_way_to_size(self) -> Self:
        problems = []
        if self.weights_gib is not None and self.weight_bytes_per_parameter is not None:
            problems.append(("weight_bytes_per_parameter", "give weights_gib or weight_bytes_per_parameter, not both"))
        if self.kv_bytes_per_token is not None and self.kv_bytes_per_element is not None:
            problems.append(
                (
                    "kv_bytes_per_element",
                    "kv_bytes_per_token already counts the cache's precision: give one of the two",
                )
            )
        raise_problems(problems)
        return self


def memory_problems(architecture: Architecture | None, memories: Sequence[Any]) -> list[tuple[str, str]]:
    """What a system's ``memory`` block needs from itself or from ``workload.architecture``, and misses.

    Parameters
    ----------
    architecture
        ``workload.architecture``, or None.
    memories
        Each system's ``memory`` block or None, in the order of ``systems``.

    Returns
    -------
    list of (path, message)
        Paths relative to the scenario (``systems[1].memory``).
    """
    out = []
    shaped = architecture is not None and architecture.has_shape
    parameters = architecture is not None and architecture.parameters is not None
    for i, memory in enumerate(memories):
        if memory is None:
            continue
        at = f"systems[{i}].memory"
        if memory.kv_bytes_per_token is None and not shaped:
            out.append(
                (
                    at,
                    f"the KV bytes per token are missing: give kv_bytes_per_token, or workload.architecture "
                    f"with {SHAPE_WORDS}",
                )
            )
        if memory.weights_gib is None and memory.weight_bytes_per_parameter is None:
            out.append(
                (
                    at,
                    "the weights are missing: give weights_gib, or weight_bytes_per_parameter with "
                    "workload.architecture.parameters",
                )
            )
        elif memory.weight_bytes_per_parameter is not None and not parameters:
            out.append(
                (
                    f"{at}.weight_bytes_per_parameter",
                    "needs workload.architecture.parameters (or give weights_gib instead)",
                )
            )
    return out
