"""``nabla.numpy.fft``: NumPy's ``fft`` over the standard's extension (Nabla's Mojo FFT kernel), with
NumPy's positional signatures, integer inputs taken as float64, and ``fft2``/``ifft2``/``rfft2``/``irfft2``."""

from __future__ import annotations

from ..array_api import fft as _fft
from ..core import dtypes as _dt
from ..ops.elementwise import astype as _astype
from . import _dtypes as D
from ._ufuncs import write_out


def _input(a, op):
    x = D.asarray(a, op=f"fft.{op}")
    return _astype(x, _dt.float64) if x.dtype.kind in "biu" else x


def _one_d(name):
    fn = getattr(_fft, name)

    def transform(a, n=None, axis=-1, norm=None, out=None):
        r = fn(_input(a, name), n=n, axis=axis, norm=norm or "backward")
        return r if out is None else write_out(out, r, f"fft.{name}")

    transform.__name__ = transform.__qualname__ = name
    transform.__doc__ = f"NumPy's ``fft.{name}`` on MAX."
    return transform


def _n_d(name, default_axes=None):
    fn = getattr(_fft, name.rstrip("2") + ("n" if name.endswith("2") else ""))

    def transform(a, s=None, axes=default_axes, norm=None, out=None):
        r = fn(_input(a, name), s=s, axes=axes, norm=norm or "backward")
        return r if out is None else write_out(out, r, f"fft.{name}")

    transform.__name__ = transform.__qualname__ = name
    transform.__doc__ = f"NumPy's ``fft.{name}`` on MAX."
    return transform


fft, ifft, rfft, irfft, hfft, ihfft = (_one_d(n) for n in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft"))
fftn, ifftn, rfftn, irfftn = (_n_d(n) for n in ("fftn", "ifftn", "rfftn", "irfftn"))
fft2, ifft2, rfft2, irfft2 = (_n_d(n, (-2, -1)) for n in ("fft2", "ifft2", "rfft2", "irfft2"))


def fftfreq(n, d=1.0, device=None):
    return _fft.fftfreq(n, d=d, dtype=_dt.float64, device=device)


def rfftfreq(n, d=1.0, device=None):
    return _fft.rfftfreq(n, d=d, dtype=_dt.float64, device=device)


def fftshift(x, axes=None):
    return _fft.fftshift(D.asarray(x, op="fft.fftshift"), axes=axes)


def ifftshift(x, axes=None):
    return _fft.ifftshift(D.asarray(x, op="fft.ifftshift"), axes=axes)
