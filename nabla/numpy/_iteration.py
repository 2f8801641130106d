"""NumPy's element-by-element APIs on face arrays: ``nditer`` and ``vectorize``.

Both hand values to Python one element at a time, so the values are read on the host, as NumPy's
are: ``nditer`` walks host copies of its operands with NumPy's own iterator (its flags, orders,
broadcasting and errors) and writes what the loop wrote back into the face arrays in one write per
operand; ``vectorize`` calls the Python function per element, as NumPy's does, and sends each result
array to MAX in one transfer. They are conveniences for code written as loops: whole-array
expressions stay lazy and run on MAX, far faster.
"""

from __future__ import annotations

import builtins
import itertools
import re

import numpy as _np

from .. import array_api as _xp
from ..ops.view import reshape as _reshape
from ..core.tensor import Tensor
from . import _dtypes as D
from ._ndarray import ndarray
from ._datetime import DatetimeArray
from ._records import StructuredArray

_CASTINGS = ("no", "equiv", "safe", "same_kind", "unsafe")
_WRITE_FLAGS = ("readwrite", "writeonly")


def _face_types() -> tuple:
    return Tensor, DatetimeArray, StructuredArray


def _again(e: Exception, op: str) -> Exception:
    """NumPy's error from the host iterator, under the face's name (the same class where it can)."""
    cls = builtins.type(e) if builtins.type(e) in (ValueError, TypeError, IndexError) else \
        TypeError if isinstance(e, TypeError) else ValueError if isinstance(e, ValueError) else None
    return e if cls is None else cls(f"nabla.numpy.{op}: {e}")


# --- nditer ----------------------------------------------------------------------------------------------
def _op_flags(op_flags, ops: list) -> list:
    """Each operand's flags, as NumPy reads ``op_flags`` (None: read inputs, allocate and write a None)."""
    if op_flags is None:
        return [("allocate", "writeonly") if o is None else ("readonly",) for o in ops]
    if len(op_flags) and isinstance(op_flags[0], str):
        return [tuple(op_flags)] * len(ops)
    per_op = [tuple(f) if isinstance(f, (list, tuple)) else () for f in op_flags]
    return per_op + [()] * (len(ops) - len(per_op))  # a wrong count is NumPy's error, raised below


def _op_dtypes(op_dtypes, n: int) -> list:
    if op_dtypes is None:
        return [None] * n
    try:
        if isinstance(op_dtypes, (list, tuple)) and len(op_dtypes) == n:
            return [None if d is None else _np.dtype(d) for d in op_dtypes]
        return [_np.dtype(op_dtypes)] * n
    except (TypeError, ValueError):
        return [None] * n  # NumPy's iterator raises its own error for it


