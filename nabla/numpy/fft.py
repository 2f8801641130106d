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
    if x.dtype is _dt.float16:  # (NumPy transforms float16 in float32: see ``_finish``)
        return _astype(x, _dt.float32), True
    return (_astype(x, _dt.float64) if x.dtype.kind in "biu" else x), False


def _finish(r, half, name, out):
    """NumPy's result; ``half``: float16 input transformed along one axis, whose real result is
    float16 again (NumPy's ``irfft``/``hfft``; its n-D ones, an ``ifft`` then an ``irfft``, give
    float32; a complex result stays complex64, there being no complex float16)."""
    if half and not r.dtype.is_complex:
        r = _astype(r, _dt.float16)
    return r if out is None else write_out(out, r, f"fft.{name}")


def _one_d(name):
    fn = getattr(_fft, name)

    def transform(a, n=None, axis=-1, norm=None, out=None):
        x, half = _input(a, name)
        return _finish(fn(x, n=n, axis=axis, norm=norm or "backward"), half, name, out)

    transform.__name__ = transform.__qualname__ = name
    transform.__doc__ = f"NumPy's ``fft.{name}`` on MAX."
    return transform


def _n_d(name, default_axes=None):
    fn = getattr(_fft, name.rstrip("2") + ("n" if name.endswith("2") else ""))

    def transform(a, s=None, axes=default_axes, norm=None, out=None):
        x, half = _input(a, name)
        count = len(axes) if axes is not None else len(s) if s is not None else x.ndim
        return _finish(fn(x, s=s, axes=axes, norm=norm or "backward"), half and count == 1, name, out)

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
