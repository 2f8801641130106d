"""The execution paths' shared rules (``runtime/paths.py``): which plans a structure keeps."""

import numpy
import pytest

import nabla.numpy as np
from nabla.runtime import paths, program

pytestmark = pytest.mark.usefixtures("fused_on")


def shrinking(m, z, c, steps=14, shifted=False):
    """mandelbrot2's loop: each step keeps the points still bounded, so every step's shapes are new
    (``shifted``: a structure of its own)."""
    for _ in range(steps):
        z = z * z + c
        if shifted:
            z = z - 0.0
        keep = abs(z) <= 2.0
        z, c = z[keep], c[keep]
    return z


@pytest.fixture
def plans_made(monkeypatch) -> list:
    made = []
    plan = program.ProgramPath.plan
    monkeypatch.setattr(program.ProgramPath, "plan", staticmethod(lambda *a, **k: made.append(1) or plan(*a, **k)))
    return made


def test_a_loop_whose_shapes_change_every_step_plans_them_once(plans_made):
    """More than eight shapes of one structure are kept while the process's budget lasts: the loop's
    second run plans nothing; its values are NumPy's."""
    rng = numpy.random.default_rng(5)
    c = (rng.random(3000) - 0.7) * 2.5 + 1j * (rng.random(3000) - 0.5) * 2.5
    want = shrinking(numpy, numpy.zeros_like(c), c)
    first = shrinking(np, np.zeros(3000, np.complex128), np.asarray(c))
    numpy.testing.assert_allclose(numpy.asarray(first), want, rtol=1e-12)
    assert len(plans_made) > 2 * paths._PLANS_PER_STRUCTURE
    plans_made.clear()
    again = shrinking(np, np.zeros(3000, np.complex128), np.asarray(c))
    numpy.testing.assert_allclose(numpy.asarray(again), want, rtol=1e-12)
    assert not plans_made


def test_past_the_budget_a_structure_keeps_its_last_eight_shapes(plans_made, monkeypatch):
    monkeypatch.setattr(paths, "_more_kept", [paths._MORE_PLANS])
    rng = numpy.random.default_rng(6)
    c = (rng.random(3000) - 0.7) * 2.5 + 1j * (rng.random(3000) - 0.5) * 2.5
    made = []
    for _ in range(2):
        plans_made.clear()
        shrinking(np, np.zeros(3000, np.complex128), np.asarray(c), shifted=True).numpy()
        made.append(len(plans_made))
    assert made[0] > made[1] > 0  # (a structure met with more than eight shapes dropped its first)
    assert paths._more_kept[0] == paths._MORE_PLANS


def test_single_op_nodes_of_a_long_chain_run_upstream_first(monkeypatch):
    """A loop of FFTs (kernels run apart from the rest of a trace) that reads nothing until its end:
    each FFT's upstream work is one run and the FFT another, upstream first, where taking the last
    FFT first made each one's inputs hold every FFT before it (runs quadratic in the loop's length:
    160,000 for 400 FFTs). The values are NumPy's."""
    from nabla.core.engine import Engine

    runs = []
    run = Engine.run
    monkeypatch.setattr(Engine, "run", lambda self, *a, **k: runs.append(1) or run(self, *a, **k))

    def split_step(m, psi, steps=30):
        k = m.fft.fftfreq(psi.shape[0])
        kinetic = m.exp(-0.5j * k ** 2)
        for _ in range(steps):
            psi = 0.5 * m.fft.ifft(kinetic * m.fft.fft(psi * 1.5))
        return psi

    x = numpy.linspace(-4, 4, 256)
    want = split_step(numpy, numpy.exp(-x ** 2 + 2j * x))
    got = split_step(np, np.asarray(numpy.exp(-x ** 2 + 2j * x))).numpy()
    numpy.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)
    assert len(runs) <= 6 * 60  # (60 FFTs: a few runs each, not one per FFT before it)