class _Operands:
    """What an nditer (and its copies) walks: host copies of the operands, and the face arrays they
    came from. ``dirty``: elements were handed out since the last write-back."""

    __slots__ = ("ops", "hosts", "kinds", "writes", "types", "seen", "dirty")

    def __init__(self, ops, flags, op_flags, op_dtypes, casting):
        face = _face_types()
        per_op = _op_flags(op_flags, ops)
        wanted = _op_dtypes(op_dtypes, len(ops))
        self.ops, self.kinds, self.types, self.seen = [], [], [], []
        self.hosts: list = []
        self.writes = [builtins.any(f in _WRITE_FLAGS for f in fl) for fl in per_op]
        self.dirty = False
        ops = [o if o is None or isinstance(o, face + (_np.ndarray,)) else D.asarray(o, op="nditer") for o in ops]
        if "common_dtype" in (flags or ()):
            known = [w if w is not None else _dtype_of(o) for o, w in zip(ops, wanted) if o is not None]
            common = _np.result_type(*known) if known else None
            wanted = [None if o is None else common for o in ops]
        for i, (o, fl, want) in enumerate(zip(ops, per_op, wanted)):
            kind = "none" if o is None else "host" if isinstance(o, _np.ndarray) else \
                "tensor" if isinstance(o, Tensor) else "face"
            src = o
            if kind in ("tensor", "face") and want is not None and want != _dtype_of(o):
                _check_cast(i, _dtype_of(o), want, fl, flags, casting)
                src = o.astype(want)  # the cast runs on MAX; the host copy has the requested dtype
            self.ops.append(o)
            self.kinds.append(kind)
            self.types.append(want)
            self.seen.append(o._impl if kind == "tensor" else None)
            self.hosts.append(None if kind == "none" else o if kind == "host" else _np.array(src.numpy()))

    def walked(self, i: int, op_writable: bool):
        """The array NumPy's iterator gets for operand ``i``: read-only unless it is written."""
        host = self.hosts[i]
        if self.kinds[i] in ("host", "none") or (self.writes[i] and op_writable):
            return host
        view = host.view()
        view.flags.writeable = False  # NumPy then refuses write flags on a read-only face array
        return view

    def refresh(self) -> None:
        """Writes to a face operand since the last sync reach its host copy (NumPy shares the memory)."""
        for i, o in enumerate(self.ops):
            if self.kinds[i] == "tensor" and o._impl is not self.seen[i]:
                src = o if self.types[i] is None or self.types[i] == _dtype_of(o) else o.astype(self.types[i])
                self.hosts[i][...] = src.numpy()
                self.seen[i] = o._impl

    def write_back(self) -> None:
        """One write per written operand: the host copy into its face array (allocated ones made)."""
        if not self.dirty:
            return
        self.dirty = False
        for i, o in enumerate(self.ops):
            if not self.writes[i] or self.kinds[i] == "host":
                continue
            if o is None:
                self.operands()  # made from the host copy: nothing more to write
                continue
            o[...] = self.hosts[i]
            if self.kinds[i] == "tensor":
                self.seen[i] = o._impl

    def operands(self) -> tuple:
        for i, o in enumerate(self.ops):
            if o is None:  # an allocated operand becomes a face array when first seen
                self.ops[i] = D.asarray(self.hosts[i], op="nditer")
                self.seen[i] = self.ops[i]._impl
                self.kinds[i] = "tensor"
        return tuple(self.ops)


def _dtype_of(o) -> _np.dtype:
    return o.dtype.numpy_dtype if isinstance(o, Tensor) else _np.dtype(o.dtype)


def _check_cast(i, own, want, fl, flags, casting) -> None:
    """NumPy's checks, in its order, for an operand read or written as another dtype."""
    op = "nabla.numpy.nditer"
    if "writeonly" not in fl and not _np.can_cast(own, want, casting):
        raise TypeError(f"{op}: Iterator operand {i} dtype could not be cast from {own!r} to {want!r} "
                        f"according to the rule {casting!r}")
    if builtins.any(f in _WRITE_FLAGS for f in fl) and not _np.can_cast(want, own, casting):
        raise TypeError(f"{op}: Iterator requested dtype could not be cast from {want!r} to {own!r}, the "
                        f"operand {i} dtype, according to the rule {casting!r}")
    if "buffered" not in (flags or ()) and not builtins.any(f in ("copy", "updateifcopy") for f in fl):
        raise TypeError(f"{op}: Iterator operand required copying or buffering, but neither copying nor "
                        "buffering was enabled")


