"""Least squares three ways with ``import nabla.numpy as np``: the normal equations, QR and
``lstsq``, on a design matrix of 2000 noisy samples of 40 random features."""

import numpy

import nabla.numpy as np

rng = numpy.random.default_rng(0)
X = np.asarray(rng.normal(size=(2000, 40)))
w_true = np.asarray(rng.normal(size=40))
y = X @ w_true + 0.01 * np.asarray(rng.normal(size=2000))

w_normal = np.linalg.solve(X.T @ X, X.T @ y)  # (40 x 40 Gram matrix: one matmul of 3.2M products)
q, r = np.linalg.qr(X)
w_qr = np.linalg.solve(r, q.T @ y)
w_lstsq = np.linalg.lstsq(X, y, rcond=None)[0]

for name, w in (("normal equations", w_normal), ("QR", w_qr), ("lstsq", w_lstsq)):
    print(f"{name:17s} max error {float(np.abs(w - w_true).max()):.2e}, "
          f"residual {float(np.linalg.norm(X @ w - y)):.4f}")
