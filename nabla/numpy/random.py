"""``nabla.numpy.random``: NumPy's random API generating on MAX from a counter-based generator.

Each ``Generator`` holds a 64-bit Philox key (from NumPy's ``SeedSequence`` of the seed: host metadata)
and a counter; a draw takes the next counters (two or four values per counter) and advances the
counter, so results are reproducible under a seed and do not depend on how the work is split
(``ops/random_bits.py``). The
streams differ from NumPy's bit streams: distributions match, values do not.
"""

from __future__ import annotations

import math
import threading

import numpy as _np

from .. import array_api as _xp
from ..ops.base import as_index
from ..ops.view import reshape as _reshape
from ..core import dtypes as _dt
from ..core.context import NO_SIDE_EFFECTS, refuse_side_effect
from ..core.tensor import Tensor
from ..ops import aliasing
from ..ops.elementwise import astype as _astype
from ..ops.random_bits import counters_for, normal_bits, uniform_bits
from . import _dtypes as D
from ._distributions import Distributions, _shape
from ._ndarray import wrap
from ._ufuncs import write_out

_F64, _I64 = _dt.float64, _dt.int64


def _float_dtype(dtype, op):
    d = D.to_nabla(dtype, op)
    if d not in (_dt.float32, _dt.float64):
        raise TypeError(f"nabla.numpy.random.{op}: dtype must be float32 or float64, got {d.name}")
    return d


def _seed_sequence(seed) -> _np.random.SeedSequence:
    return seed if isinstance(seed, _np.random.SeedSequence) else _np.random.SeedSequence(seed)


class Philox:
    """A bit generator in NumPy's interface: a ``SeedSequence`` and the 64-bit Philox key drawn
    from it. ``spawn`` gives independent children, as NumPy's bit generators do: Dask's
    ``Generator`` seeds each chunk with one (``dask.array.random.default_rng`` under Nabla's
    backend, ``docs/scaling.md``)."""

    def __init__(self, seed=None):
        self._seed_seq = _seed_sequence(seed)
        words = self._seed_seq.generate_state(2, _np.uint32)
        self.key = int(words[0]) | int(words[1]) << 32  # Philox's two key words

    @property
    def seed_seq(self) -> _np.random.SeedSequence:
        return self._seed_seq

    def spawn(self, n_children: int) -> list:
        return [Philox(s) for s in self._seed_seq.spawn(n_children)]

    def __repr__(self) -> str:
        return f"Philox(key={self.key:#018x})"

    def __eq__(self, other) -> bool:
        return type(other) is Philox and other.key == self.key

    def __hash__(self) -> int:
        return hash(self.key)

    def __dask_tokenize__(self):
        return ("nabla.numpy.random.Philox", self.key)