class nditer:
    """NumPy's ``nditer`` over face arrays (host copies walked by NumPy's own iterator).

    Elements are NumPy 0-d arrays (or 1-d chunks with ``external_loop``); ``x[...] = v`` writes the
    host copy, and the written operands get it back in one write when the loop ends, at ``close()``
    or the end of a ``with`` block, and when ``operands`` is read. A write to a face operand between
    elements reaches the copy before the next element. Face arrays have one (C) layout, so
    ``order='K'`` walks a transposed view in its C order."""

    __slots__ = ("_it", "_state", "_closed")

    def __init__(self, op, flags=None, op_flags=None, op_dtypes=None, order="K", casting="safe",
                 op_axes=None, itershape=None, buffersize=0):
        if casting not in _CASTINGS:
            raise ValueError(f"nabla.numpy.nditer: casting must be one of 'no', 'equiv', 'safe', 'same_kind', "
                             f"'unsafe' (got {casting!r})")
        many = isinstance(op, (list, tuple))
        ops = list(op) if many else [op]
        state = _Operands(ops, flags, op_flags, op_dtypes, casting)
        walked = [state.walked(i, _writable(o)) for i, o in enumerate(state.ops)]
        try:
            it = _np.nditer(builtins.type(op)(walked) if many else walked[0], flags, op_flags, op_dtypes,
                            order, casting, op_axes, itershape, buffersize)
        except (ValueError, TypeError) as e:
            raise _again(e, "nditer") from None
        for i, o in enumerate(state.ops):
            if o is None:
                state.hosts[i] = it.operands[i]  # NumPy allocated it: the loop writes there
        object.__setattr__(self, "_it", it)
        object.__setattr__(self, "_state", state)
        object.__setattr__(self, "_closed", False)

    @classmethod
    def _sharing(cls, it, state):
        self = object.__new__(cls)
        object.__setattr__(self, "_it", it)
        object.__setattr__(self, "_state", state)
        object.__setattr__(self, "_closed", False)
        return self

    # --- walking ------------------------------------------------------------------------------------
    def __iter__(self):
        return self

    def __next__(self):
        state = self._state
        state.refresh()
        try:
            value = next(self._it)
        except StopIteration:
            state.write_back()
            raise
        state.dirty = True
        return value

    def iternext(self):
        state = self._state
        state.refresh()
        more = self._it.iternext()
        state.dirty = True
        if not more:
            state.write_back()
        return more

    def __len__(self):
        return len(self._it)

    def _touched(self):
        self._state.refresh()
        self._state.dirty = True
        return self._it

    @property
    def value(self):
        return self._touched().value

    @property
    def itviews(self):
        return self._touched().itviews

    def __getitem__(self, i):
        return self._touched()[i]

    def __setitem__(self, i, value):
        self._touched()[i] = value

    @property
    def operands(self):
        if self._closed:
            raise ValueError("nabla.numpy.nditer: Iterator is invalid (closed)")
        self._state.write_back()
        return self._state.operands()

    def copy(self):
        return self._sharing(self._it.copy(), self._state)

    __copy__ = copy

    # --- closing ------------------------------------------------------------------------------------
    def close(self):
        if not self._closed:
            self._state.write_back()
            self._it.close()
            object.__setattr__(self, "_closed", True)

    def __enter__(self):
        self._it.__enter__()
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        # NumPy writes elements in place as the loop goes; a loop left early (``break``) still
        # reaches the face arrays when its iterator goes away
        try:
            if not self._closed:
                self._state.write_back()
        except Exception:  # at interpreter exit the engine may be gone: nothing left to write to
            pass

    # --- the rest is NumPy's iterator's (multi_index, index, iterindex, shape, reset, ...) -----------
    def __getattr__(self, name):
        if name in nditer.__slots__:  # not set yet: __init__ raised
            raise AttributeError(name)
        return getattr(self._it, name)

    def __setattr__(self, name, value):
        setattr(self._it, name, value)

    def __dir__(self):
        return sorted(set(dir(self._it)) | {"operands", "close", "copy"})


def _writable(o) -> bool:
    return not isinstance(o, ndarray) or o.flags.writeable


# --- vectorize ------------------------------------------------------------------------------------------
_DIM = r"\w+"
_ARG = rf"\((?:{_DIM}(?:,{_DIM})*)?\)"
_SIGNATURE = rf"^{_ARG}(?:,{_ARG})*->{_ARG}(?:,{_ARG})*$"


def _parse_signature(signature: str) -> tuple:
    sig = re.sub(r"\s+", "", signature)
    if not re.match(_SIGNATURE, sig):
        raise ValueError(f"nabla.numpy.vectorize: not a valid gufunc signature: {sig}")
    return tuple([tuple(re.findall(_DIM, arg)) for arg in re.findall(_ARG, side)] for side in sig.split("->"))


