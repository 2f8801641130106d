"""A second newcomer script, of other op families than ``newcomer_script.py`` (gradients, fits,
interpolation, binning, decompositions, 2-d transforms, windows of indices, roots): 23 sections on a
400 x 16 data set, each ending in a checksum. ``python bench/second_script.py [numpy|nabla]``,
as the first script.
"""

from __future__ import annotations

import sys

if __package__ in (None, ""):
    sys.path.insert(0, __import__("os").path.dirname(__file__))
from newcomer_script import run


def sections(np):
    rng = __import__("numpy").random.default_rng(1)
    data = np.asarray(rng.standard_normal((400, 16)))
    t = np.linspace(0.0, 4.0, 400)
    signal = np.sin(3 * t) + 0.1 * data[:, 0]

    def gradient():
        return float(np.gradient(signal).sum() + np.gradient(data, axis=0)[5].sum())

    def polyfit():
        coef = np.polyfit(t, signal, 3)
        return float(np.abs(coef).sum() + np.polyval(coef, t[:10]).sum())

    def interp():
        return float(np.interp(np.linspace(0.5, 3.5, 50), t, signal).sum())

    def searchsorted():
        edges = np.sort(data[:, 1])
        return int(np.searchsorted(edges, data[:50, 2]).sum())

    def bincount_digitize():
        bins = np.linspace(-2, 2, 9)
        d = np.digitize(data[:, 3], bins)
        return int((np.bincount(d) * np.arange(len(bins) + 1)).sum())

    def cumprod():
        return float(np.cumprod(1 + data[:20, 4] / 10).sum())

    def quantile():
        return float(np.quantile(data, [0.25, 0.75], axis=0).sum())

    def matrix_power():
        a = data[:4, :4] / 4
        return float(np.linalg.matrix_power(a, 3).sum())

    def qr():
        q, r = np.linalg.qr(data)
        return float(np.abs(np.diag(r)).sum() + np.abs(q[:, 0]).sum())

    def cholesky():
        a = data.T @ data / 400 + np.eye(16)
        return float(np.linalg.cholesky(a).sum())

    def pinv():
        return float(np.abs(np.linalg.pinv(data[:30, :8])).sum())

    def fft2():
        return float(np.abs(np.fft.fft2(data[:32])).sum())

    def meshgrid():
        x, y = np.meshgrid(np.arange(5), np.arange(3))
        return int((x * 10 + y).sum())

    def kron():
        return float(np.kron(np.eye(3), data[:2, :2]).sum())

    def tril_roll():
        return float(np.tril(data[:16]).sum() + np.roll(data[:, 0], 3)[:5].sum())

    def argpartition():
        p = np.argpartition(data[:, 5], 10)[:10]
        return float(np.sort(data[p, 5]).sum())

    def take_along_axis():
        order = np.argsort(data, axis=1)
        return float(np.take_along_axis(data, order, axis=1)[:, -1].sum())

    def float32_stats():
        x = data.astype(np.float32)
        return float(x.mean() + x.std() + x.var(axis=0).sum())

    def where_clip():
        return float(np.where(data > 0, data, 0.1 * data).sum() + np.clip(data, -1, 1).sum())

    def outer_norm():
        return float(np.outer(data[:10, 0], data[:10, 1]).sum() + np.linalg.norm(data, ord=1))

    def logical():
        m = (data > 0.5) & ~(data > 1.5) | (data < -2)
        return int(m.sum() + np.count_nonzero(m, axis=0).max() + np.all(m, axis=1).sum())

    def svd_default():  # (NumPy's default: full_matrices=True)
        u, s, vh = np.linalg.svd(data[:8, :5])
        return round(float(s.sum() + np.abs(u[:, :5] * s).sum()), 8)

    def roots():  # (the eigenvalues of the companion matrix)
        r = np.roots([1.0, -6.0, 11.0, -6.0])
        return round(float(np.sort(np.real(r)).sum() + np.abs(np.imag(r)).sum()), 8)

    return [gradient, polyfit, interp, searchsorted, bincount_digitize, cumprod, quantile, matrix_power, qr,
            cholesky, pinv, fft2, meshgrid, kron, tril_roll, argpartition, take_along_axis, float32_stats,
            where_clip, outer_norm, logical, svd_default, roots]


if __name__ == "__main__":
    run(sections, sys.argv[1] if len(sys.argv) > 1 else "nabla")
