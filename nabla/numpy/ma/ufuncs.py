"""The masked ufuncs: every ufunc of the face, with NumPy's mask rules, and the operators of
``MaskedArray`` built from them.

A result is masked where an operand is, and, for the functions with a domain (NumPy's table:
``sqrt``, ``log*``, ``arcsin``/``arccos``/``arccosh``/``arctanh``, ``tan``, the divisions), where the
input is outside it or the result is not finite. Masked entries keep the first operand's data.
"""

from __future__ import annotations

import numpy as _np

from ...core.tensor import Tensor
from ...ops import aliasing
from .. import _dtypes as D
from .core import MaskedArray, _copy_mask, _fnp, _fresh, _or, fill_scalar, getdata, getmask, getmaskarray, nomask
from .._ufuncs import write_out

_TINY = float(_np.finfo(_np.float64).tiny)


def _interval(lo, hi):
    return lambda x: _fnp().logical_or(x < lo, x > hi)


def _safe_divide(a, b):
    fnp = _fnp()
    return fnp.absolute(a) * _TINY >= fnp.absolute(b)


#: NumPy's domains (``numpy.ma.core``'s ``_Domain*`` classes): True where the input is outside
UNARY_DOMAINS = {
    "sqrt": lambda x: x < 0.0,
    "log": lambda x: x <= 0.0, "log2": lambda x: x <= 0.0, "log10": lambda x: x <= 0.0,
    "arcsin": _interval(-1.0, 1.0), "arccos": _interval(-1.0, 1.0), "asin": _interval(-1.0, 1.0),
    "acos": _interval(-1.0, 1.0), "arccosh": lambda x: x < 1.0, "acosh": lambda x: x < 1.0,
    "arctanh": _interval(-1.0 + 1e-15, 1.0 - 1e-15), "atanh": _interval(-1.0 + 1e-15, 1.0 - 1e-15),
    "tan": lambda x: _fnp().absolute(_fnp().cos(x)) < 1e-35,
}
BINARY_DOMAINS = {name: _safe_divide for name in
                  ("divide", "true_divide", "floor_divide", "remainder", "mod", "fmod")}


def _put_back(result, d, m, casting: str):
    """``np.copyto(result, d, where=m)``: masked entries keep the operand's data where it casts."""
    dt = result.dtype.numpy_dtype
    if m is nomask or not _np.can_cast(d.dtype.numpy_dtype, dt, casting):
        return result
    return _fnp().where(m, d if d.dtype is result.dtype else d.astype(dt), result)


#: the masked reductions and scans behind binary ufuncs' ``reduce`` and ``accumulate``, by ufunc
#: name (``reductions`` fills them)
REDUCTIONS: dict = {}
SCANS: dict = {}


class MaskedUfunc:
    """A face ufunc with masks: ``__call__``, and ``reduce``/``accumulate``/``outer`` for binary ones."""

    def __init__(self, name: str, face_ufunc):
        self.__name__ = name
        self._u = face_ufunc
        self.nin, self.nout = face_ufunc.nin, face_ufunc.nout
        self._domain = (UNARY_DOMAINS if self.nin == 1 else BINARY_DOMAINS).get(name)
        self.__doc__ = f"NumPy's ``ma.{name}``: the face's ``{name}`` with masks."

    def __repr__(self):
        return f"<masked ufunc '{self.__name__}' (nabla.numpy.ma)>"

    def __call__(self, *args, **kwargs):
        if "out" in kwargs:
            raise TypeError(f"nabla.numpy.ma.{self.__name__}: out= is not supported for masked arrays")
        if self.__name__ in ("maximum", "minimum") and len(args) == 1:  # NumPy's ma: one argument reduces
            return self.reduce(args[0], axis=None)
        if len(args) != self.nin:
            raise TypeError(f"nabla.numpy.ma.{self.__name__}: takes {self.nin} input(s), got {len(args)}")
        data = [getdata(a) for a in args]
        masks = [getmask(a) for a in args]
        results = self._u(*data, **kwargs)
        if self.nout > 1:
            m = _or(masks[0], masks[1] if self.nin > 1 else nomask, results[0].shape)
            return tuple(MaskedArray._from(r, _copy_mask(m) if i else m, _like(args))
                         for i, r in enumerate(results))
        r = results
        m = _or(masks[0], masks[1] if self.nin > 1 else nomask, r.shape)
        fnp = _fnp()
        if self._domain is not None:
            bad = fnp.logical_or(self._domain(*data), fnp.logical_not(fnp.isfinite(r)))
            m = bad if m is nomask else fnp.logical_or(m, bad)
            m = _fresh(m, r.shape) if m.shape != r.shape else m
        r = _put_back(r, data[0], m, "same_kind" if self.nin == 1 else "unsafe")
        return MaskedArray._from(r, m, _like(args))

    # --- methods (binary ufuncs) --------------------------------------------------------------------
    def reduce(self, target, axis=0, dtype=None, **kwargs):
        fn = REDUCTIONS.get(self.__name__)
        if fn is None:
            raise NotImplementedError(f"nabla.numpy.ma.{self.__name__}.reduce: only add, multiply, maximum, "
                                      "minimum, logical_and and logical_or reduce masked arrays")
        kw = {"dtype": dtype} if dtype is not None else {}
        return fn(target, axis=axis, **kw, **kwargs)

    def accumulate(self, target, axis=0, dtype=None):
        fn = SCANS.get(self.__name__)
        if fn is None:
            raise NotImplementedError(f"nabla.numpy.ma.{self.__name__}.accumulate: only add and multiply "
                                      "accumulate masked arrays")
        return fn(target, axis=axis, dtype=dtype)

    def outer(self, a, b):
        d = self._u.outer(getdata(a), getdata(b))
        if getmask(a) is nomask and getmask(b) is nomask:
            return MaskedArray._from(d, nomask, _like((a, b)))
        return MaskedArray._from(d, _fnp().logical_or.outer(getmaskarray(a), getmaskarray(b)), _like((a, b)))


