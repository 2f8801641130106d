"""The FFT kernel's GPU path checked on the CPU: ``tests/mojo/fft_gpu_math.mojo`` runs its gather,
Stockham passes (radices 2 to 13), Bluestein and scatter one row at a time (what its block kernel
does, minus the threads) over c2c, r2c and c2r cases; each output is checked against NumPy here.
The threads, shared memory and the four-step are left to a GPU (``python -m bench.gpu_check``)."""

import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _mojo():
    """The Mojo compiler (the ``mojo-compiler`` wheel MAX depends on puts it beside Python)."""
    found = shutil.which("mojo") or os.path.join(os.path.dirname(sys.executable), "mojo")
    assert os.path.exists(found), "no mojo compiler on PATH or beside Python: MAX's install ships one"
    return found


@pytest.fixture(scope="module")
def emulated():
    mojo = _mojo()
    out = subprocess.run([mojo, "run", "-I", os.path.join(_ROOT, "nabla", "ops", "kernels"),
                          os.path.join(_ROOT, "tests", "mojo", "fft_gpu_math.mojo")],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    lines = [line for line in out.stdout.splitlines() if line.strip()]
    return list(zip(lines[0::2], lines[1::2]))


def _expected(seed, dtype, batch, rows_in, cols_in, rows_out, cols_out, sign, scaling):
    size = batch * rows_in * cols_in
    x = (((np.arange(size) * 7919 + seed * 104729) % 1000) / 500.0 - 1.0).astype(dtype).astype(np.float64)
    x = x.reshape(batch, rows_in, cols_in)
    if cols_in == cols_out:  # c2c
        n = rows_in
        z = x[..., 0::2] + 1j * x[..., 1::2]
        y = np.fft.fft(z, axis=1) if sign < 0 else np.fft.ifft(z, axis=1) * n
    elif cols_out > cols_in:  # r2c: the + sign conjugates
        n = rows_in
        y = np.fft.rfft(x, axis=1)
        y = y if sign < 0 else y.conj()
    else:  # c2r
        n = rows_out
        h = x[..., 0::2] + 1j * x[..., 1::2]
        return np.fft.irfft(h if sign > 0 else h.conj(), n=n, axis=1) * n / [1.0, np.sqrt(n), n][scaling]
    y = y / [1.0, np.sqrt(n), n][scaling]
    out = np.empty(y.shape[:2] + (2 * y.shape[2],))
    out[..., 0::2], out[..., 1::2] = y.real, y.imag
    return out


def test_every_case_ran(emulated):
    assert len(emulated) == 2 * 30 * 2 * 3


def test_gpu_path_matches_numpy(emulated):
    bad = []
    for head, values in emulated:
        _, seed, name, *dims, sign, scaling = head.split()
        dims = [int(d) for d in dims]
        want = _expected(int(seed), np.dtype(name), *dims, int(sign), int(scaling))
        got = np.array([float(v) for v in values.split()]).reshape(want.shape)
        err = np.linalg.norm(got - want) / max(np.linalg.norm(want), 1e-300)
        if err > (1e-13 if name == "float64" else 5e-6):
            bad.append(f"{head}: {err:.1e}")
    assert not bad, "\n".join(bad[:20])