def _core_sizes(sizes: dict, shape: tuple, core: tuple) -> None:
    if not core:
        return
    if len(shape) < len(core):
        raise ValueError(f"nabla.numpy.vectorize: {len(shape)}-dimensional argument does not have enough "
                         f"dimensions for all core dimensions {core!r}")
    for dim, n in zip(core, shape[len(shape) - len(core):]):
        if sizes.setdefault(dim, n) != n:
            raise ValueError(f"nabla.numpy.vectorize: inconsistent size for core dimension {dim!r}: {n!r} vs "
                             f"{sizes[dim]!r}")


def _host_input(a):
    """An argument's values on the host (face arrays read once; lists of them stacked on MAX first)."""
    if isinstance(a, _face_types()):
        return a.numpy()
    if isinstance(a, (list, tuple)) and builtins.any(isinstance(v, Tensor) for v in a):
        return D.asarray(a, op="vectorize").numpy()
    return a


class vectorize:
    """NumPy's ``vectorize``: ``pyfunc`` called on each element (Python scalars, read on the host) of
    the broadcast arguments, its results sent to MAX as one array per output. As NumPy says of its
    own, a convenience loop, not a fast one. With ``signature``, ``pyfunc`` gets face-array slices
    (lazy, on MAX) and the results are stacked on MAX."""

    def __init__(self, pyfunc=_np._NoValue, otypes=None, doc=None, excluded=None, cache=False,
                 signature=None):
        if pyfunc is not _np._NoValue and not callable(pyfunc):
            raise TypeError("nabla.numpy.vectorize: When used as a decorator, only accepts keyword arguments.")
        self.pyfunc, self.cache, self.signature = pyfunc, cache, signature
        if pyfunc is not _np._NoValue and hasattr(pyfunc, "__name__"):
            self.__name__ = pyfunc.__name__
        self._doc = None
        self.__doc__ = doc
        if doc is None and hasattr(pyfunc, "__doc__"):
            self.__doc__ = pyfunc.__doc__
        else:
            self._doc = doc
        if isinstance(otypes, str):
            for char in otypes:
                if char not in _np.typecodes["All"]:
                    raise ValueError(f"nabla.numpy.vectorize: Invalid otype specified: {char}")
        elif _np.iterable(otypes):
            otypes = [_np.dtype(x) for x in otypes]
        elif otypes is not None:
            raise ValueError("nabla.numpy.vectorize: Invalid otype specification")
        self.otypes = otypes
        self.excluded = set() if excluded is None else set(excluded)
        self._core = None if signature is None else _parse_signature(signature)

    def __call__(self, *args, **kwargs):
        if self.pyfunc is _np._NoValue:  # ``@vectorize(otypes=...)``: now the function
            self.pyfunc = args[0]
            self.__name__ = args[0].__name__
            self.__doc__ = args[0].__doc__ if self._doc is None else self._doc
            return self
        excluded = self.excluded
        if not kwargs and not excluded:
            return self._call(self.pyfunc, list(args))
        names = [n for n in kwargs if n not in excluded]
        inds = [i for i in range(len(args)) if i not in excluded]
        the_args = list(args)

        def func(*vargs):
            for n, i in enumerate(inds):
                the_args[i] = vargs[n]
            kwargs.update(zip(names, vargs[len(inds):]))
            return self.pyfunc(*the_args, **kwargs)

        return self._call(func, [args[i] for i in inds] + [kwargs[n] for n in names])

    def _call(self, func, args: list):
        if self._core is not None:
            return self._call_with_signature(func, args)
        if not args:
            return func()
        hosts = [_host_input(a) for a in args]
        otypes = self.otypes
        if otypes is None:
            first = [_np.asarray(h) for h in hosts]
            if builtins.any(a.size == 0 for a in first):
                raise ValueError("nabla.numpy.vectorize: cannot call `vectorize` on size 0 inputs unless `otypes` "
                                 "is set")
            outputs = func(*[a.flat[0] for a in first])  # NumPy's rule: the first element sets the dtypes
            cached = [outputs] if self.cache else []
            outputs = outputs if isinstance(outputs, tuple) else (outputs,)
            otypes = [_result_dtype(v) for v in outputs]
            inner = func

            def func(*vargs):
                return cached.pop() if cached else inner(*vargs)

        objects = [_np.asarray(h, dtype=object) for h in hosts]
        _broadcast([o.shape for o in objects])
        outs = _np.frompyfunc(func, len(objects), len(otypes))(*objects, out=...)
        outs = outs if isinstance(outs, tuple) else (outs,)
        results = tuple(_to_face(o, t) for o, t in zip(outs, otypes))
        return results[0] if len(results) == 1 else results

    def _call_with_signature(self, func, args: list):
        ins, outs = self._core
        if len(args) != len(ins):
            raise TypeError(f"nabla.numpy.vectorize: wrong number of positional arguments: expected {len(ins)!r}, "
                            f"got {len(args)!r}")
        arrays = [D.asarray(a, op="vectorize") for a in args]
        sizes: dict = {}
        for a, core in zip(arrays, ins):
            _core_sizes(sizes, a.shape, core)
        loop = _broadcast([a.shape[:a.ndim - len(core)] for a, core in zip(arrays, ins)])
        arrays = [_xp.broadcast_to(a, loop + tuple(sizes[d] for d in core)) for a, core in zip(arrays, ins)]
        found: list = [[] for _ in outs]
        dtypes = None if self.otypes is None else [_np.dtype(t) for t in self.otypes]
        for index in itertools.product(*(range(n) for n in loop)):
            results = func(*(a[index] for a in arrays))
            got = len(results) if isinstance(results, tuple) else 1
            if got != len(outs):
                raise ValueError(f"nabla.numpy.vectorize: wrong number of outputs from pyfunc: expected "
                                 f"{len(outs)!r}, got {got!r}")
            results = results if isinstance(results, tuple) else (results,)
            if not found[0]:
                for r, core in zip(results, outs):
                    _core_sizes(sizes, _np.shape(r) if not isinstance(r, Tensor) else r.shape, core)
                dtypes = dtypes or [_result_dtype(r) for r in results]
            for k, r in enumerate(results):
                shape = tuple(sizes[d] for d in outs[k])
                found[k].append(_xp.broadcast_to(D.asarray(r, op="vectorize"), shape))
        if not found[0]:
            if dtypes is None:
                raise ValueError("nabla.numpy.vectorize: cannot call `vectorize` on size 0 inputs unless `otypes` "
                                 "is set")
            if builtins.any(d not in sizes for core in outs for d in core):
                raise ValueError("nabla.numpy.vectorize: cannot call `vectorize` with a signature including new "
                                 "output dimensions on size 0 inputs")
        results = []
        for k, core in enumerate(outs):
            shape = loop + tuple(sizes[d] for d in core)
            target = D.to_nabla(dtypes[k], "vectorize")
            if found[k]:
                parts = [p if p.dtype is target else _xp.astype(p, target) for p in found[k]]
                results.append(ndarray(_reshape(_xp.stack(parts, axis=0), shape)._impl))
            else:
                results.append(ndarray(_xp.zeros(shape, dtype=target)._impl))
        return results[0] if len(results) == 1 else tuple(results)


def _broadcast(shapes: list) -> tuple:
    try:
        return _np.broadcast_shapes(*shapes)
    except ValueError as e:  # checked first: errors raised by ``pyfunc`` itself pass untouched
        raise _again(e, "vectorize") from None


def _result_dtype(v) -> _np.dtype:
    return v.dtype.numpy_dtype if isinstance(v, Tensor) else _np.asarray(v).dtype


def _to_face(values: _np.ndarray, otype):
    """One output of the loop (an object array) as a face array of ``otype``: one transfer, or a lazy
    stack where the function returned face arrays."""
    flat = values.reshape(-1).tolist()
    if builtins.any(isinstance(v, Tensor) for v in flat):
        target = D.to_nabla(otype, "vectorize")
        parts = [D.asarray(v, op="vectorize") for v in flat]
        parts = [p if p.dtype is target else _xp.astype(p, target) for p in parts]
        return ndarray(_reshape(_xp.stack(parts, axis=0), values.shape)._impl)
    try:
        host = _np.asarray(values, dtype=otype)
    except (TypeError, ValueError) as e:
        raise _again(e, "vectorize") from None
    return D.asarray(host, op="vectorize", strings=True)