class Generator(Distributions):
    """NumPy's ``Generator`` interface on a Philox key and counter. ``seed``: what
    ``numpy.random.default_rng`` takes (None, an int or ints, a ``SeedSequence``), or a
    ``Philox`` bit generator. The further distributions (poisson, binomial, gamma, beta...) come
    from ``_distributions.Distributions``."""

    def __init__(self, seed=None):
        self._bit_generator = seed if isinstance(seed, Philox) else Philox(seed)
        self._key = self._bit_generator.key
        self._counter = 0
        self._lock = threading.Lock()

    @property
    def bit_generator(self) -> Philox:
        return self._bit_generator

    def spawn(self, n_children: int) -> list:
        return [type(self)(b) for b in self._bit_generator.spawn(n_children)]

    def __repr__(self) -> str:
        return f"Generator(Philox4x32 on MAX) at {hex(id(self))}"

    def _advance(self, n: int) -> int:
        if NO_SIDE_EFFECTS:  # (a draw under apply_along_axis's call over all slices at once)
            refuse_side_effect("a random draw")
        with self._lock:
            start = self._counter
            self._counter += n
            return start

    def _uniform(self, shape, dtype=_F64) -> Tensor:
        start = self._advance(counters_for(math.prod(shape), dtype))
        return wrap(uniform_bits(self._key, start, shape, dtype))

    def _normal(self, shape, dtype=_F64) -> Tensor:
        start = self._advance(counters_for(math.prod(shape), dtype, "normal"))
        return wrap(normal_bits(self._key, start, shape, dtype))

    @staticmethod
    def _finish(r: Tensor, out):
        if out is not None:
            return write_out(out, r, "random")
        return r

    # --- continuous ---------------------------------------------------------------------------------
    def random(self, size=None, dtype=_np.float64, out=None):
        shape = out.shape if out is not None and size is None else _shape(size)
        return self._finish(self._uniform(shape, _float_dtype(dtype, "random")), out)

    def standard_normal(self, size=None, dtype=_np.float64, out=None):
        shape = out.shape if out is not None and size is None else _shape(size)
        return self._finish(self._normal(shape, _float_dtype(dtype, "standard_normal")), out)

    def _params(self, size, *params, op):
        ps = [p if D.is_scalar(p) else D.asarray(p, _np.float64, f"random.{op}") for p in params]
        shapes = [p.shape for p in ps if isinstance(p, Tensor)]
        shape = _shape(size) if size is not None else _xp.broadcast_shapes(*shapes) if shapes else ()
        return shape, ps

    def normal(self, loc=0.0, scale=1.0, size=None):
        shape, (mu, sd) = self._params(size, loc, scale, op="normal")
        if D.is_scalar(sd) and sd < 0:
            raise ValueError("nabla.numpy.random.normal: scale < 0")
        return mu + sd * self._normal(shape)

    def uniform(self, low=0.0, high=1.0, size=None):
        shape, (lo, hi) = self._params(size, low, high, op="uniform")
        return lo + (hi - lo) * self._uniform(shape)

    def standard_exponential(self, size=None, dtype=_np.float64, method="inv", out=None):
        u = self._uniform(_shape(size), _float_dtype(dtype, "standard_exponential"))
        return self._finish(-_xp.log1p(-u), out)

    def exponential(self, scale=1.0, size=None):
        shape, (s,) = self._params(size, scale, op="exponential")
        return s * -_xp.log1p(-self._uniform(shape))

    def lognormal(self, mean=0.0, sigma=1.0, size=None):
        return _xp.exp(self.normal(mean, sigma, size))

    def logistic(self, loc=0.0, scale=1.0, size=None):
        shape, (mu, s) = self._params(size, loc, scale, op="logistic")
        u = self._uniform(shape)
        return mu + s * (_xp.log(u) - _xp.log1p(-u))

    def gumbel(self, loc=0.0, scale=1.0, size=None):
        shape, (mu, s) = self._params(size, loc, scale, op="gumbel")
        return mu - s * _xp.log(-_xp.log1p(-self._uniform(shape)))

    def laplace(self, loc=0.0, scale=1.0, size=None):
        shape, (mu, s) = self._params(size, loc, scale, op="laplace")
        u = self._uniform(shape) - 0.5
        return mu - s * _xp.sign(u) * _xp.log1p(-2.0 * _xp.abs(u))

    # --- discrete -----------------------------------------------------------------------------------
    def integers(self, low, high=None, size=None, dtype=_np.int64, endpoint=False):
        if high is None:
            low, high = 0, low
        target = D.to_nabla(dtype, "integers")
        if not (target.is_integer or target.is_bool):
            raise TypeError(f"nabla.numpy.random.integers: dtype must be an integer type, got {target.name}")
        shape, (lo, hi) = self._params(size, low, high, op="integers")
        if endpoint:
            hi = hi + 1
        if D.is_scalar(lo) and D.is_scalar(hi) and hi <= lo:
            raise ValueError(f"nabla.numpy.random.integers: low >= high ({low} >= {high})")
        span = hi - lo
        k = _xp.floor(self._uniform(shape) * span)
        k = _xp.minimum(k, span - 1)
        return _astype(k + lo, target)

    def choice(self, a, size=None, replace=True, p=None, axis=0, shuffle=True):
        count = as_index(a)
        pool = None if count is not None else D.asarray(a, op="random.choice")
        n = count if pool is None else pool.shape[axis]
        shape = _shape(size)
        k = math.prod(shape)
        if n == 0 and k:
            raise ValueError("nabla.numpy.random.choice: a cannot be empty unless no samples are taken")
        if not replace and k > n:
            raise ValueError("nabla.numpy.random.choice: cannot take a larger sample than population when "
                             "replace=False")
        if p is not None:
            w = D.asarray(p, _np.float64, "random.choice")
            if w.shape != (n,):
                raise ValueError("nabla.numpy.random.choice: p must be 1-dimensional and the size of a")
            held = w.numpy()  # (parameters: checked at the call, as NumPy's are)
            if not (held >= 0).all():
                raise ValueError("nabla.numpy.random.choice: probabilities are not non-negative")
            if abs(float(held.sum()) - 1.0) > _np.sqrt(_np.finfo(_np.float64).eps):
                raise ValueError(f"nabla.numpy.random.choice: probabilities do not sum to 1 (they sum to {held.sum()})")
        if replace:
            if p is None:
                idx = self.integers(0, n, shape)
            else:
                cdf = _xp.cumulative_sum(w)
                u = self._uniform(shape) * cdf[-1]
                idx = _xp.minimum(_xp.searchsorted(cdf, _reshape(u, (-1,)), side="right"), n - 1)
                idx = _reshape(idx, shape)
        else:
            keys = self._uniform((n,))
            if p is not None:  # Efraimidis and Spirakis (2006): top-k of u^(1/w), as logs
                keys = _xp.log(keys + 1e-300) / w
            idx = _reshape(_xp.argsort(keys, descending=True)[:k], shape)
        if pool is None:
            return idx
        flat = _xp.take(pool, _reshape(idx, (-1,)), axis=axis)
        return _reshape(flat, pool.shape[:axis] + shape + pool.shape[axis + 1:])

    def permutation(self, x, axis=0):
        count = as_index(x)
        if count is not None:
            return _xp.argsort(self._uniform((count,)))
        arr = D.asarray(x, op="random.permutation")
        perm = _xp.argsort(self._uniform((arr.shape[axis],)))
        return _xp.take(arr, perm, axis=axis)

    def shuffle(self, x, axis=0):
        if not isinstance(x, Tensor):
            raise TypeError("nabla.numpy.random.shuffle: x must be a nabla array (it is shuffled in place)")
        aliasing.setitem(x, ..., self.permutation(x, axis))

    def bytes(self, length):
        return _np.asarray(self.integers(0, 256, length, dtype=_np.uint8)).tobytes()


