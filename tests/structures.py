"""The structures that tests of compile paths share.

MAX keeps every compiled graph in its own cache, keyed by the graph's content, machine-wide: the
first compile of a structure costs 15-115 s on the 2-core machine, every later one ~0.2 s, in any
process. A test about how the engine compiles, keeps, persists or evicts models needs a structure
that is new to *the engine* (fixture ``fresh_structures``, or an engine of its own), not one new to
MAX: so such tests use these few, and the suite pays for each once.
"""

import numpy as np

import nabla as nb


def chain(x, c=3.25):
    """An elementwise chain (float32 vectors here): ``c`` is data, so every ``c`` is one structure."""
    return nb.sin(nb.cos(x) * c + x) - 0.125


def chain_ref(a, c=3.25):
    return np.sin(np.cos(a) * np.float32(c) + a) - np.float32(0.125)


def dense(x, w, c=0.75):
    """A matmul and an activation (float32 matrices here; rows are a symbolic dim)."""
    return nb.tanh(x @ w * c)


def dense_ref(a, b, c=0.75):
    return np.tanh(a @ b * np.float32(c))


def vector(n=7, shift=0.0):
    return np.linspace(0, 1, n, dtype=np.float32) + np.float32(shift)


def matrices(rows=6):
    return (np.linspace(-1, 1, rows * 3, dtype=np.float32).reshape(rows, 3),
            np.linspace(0.5, -0.5, 12, dtype=np.float32).reshape(3, 4))