def _like(args):
    return next((a for a in args if isinstance(a, MaskedArray)), None)


def power(a, b, third=None):
    """NumPy's ``ma.power``: masked where an operand is, and where the result is not finite."""
    if third is not None:
        raise NotImplementedError("nabla.numpy.ma.power: the 3-argument form is not supported")
    fnp = _fnp()
    fa, fb = getdata(a), getdata(b)
    r = fnp.power(fa, fb)
    m = _or(getmask(a), getmask(b), r.shape)
    if m is not nomask:
        r = _put_back(r, fa, m, "unsafe")
    invalid = fnp.logical_not(fnp.isfinite(r))
    out = MaskedArray._from(r, invalid if m is nomask else fnp.logical_or(m, invalid), _like((a, b)))
    if r.dtype.numpy_dtype.kind in "fc":  # NumPy: the fill value under the invalid entries
        out._data = fnp.where(invalid, fill_scalar(out.fill_value, r.dtype.numpy_dtype), r)
    return out


def _comparison(name):
    """``a == b`` and friends: masked where either is; ``==``/``!=`` compare the masks under them."""
    def op(a, b):
        fnp = _fnp()
        face = getattr(fnp, name)
        r = face(getdata(a), getdata(b))
        ma, mb = getmask(a), getmask(b)
        m = _or(ma, mb, r.shape)
        if m is not nomask and name in ("equal", "not_equal"):
            sm = fnp.zeros((), bool) if ma is nomask else ma
            om = fnp.zeros((), bool) if mb is nomask else mb
            r = fnp.where(m, face(sm, om), r)
        out = MaskedArray._from(r, m, None)
        return out
    return op


def _build():
    fnp = _fnp()
    table = {name: MaskedUfunc(name, u) for name, u in fnp._UFUNCS.items()}
    return table


MASKED_UFUNCS: dict = _build()
MASKED_UFUNCS["power"] = MASKED_UFUNCS["pow"] = power  # NumPy's ma.power is a function of its own
COMPARISONS = {name: _comparison(name) for name in
               ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal")}


# --- the operators ------------------------------------------------------------------------------------
def _operand_ok(v) -> bool:
    return isinstance(v, (MaskedArray, Tensor, _np.ndarray, _np.generic, list, tuple)) or D.is_scalar(v)


def _binary(fn):
    def op(self, other):
        return fn(self, other) if _operand_ok(other) else NotImplemented
    return op


def _reflected(fn):
    def op(self, other):
        return fn(other, self) if _operand_ok(other) else NotImplemented
    return op


def _inplace(fn, name: str):
    def op(self, other):
        r = fn(self, other)
        write_out(self._data, r._data, name)
        if r._mask is not nomask:
            if self._mask is nomask:
                self._mask = r._mask
            else:
                aliasing.setitem(self._mask, ..., r._mask)
        return self
    return op


__all__ = ["MaskedUfunc", "MASKED_UFUNCS", "power"]
