"""``__array_namespace_info__``: devices, dtypes and capabilities."""

from __future__ import annotations

from max import driver

from ..core import dtypes as _dt
from ..core.context import cpu, get_default_device, get_default_dtype, get_default_int_dtype
from ._dtypes import DTYPES, isdtype

_KINDS = ("bool", "signed integer", "unsigned integer", "integral", "real floating", "complex floating", "numeric")


class _Info:
    def capabilities(self) -> dict:
        return {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": 64}

    def default_device(self):
        return get_default_device()

    def devices(self) -> list:
        return [cpu(), *(driver.Accelerator(i) for i in range(driver.accelerator_count()))]

    def default_dtypes(self, *, device=None) -> dict:
        real = get_default_dtype()
        return {"real floating": real, "complex floating": _dt.complex_dtype(real),
                "integral": get_default_int_dtype(), "indexing": _dt.int64}

    def dtypes(self, *, device=None, kind=None) -> dict:
        if kind is None:
            return {d.name: d for d in DTYPES}
        return {d.name: d for d in DTYPES if isdtype(d, kind)}


def __array_namespace_info__() -> _Info:
    return _Info()
