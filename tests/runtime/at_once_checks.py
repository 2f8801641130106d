"""What the tests of ops at once share: a program run on NumPy and on Nabla, its values compared,
and how many ops Nabla computed at once and how many reads it ran."""

import numpy

import nabla as nb
import nabla.numpy as np


def counted(fn, *arrays):
    """``fn`` on Nabla copies of ``arrays`` (read back) and on NumPy copies, and how many ops it
    computed at once and how many reads it ran."""
    ours = [np.array(a) for a in arrays]
    host = [numpy.array(a) for a in arrays]
    before = nb.engine_stats()
    got = fn(np, *ours)
    got = [numpy.asarray(g) for g in ((got if isinstance(got, tuple) else () if got is None else (got,)) + tuple(ours))]
    after = nb.engine_stats()
    want = fn(numpy, *host)
    want = [numpy.asarray(w) for w in ((want if isinstance(want, tuple) else () if want is None else (want,))
                                       + tuple(host))]
    for w, g in zip(want, got):
        assert w.dtype == g.dtype and w.shape == g.shape
        numpy.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)
    return after["small_ops"] - before["small_ops"], after["evaluations"] - before["evaluations"]
