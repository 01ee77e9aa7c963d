"""The measured workloads, written the same way in donate, NumPy, JAX and
PyTorch.

Every workload exists in these implementations, which compute the same f32
math from the same seeded weights:

* ``donate-off``: donate with implicit donation off and no ``donate()`` /
  ``*_donate`` calls, so every operation allocates its result;
* ``donate``: the same code with implicit donation on (temporaries are
  reused) and ``relu_donate()`` / ``donate()`` where a named value dies;
* ``donate-jit``: ``donate.jit`` of that same ``donate`` function, with the
  activation input donated (``donate_argnums=0``) and the weights passed
  as the same dict pytree; made once per process and traced (planned)
  before the measured calls, as the ``jax`` implementation is compiled;
* ``numpy``: NumPy as a careful user writes it (``out=`` and in-place
  operators where the value being overwritten is dead);
* ``jax``: ``jax.jit`` with the activation input donated
  (``donate_argnums=0``), when jax is installed;
* ``torch``: PyTorch eager as a careful user writes CPU inference code
  (``torch.inference_mode()``, ``torch.addmm`` for matmul + bias, in-place
  ops where a value dies, the attention as the explicit composition
  ``softmax(q @ k^T * scale) @ v``), when torch is installed;
* ``torch-sdpa``: the same with ``F.scaled_dot_product_attention`` (the
  encoder workloads only);
* ``torch-compile`` and ``torch-sdpa-compile``: the same two functions
  under ``torch.compile`` (default mode, Inductor's CPU backend, static
  shapes), called under ``torch.inference_mode()`` as eager is, compiled
  by two warm-up calls in set-up, outside the measured calls (as JAX's
  compilation and ``donate.jit``'s trace are).

The ReLU chain also has ``numpy-alloc``: the allocating chain
``x = np.maximum(x, 0)``.

Each implementation takes ``(x, params)`` and may consume ``x``: the harness
passes a fresh input to every call (JAX's donation and donate's both
invalidate it).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

import donate

GELU_K = math.sqrt(2.0 / math.pi)
GELU_C = 0.044715
LN_EPS = 1e-5
BN_EPS = 1e-5


@dataclass(frozen=True)
class Sizes:
    relu_small: tuple[int, int]
    relu_large: tuple[int, int]
    resnet: tuple[int, int, int, int]  # N, C, H, W
    batch: int
    seq: int
    d_model: int
    heads: int
    mlp: int
    stack_batch: int
    stack_seq: int
    layers: int


FULL = Sizes(
    relu_small=(1000, 1000),
    relu_large=(4096, 4096),
    resnet=(32, 64, 56, 56),
    batch=4,
    seq=512,
    d_model=768,
    heads=12,
    mlp=3072,
    stack_batch=8,
    stack_seq=1024,
    layers=6,
)

# Reduced sizes for the correctness tests and the benchmark smoke run.
SMALL = Sizes(
    relu_small=(64, 48),
    relu_large=(96, 80),
    resnet=(2, 8, 10, 10),
    batch=2,
    seq=16,
    d_model=32,
    heads=4,
    mlp=64,
    stack_batch=2,
    stack_seq=24,
    layers=2,
)

WORKLOADS = ["relu_4mb", "relu_64mb", "resnet_block", "transformer_layer", "forward_pass"]
# "donate-unfused": donation on, attention as the unfused composition
# (scores materialised), to show what the fused op saves.
IMPLS = [
    "donate-off",
    "donate",
    "donate-jit",
    "donate-unfused",
    "numpy",
    "numpy-alloc",
    "jax",
    "torch",
    "torch-compile",
    "torch-sdpa",
    "torch-sdpa-compile",
]

Params = dict[str, Any]


# ---------------------------------------------------------------- inputs ---


def make_input(workload: str, s: Sizes) -> np.ndarray:
    rng = np.random.default_rng(0)
    shape: tuple[int, ...] = {
        "relu_4mb": s.relu_small,
        "relu_64mb": s.relu_large,
        "resnet_block": s.resnet,
        "transformer_layer": (s.batch, s.seq, s.d_model),
        "forward_pass": (s.stack_batch, s.stack_seq, s.d_model),
    }[workload]
    return rng.standard_normal(shape, dtype=np.float32)


def _layer_params(rng: np.random.Generator, d: int, f: int) -> Params:
    def w(*shape: int, std: float = 0.02) -> np.ndarray:
        return (rng.standard_normal(shape) * std).astype(np.float32)

    return {
        "ln1_g": 1 + w(d, std=0.1),
        "ln1_b": w(d),
        "wq": w(d, d),
        "bq": w(d),
        "wk": w(d, d),
        "bk": w(d),
        "wv": w(d, d),
        "bv": w(d),
        "wo": w(d, d),
        "bo": w(d),
        "ln2_g": 1 + w(d, std=0.1),
        "ln2_b": w(d),
        "w1": w(d, f),
        "b1": w(f),
        "w2": w(f, d),
        "b2": w(d),
    }


def make_params(workload: str, s: Sizes) -> Params:
    """Seeded float32 NumPy parameters; every implementation converts them
    once, outside the measured call."""
    rng = np.random.default_rng(1)
    if workload.startswith("relu"):
        return {}
    if workload == "resnet_block":
        c = s.resnet[1]
        std = math.sqrt(2.0 / (9 * c))  # He initialisation

        def bn() -> list[np.ndarray]:
            return [
                (rng.standard_normal(c) * 0.1).astype(np.float32),  # mean
                (rng.random(c) + 0.5).astype(np.float32),  # var
                (1 + rng.standard_normal(c) * 0.1).astype(np.float32),  # gamma
                (rng.standard_normal(c) * 0.1).astype(np.float32),  # beta
            ]

        return {
            "w1": (rng.standard_normal((c, c, 3, 3)) * std).astype(np.float32),
            "bn1": bn(),
            "w2": (rng.standard_normal((c, c, 3, 3)) * std).astype(np.float32),
            "bn2": bn(),
        }
    layers = 1 if workload == "transformer_layer" else s.layers
    return {"layers": [_layer_params(rng, s.d_model, s.mlp) for _ in range(layers)], "heads": s.heads}


def convert(params: Any, to: Callable[[np.ndarray], Any]) -> Any:
    if isinstance(params, np.ndarray):
        return to(params)
    if isinstance(params, dict):
        return {k: convert(v, to) for k, v in params.items()}
    if isinstance(params, list):
        return [convert(v, to) for v in params]
    return params


# ---------------------------------------------------------------- donate ---


def _keep(t: donate.Tensor) -> donate.Tensor:
    return t


def relu_chain_donate(x: donate.Tensor, p: Params, donating: bool) -> donate.Tensor:
    for _ in range(10):
        x = x.relu_donate() if donating else x.relu()
    return x


def resnet_block_donate(x: donate.Tensor, p: Params, donating: bool) -> donate.Tensor:
    mv = donate.Tensor.donate if donating else _keep
    # (Arguments spelled out: an `f(*args)` call never donates implicitly,
    # since its operands may come from a named tuple.)
    m1, v1, g1, b1 = p["bn1"]
    m2, v2, g2, b2 = p["bn2"]
    y = donate.conv2d(x, p["w1"], padding=1).batch_norm(m1, v1, g1, b1, eps=BN_EPS).relu()
    y = donate.conv2d(mv(y), p["w2"], padding=1).batch_norm(m2, v2, g2, b2, eps=BN_EPS)
    return (mv(y) + x).relu()


def encoder_layer_donate(
    x: donate.Tensor, p: Params, heads: int, donating: bool = True, fused: bool = True
) -> donate.Tensor:
    b, s, d = x.shape
    dh = d // heads
    h = x.layer_norm(p["ln1_g"], p["ln1_b"], LN_EPS)
    # Matmul + bias in one pass (the product accumulated into the bias),
    # and the head split as a view: nothing is copied.
    q = donate.addmm(p["bq"], h, p["wq"]).reshape(b, s, heads, dh).transpose(0, 2, 1, 3)
    v = donate.addmm(p["bv"], h, p["wv"]).reshape(b, s, heads, dh).transpose(0, 2, 1, 3)
    if fused:
        # Fused attention, reading the head-split views where they lie:
        # the B*H*S*S scores are never held.
        k = donate.addmm(p["bk"], h, p["wk"]).reshape(b, s, heads, dh).transpose(0, 2, 1, 3)
        del h
        ctx = donate.scaled_dot_product_attention(q, k, v)
        del q, k, v
    else:
        # The unfused composition (the scores materialised); `q @ k` reads
        # the transposed view of k without a copy.
        k = donate.addmm(p["bk"], h, p["wk"]).reshape(b, s, heads, dh).transpose(0, 2, 3, 1)
        del h
        a = ((q @ k) * (1.0 / math.sqrt(dh))).softmax()
        del q, k
        ctx = a @ v
        del a, v
    # Merging the heads copies (the view is not contiguous), as in PyTorch.
    ctx = ctx.transpose(0, 2, 1, 3).reshape(b, s, d)
    # The residual: the input dies here, so with donation `x + bias` is
    # written into its buffer and the product accumulated into that (the
    # input is consumed, as by PyTorch's `add_` and JAX's donation).
    mv = donate.Tensor.donate if donating else _keep
    x = donate.addmm(mv(x) + p["bo"], ctx, p["wo"])
    del ctx
    f = donate.addmm(p["b1"], x.layer_norm(p["ln2_g"], p["ln2_b"], LN_EPS), p["w1"]).gelu()
    return donate.addmm(mv(x) + p["b2"], f, p["w2"])


def encoder_stack_donate(x: donate.Tensor, p: Params, donating: bool, fused: bool = True) -> donate.Tensor:
    for layer in p["layers"]:
        x = encoder_layer_donate(x, layer, p["heads"], donating, fused)
    return x


# ----------------------------------------------------------------- NumPy ---


def _conv3x3_np(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """A "same" 3x3 convolution, im2col one image at a time into ``out=``."""
    from numpy.lib.stride_tricks import sliding_window_view

    n, c, hh, ww = x.shape
    o = w.shape[0]
    wm = w.reshape(o, c * 9)
    out = np.empty((n, o, hh, ww), dtype=x.dtype)
    for i in range(n):
        xp = np.pad(x[i], ((0, 0), (1, 1), (1, 1)))
        cols = sliding_window_view(xp, (3, 3), axis=(1, 2)).transpose(0, 3, 4, 1, 2).reshape(c * 9, hh * ww)
        np.matmul(wm, cols, out=out[i].reshape(o, hh * ww))
    return out


def _batch_norm_np_(x: np.ndarray, mean: np.ndarray, var: np.ndarray, g: np.ndarray, b: np.ndarray) -> None:
    scale = g / np.sqrt(var + BN_EPS)
    x *= scale[:, None, None]
    x += (b - mean * scale)[:, None, None]


def relu_chain_np(x: np.ndarray, p: Params) -> np.ndarray:
    for _ in range(10):
        np.maximum(x, 0, out=x)
    return x


def relu_chain_np_alloc(x: np.ndarray, p: Params) -> np.ndarray:
    for _ in range(10):
        x = np.maximum(x, 0)
    return x


def resnet_block_np(x: np.ndarray, p: Params) -> np.ndarray:
    y = _conv3x3_np(x, p["w1"])
    _batch_norm_np_(y, *p["bn1"])
    np.maximum(y, 0, out=y)
    z = _conv3x3_np(y, p["w2"])
    del y
    _batch_norm_np_(z, *p["bn2"])
    z += x
    np.maximum(z, 0, out=z)
    return z


def _layer_norm_np(x: np.ndarray, g: np.ndarray, b: np.ndarray) -> np.ndarray:
    out = x - x.mean(-1, keepdims=True)
    var = np.mean(out * out, -1, keepdims=True)
    out /= np.sqrt(var + LN_EPS)
    out *= g
    out += b
    return out


def _gelu_np(f: np.ndarray) -> np.ndarray:
    t = f * f
    t *= f
    t *= GELU_C
    t += f
    t *= GELU_K
    np.tanh(t, out=t)
    t += 1
    t *= f
    t *= 0.5
    return t


def encoder_layer_np(x: np.ndarray, p: Params, heads: int) -> np.ndarray:
    b, s, d = x.shape
    dh = d // heads
    h = _layer_norm_np(x, p["ln1_g"], p["ln1_b"])
    q = h @ p["wq"]
    q += p["bq"]
    k = h @ p["wk"]
    k += p["bk"]
    v = h @ p["wv"]
    v += p["bv"]
    del h
    a = q.reshape(b, s, heads, dh).transpose(0, 2, 1, 3) @ k.reshape(b, s, heads, dh).transpose(0, 2, 3, 1)
    del q, k
    a *= 1.0 / math.sqrt(dh)
    a -= a.max(-1, keepdims=True)
    np.exp(a, out=a)
    a /= a.sum(-1, keepdims=True)
    ctx = (a @ v.reshape(b, s, heads, dh).transpose(0, 2, 1, 3)).transpose(0, 2, 1, 3).reshape(b, s, d)
    del a, v
    o = ctx @ p["wo"]
    del ctx
    o += p["bo"]
    o += x
    h = _layer_norm_np(o, p["ln2_g"], p["ln2_b"])
    f = h @ p["w1"]
    del h
    f += p["b1"]
    g = _gelu_np(f)
    del f
    out = g @ p["w2"]
    del g
    out += p["b2"]
    out += o
    return out


def encoder_stack_np(x: np.ndarray, p: Params) -> np.ndarray:
    for layer in p["layers"]:
        x = encoder_layer_np(x, layer, p["heads"])
    return x


# ------------------------------------------------------------------- JAX ---


def jax_functions(heads: int) -> dict[str, Callable[..., Any]]:
    """The JAX implementations (un-jitted; ``heads`` is static); importing
    jax only here keeps it optional. Their params have no "heads" entry."""
    import jax
    import jax.numpy as jnp

    def relu_chain(x: Any, p: Any) -> Any:
        for _ in range(10):
            x = jnp.maximum(x, 0)
        return x

    def conv(x: Any, w: Any) -> Any:
        return jax.lax.conv_general_dilated(x, w, (1, 1), ((1, 1), (1, 1)), dimension_numbers=("NCHW", "OIHW", "NCHW"))

    def bn(x: Any, mean: Any, var: Any, g: Any, b: Any) -> Any:
        scale = g / jnp.sqrt(var + BN_EPS)
        return x * scale[:, None, None] + (b - mean * scale)[:, None, None]

    def resnet_block(x: Any, p: Any) -> Any:
        y = jax.nn.relu(bn(conv(x, p["w1"]), *p["bn1"]))
        y = bn(conv(y, p["w2"]), *p["bn2"])
        return jax.nn.relu(y + x)

    def layer_norm(x: Any, g: Any, b: Any) -> Any:
        mu = x.mean(-1, keepdims=True)
        xc = x - mu
        var = (xc * xc).mean(-1, keepdims=True)
        return xc / jnp.sqrt(var + LN_EPS) * g + b

    def layer(x: Any, p: Any, heads: int) -> Any:
        b, s, d = x.shape
        dh = d // heads
        h = layer_norm(x, p["ln1_g"], p["ln1_b"])
        q = (h @ p["wq"] + p["bq"]).reshape(b, s, heads, dh).transpose(0, 2, 1, 3)
        k = (h @ p["wk"] + p["bk"]).reshape(b, s, heads, dh).transpose(0, 2, 3, 1)
        v = (h @ p["wv"] + p["bv"]).reshape(b, s, heads, dh).transpose(0, 2, 1, 3)
        a = jax.nn.softmax((q @ k) * (1.0 / math.sqrt(dh)), axis=-1)
        ctx = (a @ v).transpose(0, 2, 1, 3).reshape(b, s, d)
        x = x + (ctx @ p["wo"] + p["bo"])
        f = jax.nn.gelu(layer_norm(x, p["ln2_g"], p["ln2_b"]) @ p["w1"] + p["b1"], approximate=True)
        return x + (f @ p["w2"] + p["b2"])

    def stack(x: Any, p: Any) -> Any:
        for lp in p["layers"]:
            x = layer(x, lp, heads)
        return x

    return {"relu": relu_chain, "resnet_block": resnet_block, "encoder": stack}


# --------------------------------------------------------------- PyTorch ---


def torch_functions(sdpa: bool = False) -> dict[str, Callable[..., Any]]:
    """The PyTorch implementations (eager, float32, CPU); importing torch
    only here keeps it optional. ``sdpa`` selects
    ``F.scaled_dot_product_attention`` for the attention instead of the
    explicit composition. The caller enters ``torch.inference_mode()``.
    Weights keep the NumPy layout: ``w`` is (in, out), so ``x @ w + b`` is
    ``torch.addmm(b, x, w)``, with no transposed copy."""
    import torch
    import torch.nn.functional as F

    def linear(x: Any, w: Any, b: Any) -> Any:
        return torch.addmm(b, x.reshape(-1, x.shape[-1]), w).view(*x.shape[:-1], w.shape[1])

    def relu_chain(x: Any, p: Any) -> Any:
        # In place on the input, which the workload consumes.
        for _ in range(10):
            x.relu_()
        return x

    def resnet_block(x: Any, p: Any) -> Any:
        m1, v1, g1, b1 = p["bn1"]
        m2, v2, g2, b2 = p["bn2"]
        y = F.batch_norm(F.conv2d(x, p["w1"], padding=1), m1, v1, g1, b1, training=False, eps=BN_EPS)
        y.relu_()
        z = F.batch_norm(F.conv2d(y, p["w2"], padding=1), m2, v2, g2, b2, training=False, eps=BN_EPS)
        del y
        return z.add_(x).relu_()

    def layer(x: Any, p: Any, heads: int) -> Any:
        b, s, d = x.shape
        dh = d // heads
        h = F.layer_norm(x, (d,), p["ln1_g"], p["ln1_b"], LN_EPS)
        q = linear(h, p["wq"], p["bq"]).view(b, s, heads, dh).transpose(1, 2)
        k = linear(h, p["wk"], p["bk"]).view(b, s, heads, dh).transpose(1, 2)
        v = linear(h, p["wv"], p["bv"]).view(b, s, heads, dh).transpose(1, 2)
        del h
        if sdpa:
            ctx = F.scaled_dot_product_attention(q, k, v)
            del q, k, v
        else:
            a = q @ k.transpose(-2, -1)
            del q, k
            a.mul_(1.0 / math.sqrt(dh))
            torch.softmax(a, -1, out=a)  # in place: the scores die here
            ctx = a @ v
            del a, v
        ctx = ctx.transpose(1, 2).reshape(b, s, d)
        x = x.add_(linear(ctx, p["wo"], p["bo"]))  # the input is consumed
        del ctx
        f = linear(F.layer_norm(x, (d,), p["ln2_g"], p["ln2_b"], LN_EPS), p["w1"], p["b1"])
        f = F.gelu(f, approximate="tanh")
        return x.add_(linear(f, p["w2"], p["b2"]))

    def stack(x: Any, p: Any) -> Any:
        for lp in p["layers"]:
            x = layer(x, lp, p["heads"])
        return x

    return {"relu": relu_chain, "resnet_block": resnet_block, "encoder": stack}


# ------------------------------------------------------------- the table ---


def donate_impl(workload: str, donating: bool, fused: bool = True) -> Callable[[donate.Tensor, Params], donate.Tensor]:
    fn = {"relu": relu_chain_donate, "resnet_block": resnet_block_donate, "encoder": encoder_stack_donate}[
        kind(workload)
    ]

    def run(x: donate.Tensor, p: Params) -> donate.Tensor:
        with donate.implicit_donation(donating):
            if not fused:
                return encoder_stack_donate(x, p, donating, fused=False)
            return fn(x, p, donating)

    return run


# One jitted function per workload and process, made on first use and kept
# (so its traces are reused by every later prepare() in the process).
_JITTED: dict[str, Any] = {}


def donate_jit_impl(workload: str) -> Any:
    """``donate.jit`` of the function the ``donate`` implementation runs
    (the same code: implicit donation on, the same ``donate()`` /
    ``relu_donate()`` calls), the activation input donated. The weights are
    the argument ``p``, the same dict pytree (its Python numbers, the
    encoder's ``heads``, are baked into the program)."""
    jitted = _JITTED.get(workload)
    if jitted is None:
        run = donate_impl(workload, True)
        # Name the program after the workload's function (error messages
        # and `as_text()` say `jit(<name>)`).
        run.__name__ = run.__qualname__ = {
            "relu": "relu_chain_donate",
            "resnet_block": "resnet_block_donate",
            "encoder": "encoder_stack_donate",
        }[kind(workload)]
        jitted = _JITTED[workload] = donate.jit(run, donate_argnums=0)
    return jitted


def param_bytes(params: Any) -> int:
    """Bytes of the weights (the NumPy arrays of a params pytree)."""
    if isinstance(params, np.ndarray):
        return int(params.nbytes)
    if isinstance(params, dict):
        return sum(param_bytes(v) for v in params.values())
    if isinstance(params, list):
        return sum(param_bytes(v) for v in params)
    return 0


def numpy_impl(workload: str, allocating: bool = False) -> Callable[[np.ndarray, Params], np.ndarray]:
    if kind(workload) == "relu":
        return relu_chain_np_alloc if allocating else relu_chain_np
    return {"resnet_block": resnet_block_np, "encoder": encoder_stack_np}[kind(workload)]


def kind(workload: str) -> str:
    if workload.startswith("relu"):
        return "relu"
    if workload == "resnet_block":
        return "resnet_block"
    return "encoder"


def applies(workload: str, impl: str) -> bool:
    if impl == "numpy-alloc":
        return kind(workload) == "relu"
    if impl in ("donate-unfused", "torch-sdpa", "torch-sdpa-compile"):
        return kind(workload) == "encoder"
    return True


@dataclass
class Prepared:
    """One implementation of one workload, ready to call: ``fresh()`` makes
    a new input (the call may consume it), ``call(x)`` runs the workload,
    ``to_numpy(y)`` reads its result. Weights are converted once, here."""

    x: np.ndarray
    fresh: Callable[[], Any]
    call: Callable[[Any], Any]
    to_numpy: Callable[[Any], np.ndarray]
    # donate-jit only: the jitted function (for its ``trace_count``), the
    # planned peak (``lower(...).memory_analysis().peak_memory_in_bytes``,
    # the arguments, weights included, counted) and the weights' bytes.
    jitted: Any = None
    planned_peak: int | None = None
    weight_bytes: int | None = None
    # torch.compile only: the seconds its set-up (two warm-up calls, the
    # first of which compiles) took, and the graphs Dynamo captured and
    # its graph breaks, over the whole process.
    compile_s: float | None = None
    graphs: int | None = None
    graph_breaks: int | None = None


def _prepare_torch(workload: str, impl: str, x_np: np.ndarray, params_np: Params) -> Prepared:
    import torch

    fn_t = torch_functions(sdpa=impl.startswith("torch-sdpa"))[kind(workload)]
    compiled = impl.endswith("-compile")
    if compiled:
        fn_t = torch.compile(fn_t, dynamic=False)
    tparams = convert(params_np, torch.from_numpy)

    def fresh_t() -> Any:
        return torch.from_numpy(x_np.copy())

    def call_t(x: Any) -> Any:
        with torch.inference_mode():
            return fn_t(x, tparams)

    if not compiled:
        return Prepared(x_np, fresh_t, call_t, lambda y: y.numpy())
    # Compile now, outside the measured calls: the first call compiles
    # (under inference mode, as the measured calls run: Dynamo guards on
    # it), the second checks that the same graph serves a fresh input.
    from torch._dynamo.utils import counters

    t0 = time.perf_counter()
    for _ in range(2):
        call_t(fresh_t())
    return Prepared(
        x_np,
        fresh_t,
        call_t,
        lambda y: y.numpy(),
        compile_s=time.perf_counter() - t0,
        graphs=int(counters["stats"]["unique_graphs"]),
        graph_breaks=int(sum(counters["graph_break"].values())),
    )


def prepare(workload: str, impl: str, sizes: Sizes) -> Prepared:
    x_np = make_input(workload, sizes)
    params_np = make_params(workload, sizes)
    if impl == "donate-jit":
        jitted = donate_jit_impl(workload)
        jparams_d = convert(params_np, donate.tensor)

        def fresh_d() -> donate.Tensor:
            return donate.tensor(x_np)

        # As the JAX implementation is lowered and compiled here: trace and
        # plan now, outside the measured calls (lower() does not run the
        # program, so the input it is given is not consumed; the calls use
        # the program it traced).
        lowered = jitted.lower(fresh_d(), jparams_d)
        planned = int(lowered.memory_analysis().peak_memory_in_bytes)
        return Prepared(
            x_np,
            fresh_d,
            lambda x: jitted(x, jparams_d),
            lambda y: y.numpy(),
            jitted=jitted,
            planned_peak=planned,
            weight_bytes=param_bytes(params_np),
        )
    if impl.startswith("donate"):
        fn = donate_impl(workload, impl != "donate-off", fused=impl != "donate-unfused")
        params = convert(params_np, donate.tensor)
        return Prepared(x_np, lambda: donate.tensor(x_np), lambda x: fn(x, params), lambda y: y.numpy())
    if impl.startswith("numpy"):
        fn_np = numpy_impl(workload, allocating=impl == "numpy-alloc")
        return Prepared(x_np, x_np.copy, lambda x: fn_np(x, params_np), np.asarray)
    if impl.startswith("torch"):
        return _prepare_torch(workload, impl, x_np, params_np)
    import jax

    heads = params_np.pop("heads", 0)
    jparams = convert(params_np, jax.device_put)
    jitted = jax.jit(jax_functions(heads)[kind(workload)], donate_argnums=0)

    def fresh() -> Any:
        return jax.device_put(x_np.copy())

    compiled = jitted.lower(fresh(), jparams).compile()
    return Prepared(x_np, fresh, lambda x: compiled(x, jparams).block_until_ready(), np.asarray)
