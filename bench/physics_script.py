"""A seventh newcomer script, held out of the first-run manifest: particles, rotations and small
simulations (pairwise distances, batched 3 x 3 algebra, an ODE integrated step by step, random
walks, a heat rod with fixed ends, Newton's method with a scalar read per step); float64, float32,
int8, bool and complex data; 21 sections, each ending in a checksum. ``python
bench/physics_script.py [numpy|nabla]``, as the first script.
"""

from __future__ import annotations

import sys

if __package__ in (None, ""):
    sys.path.insert(0, __import__("os").path.dirname(__file__))
from newcomer_script import run


def sections(np):
    rng = __import__("numpy").random.default_rng(17)
    pos = np.asarray(rng.normal(size=(400, 3)))
    vel = np.asarray(rng.normal(scale=0.1, size=(400, 3)).astype("float32"))
    angles = np.asarray(rng.uniform(0, 6.283185307179586, size=(200, 3)))
    steps = np.asarray(rng.choice([-1, 1], size=(50, 300)).astype("int8"))

    def pairwise_min():
        d = np.sqrt(((pos[:, None, :] - pos[None, :, :]) ** 2).sum(axis=-1))
        i, j = np.triu_indices(pos.shape[0], k=1)
        return round(float(d[i, j].min() + d.max()), 9)

    def center_of_mass():
        mass = np.linspace(1.0, 2.0, pos.shape[0])
        com = (pos * mass[:, None]).sum(axis=0) / mass.sum()
        return round(float(np.linalg.norm(pos - com, axis=1).mean()), 9)

    def rotations():
        c, s = np.cos(angles[:, 2]), np.sin(angles[:, 2])
        zero, one = np.zeros_like(c), np.ones_like(c)
        rz = np.stack([np.stack([c, -s, zero], -1), np.stack([s, c, zero], -1),
                       np.stack([zero, zero, one], -1)], -2)
        moved = rz @ pos[:200, :, None]
        return round(float(moved.sum() + np.linalg.det(rz).sum()), 6)

    def batched_inverse():
        m = np.asarray(rng.normal(size=(50, 3, 3))) + 3 * np.eye(3)
        inv = np.linalg.inv(m)
        resid = np.abs(m @ inv - np.eye(3)).max()
        return round(float(np.trace(inv, axis1=1, axis2=2).sum()), 6) + float(resid < 1e-9)

    def cross_products():
        n = np.cross(pos[:-1], pos[1:])
        return round(float(np.einsum("ij,ij->i", n, pos[:-1]).sum() + np.abs(n).sum()), 6)

    def float32_kinetic():
        e = 0.5 * (vel * vel).sum(axis=1)
        return round(float(e.mean() * 1000), 3) + int(e.dtype == np.float32)

    def euler_ode():
        y = np.array([1.0, 0.0])
        a = np.array([[0.0, 1.0], [-4.0, -0.2]])
        for _ in range(200):
            y = y + 0.01 * (a @ y)
        return round(float(y[0] + y[1]), 9)

    def random_walks():
        paths = np.cumsum(steps, axis=1, dtype=np.int32)
        return int(np.abs(paths).max(axis=1).sum() + (paths[:, -1] > 0).sum())

    def heat_rod():
        u = np.zeros(64)
        u[0], u[-1] = 1.0, 0.5
        for _ in range(150):
            u[1:-1] = u[1:-1] + 0.25 * (u[2:] - 2 * u[1:-1] + u[:-2])
        return round(float(u.sum()), 9)

    def newton_sqrt():
        x, target, count = np.float64(3.0), np.float64(7.0), 0
        while abs(float(x * x - target)) > 1e-12 and count < 50:
            x = x - (x * x - target) / (2 * x)
            count += 1
        return round(float(x), 12) + count

    def polar_coordinates():
        r = np.hypot(pos[:, 0], pos[:, 1])
        theta = np.degrees(np.arctan2(pos[:, 1], pos[:, 0]))
        return round(float(r.sum() + np.abs(theta).mean() + (theta > 90).sum()), 6)

    def phasors():
        z = np.exp(1j * angles[:, 0]) * (1 + angles[:, 1])
        return round(float(np.abs(z.sum()) + np.angle(z).max()), 6)

    def polynomial_eval():
        coeffs = np.array([0.5, -1.0, 2.0, 3.0])
        x = np.linspace(-2, 2, 101)
        return round(float(np.polyval(coeffs, x).sum() + np.trapezoid(x ** 2, x)), 6)

    def neighbours_in_box():
        inside = np.all(np.abs(pos) < 1.0, axis=1)
        counts = np.count_nonzero(np.abs(pos) < 0.5, axis=0)
        return int(inside.sum()) * 1000 + int(counts.sum())

    def nearest_index():
        probe = np.array([[0.0, 0.0, 0.0], [1.0, 1.0, 1.0], [-1.0, 0.5, 0.0]])
        d = ((pos[None, :, :] - probe[:, None, :]) ** 2).sum(-1)
        return int(np.argmin(d, axis=1).sum() + np.argsort(d[0])[:5].sum())

    def eigen_modes():
        k = np.diag(np.full(8, 2.0)) - np.diag(np.ones(7), 1) - np.diag(np.ones(7), -1)
        w = np.linalg.eigvalsh(k)
        return round(float(w.sum() + w.min() * 100), 9)

    def median_speeds():
        speed = np.sqrt((vel.astype(np.float64) ** 2).sum(axis=1))
        return round(float(np.median(speed) * 100 + np.percentile(speed, 90) * 10), 6)

    def running_extremes():
        walk = np.cumsum(np.asarray(rng.normal(size=500)))
        hi = np.maximum.accumulate(walk)
        return round(float((hi - walk).max() + hi[-1]), 9)

    def rounding_grid():
        g = np.round(pos[:50] * 10) / 10
        return round(float(np.floor(g).sum() + np.ceil(g).sum() + g.std()), 9)

    def collisions_mask():
        d2 = ((pos[:100, None, :] - pos[None, :100, :]) ** 2).sum(-1)
        close = (d2 < 0.25) & ~np.eye(100, dtype=bool)
        return int(close.sum() + np.flatnonzero(close.any(axis=1)).sum())

    def float32_rotation():
        c, s = np.float32(0.6), np.float32(0.8)
        r = np.array([[c, -s], [s, c]], dtype=np.float32)
        pts = pos[:, :2].astype(np.float32) @ r.T
        return round(float(np.abs(pts).sum()), 2) + int(pts.dtype == np.float32)

    return [pairwise_min, center_of_mass, rotations, batched_inverse, cross_products, float32_kinetic,
            euler_ode, random_walks, heat_rod, newton_sqrt, polar_coordinates, phasors, polynomial_eval,
            neighbours_in_box, nearest_index, eigen_modes, median_speeds, running_extremes, rounding_grid,
            collisions_mask, float32_rotation]


def main(which: str = "nabla") -> list:
    return run(sections, which)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "nabla")
