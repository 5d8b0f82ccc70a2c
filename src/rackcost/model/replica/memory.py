"""KV-cache memory of a replica: how many requests in flight its accelerators' memory holds (docs/model.md).

A request in flight keeps the keys and values of every token of its context (input and output so far) in the
accelerators' memory. What a replica has for them is its HBM less the weights and a reserve for activations and
the runtime::

    free        = HBM per accelerator x accelerators per replica x (1 - reserve) - weights
    per request = copies x (B_token x context + B_window x min(context, window))
    limit       = floor(free / per request)                                    [requests in flight]

with the KV bytes per token of the model's full-attention layers ``B_token``:

- multi-head or grouped-query attention (Llama, GPT-OSS): ``2 x layers x kv_heads x head_dim x bytes per element``
  (a key and a value per KV head);
- multi-head latent attention (MLA, DeepSeek V2/V3/R1, Kimi K2): ``layers x (kv_lora_rank + qk_rope_head_dim) x
  bytes per element``: one compressed latent and one decoupled RoPE key per token and layer, shared by every head,
  not one per head (DeepSeek-AI, DeepSeek-V3 Technical Report, arXiv 2412.19437, 2024-12-27).

Layers with a sliding window (GPT-OSS alternates full and 128-token banded layers) keep only the window,
``B_window x min(context, window)``. ``copies`` counts how many accelerators of the replica hold the same request's
cache: 1 when the cache is split between them (tensor parallelism over KV heads, data-parallel attention); the
tensor-parallel degree for an MLA cache under plain tensor parallelism, whose single latent every rank keeps (LMSYS
Org, "SGLang v0.4", 2024-12-04, section "Data Parallelism Attention for DeepSeek Models").

The context is the request's whole length, input + output tokens: the space a request needs by its last token,
which TensorRT-LLM's default scheduler (``GUARANTEED_NO_EVICT``) reserves when it admits it. An operating point of
concurrency ``c`` fits when ``c x per request <= free``. Pure numpy: the scenario layer fills :class:`KvMemory`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from rackcost.units import BYTES_PER_GIB

__all__ = [
    "DEFAULT_KV_BYTES_PER_ELEMENT",
    "DEFAULT_RESERVE_FRACTION",
    "KvMemory",
    "free_bytes",
    "gib",
    "kv_bytes_per_request",
    "kv_bytes_per_token_gqa",
    "kv_bytes_per_token_mla",
    "max_concurrency",
]

DEFAULT_RESERVE_FRACTION = 0.1
"""Share of a replica's HBM kept for activations, CUDA graphs and the runtime [-]. vLLM uses 90% of each
accelerator's memory by default (``gpu_memory_utilization = 0.9``), and TensorRT-LLM gives the KV cache 90% of what
the weights and activations leave (``free_gpu_memory_fraction = 0.9``): both leave 10% aside. vLLM takes its
profiled activation peak out of its 90% as well, so a replica with large prefill batches holds somewhat fewer
requests than this reserve allows; a larger ``reserve_fraction`` says so."""
DEFAULT_KV_BYTES_PER_ELEMENT = 2.0
"""Bytes of one cached key or value element: 16-bit (BF16/FP16), what vLLM's default ``kv_cache_dtype = auto``
keeps for a model whose activations are 16-bit, FP8 weights included; 1 for an FP8 cache [bytes]."""


def kv_bytes_per_token_gqa(
    layers: ArrayLike, kv_heads: ArrayLike, head_dim: ArrayLike, bytes_per_element: ArrayLike
) -> NDArray[np.float64]:
    """KV bytes one token keeps under multi-head or grouped-query attention [bytes/token].

    ``2 x layers x kv_heads x head_dim x bytes per element``: a key and a value vector per KV head and layer.

    Parameters
    ----------
    layers
        Layers that cache every token of the context [-].
    kv_heads
        Key-value heads per layer (the query heads under multi-head attention) [-].
    head_dim
        Elements of one head's key (and value) [-].
    bytes_per_element
        Bytes of one cached element: 2 for BF16/FP16, 1 for FP8 [bytes].

    Examples
    --------
    Llama 3.3 70B (80 layers, 8 KV heads of 128) at FP16: 327,680 bytes, 320 KiB per token:

    >>> float(kv_bytes_per_token_gqa(80, 8, 128, 2))
    327680.0
    """
    return (
        2.0
        * np.asarray(layers, dtype=float)
        * np.asarray(kv_heads, dtype=float)
        * np.asarray(head_dim, dtype=float)
        * np.asarray(bytes_per_element, dtype=float)
    )


def kv_bytes_per_token_mla(
    layers: ArrayLike, kv_lora_rank: ArrayLike, qk_rope_head_dim: ArrayLike, bytes_per_element: ArrayLike
) -> NDArray[np.float64]:
    """KV bytes one token keeps under multi-head latent attention (MLA) [bytes/token].

    ``layers x (kv_lora_rank + qk_rope_head_dim) x bytes per element``: per token and layer one compressed latent of
    ``kv_lora_rank`` elements and one decoupled RoPE key of ``qk_rope_head_dim``, shared by all heads.

    Parameters
    ----------
    layers
        Layers that cache every token of the context [-].
    kv_lora_rank
        Elements of the compressed KV latent (DeepSeek's ``d_c``) [-].
    qk_rope_head_dim
        Elements of the decoupled RoPE key (DeepSeek's ``d_h^R``) [-].
    bytes_per_element
        Bytes of one cached element [bytes].

    Examples
    --------
    DeepSeek R1 (61 layers, latent 512 + RoPE 64) at BF16: 70,272 bytes (about 70 kB) per token, 71 times less than
    the 5.0 MB its 128 heads would keep uncompressed (keys of 128 + 64 and values of 128 elements each):

    >>> float(kv_bytes_per_token_mla(61, 512, 64, 2))
    70272.0
    """
    return (
        np.asarray(layers, dtype=float)
        * (np.asarray(kv_lora_rank, dtype=float) + np.asarray(qk_rope_head_dim, dtype=float))
        * np.asarray(bytes_per_element, dtype=float)
    )


def kv_bytes_per_request(
    context_tokens: ArrayLike,
    kv_bytes_per_token: ArrayLike,
    window_kv_bytes_per_token: ArrayLike = 0.0,
    window_tokens: ArrayLike = 0.0,
    copies: ArrayLike = 1,
) -> NDArray[np.float64]:
    """KV bytes one request of a given context keeps in a replica [bytes].

    ``copies x (B_token x context + B_window x min(context, window))``.

    Parameters
    ----------
    context_tokens
        Tokens of the request's context: input + output [tokens].
    kv_bytes_per_token
        KV bytes per token of the layers that cache the whole context [bytes/token].
    window_kv_bytes_per_token, window_tokens
        KV bytes per token of the sliding-window layers, and their window [bytes/token, tokens]; 0 without.
    copies
        Accelerators of the replica that each keep the whole cache of the request [-].

    Examples
    --------
    GPT-OSS 120B at 8,192 + 1,024 tokens: 18 full layers of 8 KV heads of 64 at BF16 (36,864 bytes per token) and
    18 layers with a 128-token window:

    >>> int(kv_bytes_per_request(9216, 36864.0, 36864.0, 128))
    344457216
    """
    context = np.asarray(context_tokens, dtype=float)
    windowed = np.asarray(window_kv_bytes_per_token, dtype=float) * np.minimum(
        context, np.asarray(window_tokens, dtype=float)
    )
    return np.asarray(copies, dtype=float) * (np.asarray(kv_bytes_per_token, dtype=float) * context + windowed)


def free_bytes(
    hbm_bytes_per_accelerator: ArrayLike,
    accelerators_per_replica: ArrayLike,
    weights_bytes: ArrayLike,
    reserve_fraction: ArrayLike = DEFAULT_RESERVE_FRACTION,
) -> NDArray[np.float64]:
    """Memory of a replica left for the KV cache [bytes]; zero or negative when the weights do not fit.

    ``HBM per accelerator x accelerators per replica x (1 - reserve) - weights``.

    Examples
    --------
    Llama 3.3 70B at BF16 (70.6e9 parameters x 2 bytes) on eight 80 GiB H100s, 10% reserved:

    >>> round(float(free_bytes(80 * 2**30, 8, 70.6e9 * 2)) / 2**30, 1)
    444.5
    """
    hbm = np.asarray(hbm_bytes_per_accelerator, dtype=float) * np.asarray(accelerators_per_replica, dtype=float)
    return hbm * (1.0 - np.asarray(reserve_fraction, dtype=float)) - np.asarray(weights_bytes, dtype=float)


def max_concurrency(free: ArrayLike, bytes_per_request: ArrayLike) -> NDArray[np.int64]:
    """The most requests in flight a replica's free memory holds: ``floor(free / per request)``, 0 when none [-].

    Examples
    --------
    444.5 GiB free, 2,048 tokens of 320 KiB per request (640 MiB): 711 requests.

    >>> int(max_concurrency(444.5 * 2**30, 2048 * 327680.0))
    711
    """
    held = np.asarray(free, dtype=float) / np.asarray(bytes_per_request, dtype=float)
    return np.floor(np.maximum(held, 0.0)).astype(np.int64)


@dataclass(frozen=True)
class KvMemory:
    """One replica's memory for the KV cache, at the workload's context.

    Attributes
    ----------
    hbm_bytes
        HBM of the replica: per accelerator x accelerators per replica [bytes].
    weights_bytes
        The model's weights in the replica [bytes].
    reserve_fraction
        Share of the HBM kept for activations and the runtime [-].
    context_tokens
        Tokens of one request's context: input + output (the mean for a spread of lengths) [tokens].
    kv_bytes_per_token
        KV bytes per token of one copy of the cache, full-attention layers [bytes/token].
    kv_bytes_per_request
        KV bytes one request keeps in the replica, every copy and window included [bytes].
    copies
        Accelerators that each keep a request's whole cache [-].

    Examples
    --------
    >>> m = KvMemory(8 * 80 * 2**30, 141.2e9, 0.1, 2048.0, 327680.0, 2048 * 327680.0, 1)
    >>> m.max_concurrency, m.fits([711, 712]).tolist()
    (711, [True, False])
    """

    hbm_bytes: float
    weights_bytes: float
    reserve_fraction: float
    context_tokens: float
    kv_bytes_per_token: float
    kv_bytes_per_request: float
    copies: int = 1

    @property
    def reserve_bytes(self) -> float:
        """HBM kept for activations and the runtime [bytes]."""
        return self.hbm_bytes * self.reserve_fraction

    @property
    def free_bytes(self) -> float:
        """Memory left for the KV cache; zero or negative when the weights do not fit [bytes]."""
        return float(free_bytes(self.hbm_bytes, 1, self.weights_bytes, self.reserve_fraction))

    @property
    def requests_held(self) -> float:
        """Requests in flight the free memory holds, not rounded: ``free / per request``, at least 0 [requests]."""
        return max(self.free_bytes, 0.0) / self.kv_bytes_per_request

    @property
    def max_concurrency(self) -> int:
        """The most requests in flight the replica holds [-] (:func:`max_concurrency`)."""
        return int(max_concurrency(self.free_bytes, self.kv_bytes_per_request))

    def fits(self, concurrency: ArrayLike) -> NDArray[np.bool_]:
        """Whether the cache of ``concurrency`` requests in flight fits the free memory, at each point.

        ``c <= free / per request``, the quotient :attr:`max_concurrency` floors: an integer concurrency fits
        exactly when it is at most :attr:`max_concurrency`, and a non-integer one (Little's law derives them) when
        its requests' caches add up to no more than the free memory.
        """
        return np.asarray(concurrency, dtype=float) <= self.requests_held

    def need_bytes(self, concurrency: float) -> float:
        """KV bytes ``concurrency`` requests in flight keep [bytes]."""
        return float(concurrency) * self.kv_bytes_per_request

    def summary(self) -> str:
        """Where the free memory comes from, in GiB, for messages.

        Examples
        --------
        >>> KvMemory(8 * 80 * 2**30, 141.2e9, 0.1, 2048.0, 327680.0, 2048 * 327680.0, 1).summary()
        'HBM 640 GiB - weights 131.5 GiB - reserve 10% (64 GiB)'
        """
        return (
            f"HBM {gib(self.hbm_bytes)} GiB - weights {gib(self.weights_bytes)} GiB - reserve "
            f"{self.reserve_fraction:.0%} ({gib(self.reserve_bytes)} GiB)"
        )


def gib(value_bytes: float) -> str:
    """Bytes as GiB, to four significant figures, for messages [GiB].

    Examples
    --------
    >>> gib(640 * 2**30), gib(141.2e9), gib(9216 * 70272)
    ('640', '131.5', '0.6031')
    """
    return f"{value_bytes / BYTES_PER_GIB:.4g}"