def default_rng(seed=None):
    return seed if isinstance(seed, Generator) else Generator(seed)


class RandomState(Generator):
    """The legacy interface (``rand``, ``randn``, ``randint``, ``random_sample``) on the same generator."""

    def rand(self, *shape):
        return self.random(shape or None)

    def randn(self, *shape):
        return self.standard_normal(shape or None)

    def randint(self, low, high=None, size=None, dtype=int):
        return self.integers(low, high, size, dtype=dtype)

    def random_sample(self, size=None):
        return self.random(size)

    ranf = sample = random_sample

    def seed(self, seed=None):
        self.__init__(seed)


_GLOBAL = RandomState()


def seed(seed=None):
    _GLOBAL.seed(seed)


def get_state():
    raise NotImplementedError("nabla.numpy.random.get_state: NumPy's Mersenne Twister state has no counterpart; "
                              "keep a Generator (default_rng(seed)) and reuse it")


def _forward(name):
    def f(*args, **kwargs):
        return getattr(_GLOBAL, name)(*args, **kwargs)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"NumPy's legacy ``random.{name}`` on the global Philox generator (``seed`` resets it)."
    return f


for _name in ("rand", "randn", "randint", "random_sample", "ranf", "sample", "random", "uniform", "normal",
              "standard_normal", "exponential", "standard_exponential", "lognormal", "logistic", "gumbel",
              "laplace", "choice", "permutation", "shuffle", "bytes", "beta", "binomial", "chisquare", "dirichlet",
              "f", "gamma", "geometric", "hypergeometric", "logseries", "multinomial", "multivariate_normal",
              "negative_binomial", "noncentral_chisquare", "noncentral_f", "pareto", "poisson", "power",
              "rayleigh", "standard_cauchy", "standard_gamma", "standard_t", "triangular", "vonmises", "wald",
              "weibull", "zipf"):
    globals()[_name] = _forward(_name)
del _name
