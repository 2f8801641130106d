"""Nabla's data types and the promotion lattice.

A ``DType`` is Nabla's own object: it names the MAX dtype that stores it and the
NumPy dtype used at the host boundary. Complex dtypes are declared here so the
lattice is whole; their storage (paired reals) is the array API layer's concern.
"""

from __future__ import annotations

import numpy as _np
from max.dtype import DType as _MaxDType


class DType:
    """A Nabla data type. Instances are singletons; compare with ``==`` or ``is``."""

    __slots__ = ("name", "kind", "itemsize", "max_dtype", "numpy_dtype", "_rank", "_hash", "is_floating",
                 "is_complex", "is_integer", "is_bool")

    def __init__(self, name: str, kind: str, itemsize: int, max_dtype, rank: int):
        self.name = name
        self.kind = kind  # 'b' bool, 'i' signed, 'u' unsigned, 'f' real float, 'c' complex
        # (attributes, not properties: op recording asks them of every operand)
        self.is_floating = kind == "f"
        self.is_complex = kind == "c"
        self.is_integer = kind in "iu"
        self.is_bool = kind == "b"
        self.itemsize = itemsize
        self.max_dtype = max_dtype
        self.numpy_dtype = _np.dtype(name)
        self._rank = rank
        self._hash = hash(self.numpy_dtype)  # as NumPy's dtype (equal objects, equal hashes); every trace key hashes it

    def __repr__(self) -> str:
        return f"nabla.{self.name}"

    def __str__(self) -> str:
        return self.name  # as NumPy's str(dtype)

    def __eq__(self, other) -> bool:
        """Equal to itself and to what names it: ``x.dtype == np.float64``, ``== "float32"`` (as NumPy's)."""
        if isinstance(other, DType):
            return other is self
        if not isinstance(other, (str, type, _np.dtype)):
            return False
        try:
            return _np.dtype(other) == self.numpy_dtype
        except (TypeError, ValueError):
            return False

    def __ne__(self, other) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return self._hash

    @property
    def char(self) -> str:
        return self.numpy_dtype.char

    @property
    def str(self) -> str:  # noqa: A003  (NumPy's attribute name)
        return self.numpy_dtype.str

    @property
    def type(self):  # noqa: A003
        """NumPy's scalar type (``x.dtype.type(3)``)."""
        return self.numpy_dtype.type

    def __reduce__(self):
        return (from_name, (self.name,))

    @property
    def dtype(self) -> _np.dtype:
        """NumPy's protocol: ``np.dtype(nabla.float64)`` (and ``dtype=`` in NumPy calls) reads this."""
        return self.numpy_dtype


_M = _MaxDType
bool_ = DType("bool", "b", 1, _M.bool, 0)
int8 = DType("int8", "i", 1, _M.int8, 1)
int16 = DType("int16", "i", 2, _M.int16, 2)
int32 = DType("int32", "i", 4, _M.int32, 3)
int64 = DType("int64", "i", 8, _M.int64, 4)
uint8 = DType("uint8", "u", 1, _M.uint8, 1)
uint16 = DType("uint16", "u", 2, _M.uint16, 2)
uint32 = DType("uint32", "u", 4, _M.uint32, 3)
uint64 = DType("uint64", "u", 8, _M.uint64, 4)
float16 = DType("float16", "f", 2, _M.float16, 1)
float32 = DType("float32", "f", 4, _M.float32, 2)
float64 = DType("float64", "f", 8, _M.float64, 3)
complex64 = DType("complex64", "c", 8, None, 2)
complex128 = DType("complex128", "c", 16, None, 3)

ALL_DTYPES: tuple[DType, ...] = (
    bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
    float16, float32, float64, complex64, complex128,
)
_BY_NAME = {d.name: d for d in ALL_DTYPES}
_BY_NUMPY = {d.numpy_dtype: d for d in ALL_DTYPES}
#: NumPy's scalar types of the int, float (but float16) and complex dtypes -> those dtypes: a
#: scalar of an array's own dtype is an operand of that dtype, no weak scalar (NEP 50)
NUMPY_SCALARS = {_np.dtype(d.numpy_dtype).type: d for d in (int8, int16, int32, int64, uint8, uint16, uint32, uint64,
                                                           float32, float64, complex64, complex128)}
_BY_MAX = {d.max_dtype: d for d in ALL_DTYPES if d.max_dtype is not None}
_INTS_BY_SIZE = {d.itemsize: d for d in (int8, int16, int32, int64)}
_COMPLEX_OF = {float32: complex64, float64: complex128, float16: complex64}
_REAL_OF = {complex64: float32, complex128: float64}


def from_name(name: str) -> DType:
    return _BY_NAME[name]


def as_dtype(obj) -> DType:
    """Turn a Nabla dtype, a NumPy dtype, a MAX dtype, a name or a Python type into a Nabla dtype."""
    if isinstance(obj, DType):
        return obj
    if obj is bool:
        return bool_
    if isinstance(obj, _MaxDType):
        found = _BY_MAX.get(obj)
    else:
        try:
            nd = _np.dtype(obj)
            # (a dtype of the other byte order, ``>f8``: its values are this machine's dtype's once read)
            found = _BY_NUMPY.get(nd if nd.isnative else nd.newbyteorder("="))
        except TypeError:
            found = None
    if found is None:
        raise TypeError(f"nabla: unsupported dtype {obj!r}; supported: {', '.join(_BY_NAME)}")
    return found


def real_dtype(dtype: DType) -> DType:
    return _REAL_OF.get(dtype, dtype)


def complex_dtype(dtype: DType) -> DType:
    return _COMPLEX_OF[dtype]


def _float_rank(d: DType) -> int:
    """The float rank a dtype meets a float at: its own, or for an integer the smallest float
    that holds it (NumPy's rule for mixed kinds, which the standard leaves open): 8-bit integers
    float16, 16-bit float32, wider float64."""
    if d.kind in "fc":
        return d._rank
    return 1 if d.itemsize == 1 else 2 if d.itemsize == 2 else 3


def _promote_pair(a: DType, b: DType) -> DType:
    if a is b:
        return a
    ka, kb = a.kind, b.kind
    if ka == "b":
        return b
    if kb == "b":
        return a
    if ka in "fc" or kb in "fc":
        rank = max(_float_rank(a), _float_rank(b))
        if ka == "c" or kb == "c":
            return complex64 if rank <= 2 else complex128
        return float16 if rank == 1 else float32 if rank == 2 else float64
    if ka == kb:
        return a if a._rank >= b._rank else b
    signed, unsigned = (a, b) if ka == "i" else (b, a)
    if unsigned.itemsize < signed.itemsize:
        return signed
    if unsigned.itemsize == 8:
        raise TypeError(f"nabla: no integer dtype holds both {a.name} and {b.name}")
    return _INTS_BY_SIZE[unsigned.itemsize * 2]


def result_type(*dtypes: DType) -> DType:
    """Promote dtypes by the Array API lattice; mixed integer and float kinds as NumPy."""
    if not dtypes:
        raise ValueError("nabla.result_type: at least one dtype is required")
    out = dtypes[0]
    for d in dtypes[1:]:
        out = _promote_pair(out, d)
    return out
