"""A third newcomer script, held out of the first-run manifest (``nabla/runtime/first_run.json`` is
recorded from ``newcomer_script.py``, ``second_script.py`` and the demo): 16 sections of other
everyday NumPy code on a 300 x 12 data set, each ending in a checksum, to measure a first run on
code the manifest never saw. ``python bench/third_script.py [numpy|nabla]``, as the first script.
"""

from __future__ import annotations

import sys

if __package__ in (None, ""):
    sys.path.insert(0, __import__("os").path.dirname(__file__))
from newcomer_script import run


def sections(np):
    rng = __import__("numpy").random.default_rng(2)
    data = np.asarray(rng.standard_normal((300, 12)))
    weights = np.asarray(rng.random(300))

    def corrcoef():
        return float(np.corrcoef(data, rowvar=False)[0].sum())

    def weighted_average():
        return float(np.average(data, axis=0, weights=weights).sum() + np.ptp(data, axis=0).sum())

    def stack_pad():
        s = np.vstack([data[:5], data[-5:]])
        return float(np.pad(s, 1).sum() + np.hstack([data[:, :2], data[:, -2:]]).sum())

    def repeat_tile():
        return float(np.repeat(data[:3, 0], 4).sum() + np.tile(data[0, :3], (2, 3)).sum())

    def argmax_rows():
        return int(np.argmax(data, axis=1).sum() + np.argmin(data, axis=0).sum())

    def nan_stats():
        x = np.where(data > 2, np.nan, data)
        return float(np.nanmean(x) + np.nanmax(x) + np.isnan(x).sum())

    def isclose():
        return int(np.isclose(data, np.round(data, 1), atol=0.02).sum())

    def triu_diag():
        a = data[:12]
        return float(np.triu(a, 1).sum() + np.diag(a).sum() + np.trace(a))

    def flip_roll():
        return float(np.flip(data, axis=0)[0].sum() + np.roll(data, -2, axis=1)[0, 0])

    def ifft():
        return float(np.abs(np.fft.ifft(data[:, 0] + 1j * data[:, 1])).sum())

    def cross_dot():
        return float(np.cross(data[:10, :3], data[10:20, :3]).sum() + np.dot(data[:, 0], data[:, 1]))

    def float32_lstsq():
        a = data.astype(np.float32)
        coef = np.linalg.lstsq(a[:, :4], a[:, 4], rcond=None)[0]
        return round(float(np.abs(coef).sum()), 5)  # (float32: equal to float32's precision)

    def cumulative_max():
        return float(np.maximum.accumulate(data[:, 0]).sum() + np.minimum.reduce(data, axis=0).sum())

    def int_bins():
        k = (np.abs(data[:, 0]) * 3).astype(np.int32)
        return int(np.bincount(k).max() + (k % 2 == 0).sum())

    def sort_rows_desc():
        return float(-np.sort(-data, axis=1)[:, 0].sum())

    def standardize_clip():
        z = (data - data.mean()) / data.std()
        return float(np.clip(z, -2, 2).std() + np.exp(-np.square(z)).mean())

    return [corrcoef, weighted_average, stack_pad, repeat_tile, argmax_rows, nan_stats, isclose, triu_diag,
            flip_roll, ifft, cross_dot, float32_lstsq, cumulative_max, int_bins, sort_rows_desc, standardize_clip]


if __name__ == "__main__":
    run(sections, sys.argv[1] if len(sys.argv) > 1 else "nabla")
