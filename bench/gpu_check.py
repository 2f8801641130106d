"""What runs on an accelerator, each result checked against NumPy, in one process:

    python -m bench.gpu_check [results.json]

For a machine with a GPU, where Nabla's default device is ``Accelerator(0)``: core ops, autodiff,
vmap and compile, the kernels that make a round trip through the CPU (sort, linalg), the FFT
kernel's GPU path (accuracy over lengths of every kind, then its time against PyTorch's cuFFT in
the same process), and a simulated mesh on the GPU. Each check prints its relative error (L2) and
the seconds of its first and second call (the first compiles its graphs). Each section has a
budget of seconds (``GPU_CHECK_SCALE`` multiplies them): checks past it are reported as skipped.
``GPU_CHECK_SECTIONS`` (comma-separated: fft_real, fft_timings, fft_c2c, fft_axis, dlpack,
transforms, sharding, core, programs, sharding_timings) picks and orders them; every new structure compiles
for 12-26 s on a GPU, so a short lease runs a few.
"""

from __future__ import annotations

import json
import os
import sys
import time
import traceback

import numpy as np

import nabla as nb
from nabla import array_api as xp

from .peers import median_time

RESULTS: list[dict] = []
TIMINGS: list[dict] = []
INFO: dict = {}
_SCALE = float(os.environ.get("GPU_CHECK_SCALE", "1"))
_DEADLINE = [0.0]  # the running section's
_RNG = np.random.default_rng(0)


def _rel(got, want) -> float:
    got, want = np.asarray(got, dtype=np.complex128), np.asarray(want, dtype=np.complex128)
    if got.shape != want.shape:
        raise ValueError(f"shape {got.shape}, expected {want.shape}")
    scale = np.linalg.norm(want.ravel())
    return float(np.linalg.norm((got - want).ravel()) / (scale if scale > 0 else 1.0))


def check(name: str, fn, tol: float) -> None:
    """``fn()`` -> (Nabla result, NumPy's): run twice, timed; the error of the first."""
    row = {"check": name, "tol": tol}
    if time.perf_counter() > _DEADLINE[0]:
        row["status"] = "skipped (time)"
    else:
        try:
            start = time.perf_counter()
            got, want = fn()
            host = got.numpy() if hasattr(got, "numpy") else got
            row["first_s"] = time.perf_counter() - start
            row["device"] = str(getattr(got, "device", "host"))
            row["error"] = _rel(host, want)
            start = time.perf_counter()
            again, _ = fn()
            if hasattr(again, "numpy"):
                again.numpy()
            row["again_s"] = time.perf_counter() - start
            row["status"] = "ok" if row["error"] <= tol else "FAIL"
        except Exception as e:  # a failing check must not hide the others
            row["status"] = "ERROR"
            row["exception"] = f"{type(e).__name__}: {e}"[:600]
            traceback.print_exc(limit=3)
    RESULTS.append(row)
    _save()
    err = f"{row['error']:.1e}" if "error" in row else "-"
    times = f"{row.get('first_s', 0):7.2f}s {row.get('again_s', 0):7.3f}s" if "first_s" in row else ""
    print(f"{name:44s} {row['status']:6s} err {err:8s} {times} {row.get('device', '')} "
          f"{row.get('exception', '')}", flush=True)


def _save() -> None:
    """Everything so far into the results file (a run cut short keeps what it found)."""
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w") as f:
            json.dump({"info": INFO, "checks": RESULTS, "timings": TIMINGS}, f, indent=1)


def _f32(*shape):
    return _RNG.standard_normal(shape).astype(np.float32)


def core_checks() -> None:
    a, b = _f32(256, 128), _f32(128, 64)
    A, B = nb.asarray(a), nb.asarray(b)
    check("elementwise sin(a) * 2 + exp(-a)", lambda: (nb.sin(A) * 2.0 + nb.exp(-A), np.sin(a) * 2 + np.exp(-a)), 1e-6)
    check("sum / max over axes", lambda: (xp.stack([xp.sum(A, axis=0)[:64], xp.max(A, axis=0)[:64]]),
                                          np.stack([a.sum(0)[:64], a.max(0)[:64]])), 1e-5)
    check("matmul float32 256x128 @ 128x64", lambda: (A @ B, a @ b), 1e-5)
    d = _RNG.standard_normal((64, 64))
    D = nb.asarray(d)
    check("matmul float64", lambda: (D @ D.T, d @ d.T), 1e-12)
    z = (a[:8, :8] + 1j * a[8:16, :8]).astype(np.complex64)
    Z = nb.asarray(z)
    check("complex multiply, abs", lambda: (xp.abs(Z * Z) + xp.real(Z), np.abs(z * z) + z.real), 1e-6)
    check("slicing, where, concat", lambda: (xp.concat([A[::2, 1:5], xp.where(A[:128, :4] > 0, A[:128, :4], 0.0)]),
                                             np.concatenate([a[::2, 1:5], np.where(a[:128, :4] > 0, a[:128, :4], 0)])),
          1e-7)
    idx = np.array([3, 0, 7, 7, 1])
    check("take, cumulative_sum", lambda: (xp.cumulative_sum(xp.take(A, nb.asarray(idx), axis=0), axis=1),
                                           np.cumsum(a[idx], axis=1)), 1e-5)
    check("sort (kernel on the CPU)", lambda: (xp.sort(A[:16], axis=1), np.sort(a[:16], axis=1)), 0)
    check("argsort", lambda: (xp.argsort(A[:16], axis=1, stable=True), np.argsort(a[:16], axis=1, kind="stable")), 0)
    s = d @ d.T + 64 * np.eye(64)
    S = nb.asarray(s)
    check("linalg.cholesky (kernel on the CPU)", lambda: (xp.linalg.cholesky(S), np.linalg.cholesky(s)), 1e-12)
    check("linalg.solve", lambda: (xp.linalg.solve(S, D), np.linalg.solve(s, d)), 1e-10)
    check("linalg.svdvals", lambda: (xp.linalg.svdvals(D), np.linalg.svd(d, compute_uv=False)), 1e-12)
    check("linalg.eigh values", lambda: (xp.linalg.eigh(S)[0], np.linalg.eigh(s)[0]), 1e-12)


def _stencil(np_, a, b, steps):
    for _ in range(steps):
        b[1:-1, 1:-1] = 0.2 * (a[1:-1, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:] + a[2:, 1:-1] + a[:-2, 1:-1])
        a[1:-1, 1:-1] = 0.2 * (b[1:-1, 1:-1] + b[1:-1, :-2] + b[1:-1, 2:] + b[2:, 1:-1] + b[:-2, 1:-1])
    return a


def _converge(np_, u, tol):
    """1-D heat steps until the largest change is under ``tol``: a scalar read every step."""
    steps = 0
    while True:
        un = u.copy()
        u[1:-1] = un[1:-1] + 0.25 * (un[2:] - 2 * un[1:-1] + un[:-2])
        steps += 1
        if float(np_.max(np_.abs(u - un))) < tol or steps >= 40:
            return u


def _element_loop(np_, x, y):
    for i in range(1, x.shape[0]):
        x[i] = np_.maximum(x[i - 1] * 0.5, y[i]) + 1
    return x


def programs_checks() -> None:
    """Loops as NumPy programs write them, on the default device, each against NumPy's own loop:
    the first call (what compiles) and the second (the per-call cost); engine counters per check."""
    import nabla.numpy as nnp

    grid = _RNG.standard_normal((64, 64))
    line = _RNG.standard_normal(256)
    ys = _RNG.standard_normal(6)
    cases = [
        ("stencil 64x64 float64, 10 steps of 2 slice writes", lambda m: _stencil(
            m, m.array(grid), m.array(grid), 10)),
        ("convergence loop, a scalar read per step", lambda m: _converge(m, m.array(line), 1e-3)),
        ("element loop x[i] = max(x[i-1]*0.5, y[i]) + 1, 5 steps", lambda m: _element_loop(
            m, m.array(ys), m.array(ys[::-1].copy()))),
    ]
    for name, case in cases:
        before = nb.engine_stats()
        check(name, lambda case=case: (case(nnp), case(np)), 1e-12)
        after = nb.engine_stats()
        RESULTS[-1]["engine"] = {k: after[k] - before[k] for k in ("evaluations", "compiles", "fused",
                                                                   "interpreted", "cache_hits")}
        print("   ", RESULTS[-1]["engine"], flush=True)


def dlpack_checks() -> None:
    """Tensors handed to torch without a copy (real) or through the host (complex)."""
    import torch

    a = _f32(256, 128)
    A = nb.asarray(a)
    check("DLPack into torch (float32)", lambda: (torch.from_dlpack(A * 2.0).cpu().numpy(), a * 2), 0)
    z = (a[:8] + 1j * a[8:16]).astype(np.complex64)
    Z = nb.asarray(z)
    check("DLPack into torch (complex64)", lambda: (torch.from_dlpack(Z * 2.0).cpu().numpy(), z * 2), 0)
    check("from torch (cuda) via DLPack", lambda: (xp.from_dlpack(torch.from_numpy(a).cuda()) + 1.0, a + 1), 0)


def _mlp_numpy(w1, b1, w2, x, y):
    pre = x @ w1 + b1
    h = np.maximum(pre, 0)
    r = h @ w2 - y
    loss = np.mean(r ** 2)
    g = 2 * r / r.size
    gw2 = h.T @ g
    gh = g @ w2.T * (pre > 0)
    return loss, (x.T @ gh, gh.sum(0), gw2)


def _flat(loss, grads):
    """The loss and the gradients in one vector, to compare with NumPy's in one check."""
    return xp.concat([xp.reshape(loss, (1,))] + [xp.reshape(g, (-1,)) for g in grads])


def _mlp(params, x, y):
    w1, b1, w2 = params
    return nb.mean((nb.maximum(x @ w1 + b1, 0.0) @ w2 - y) ** 2)


def transforms_checks() -> None:
    host = [_f32(32, 64) * 0.3, _f32(64) * 0.1, _f32(64, 8) * 0.3]
    x, y = _f32(128, 32), _f32(128, 8)
    params = tuple(nb.asarray(h) for h in host)
    X, Y = nb.asarray(x), nb.asarray(y)
    loss, grads = _mlp_numpy(*host, x, y)
    want = np.concatenate([np.ravel(loss)] + [g.ravel() for g in grads])

    check("value_and_grad of an MLP loss", lambda: (_flat(*nb.value_and_grad(_mlp)(params, X, Y)), want), 1e-5)
    step = nb.compile(lambda p, a, b: _flat(*nb.value_and_grad(_mlp)(p, a, b)))
    check("compile(value_and_grad)", lambda: (step(params, X, Y), want), 1e-5)
    w = nb.asarray(host[2])
    check("vmap(row @ w)", lambda: (nb.vmap(lambda r: nb.tanh(r @ w[:32]))(X), np.tanh(x @ host[2][:32])), 1e-5)
    v = _f32(32)
    check("jvp of tanh(x @ w)", lambda: (nb.jvp(lambda r: nb.tanh(r @ w[:32]), (X[0],), (nb.asarray(v),))[1],
                                         (1 - np.tanh(x[0] @ host[2][:32]) ** 2) * (v @ host[2][:32])), 1e-5)
    t = nb.asarray(_f32(16, 16))
    t.requires_grad_(True)
    check("backward()", lambda: _backward(t), 1e-5)


def _backward(t):
    t.grad = None
    (t * t).sum().backward()
    return t.grad, 2 * t.numpy()


#: lengths that reach every path of the GPU kernel: one block per row (mixed radices 2..13, and
#: Bluestein where a row fits), the four-step (up to 2048^2 complex64 / 1024^2 complex128 points),
#: one launch per pass beyond
_C64_LENGTHS = (3, 5, 7, 8, 11, 13, 17, 100, 127, 360, 1000, 1001, 1009, 2048, 4096, 6561, 10007,
                1 << 16, 78125, 1 << 20, 1 << 23)
_C128_LENGTHS = (3, 17, 127, 1000, 1024, 2048, 4096, 10007, 1 << 20, 1 << 21)


def fft_c2c_checks() -> None:
    for dtype, tol, lengths in ((np.complex64, 5e-6, _C64_LENGTHS), (np.complex128, 1e-13, _C128_LENGTHS)):
        for n in lengths:
            z = (_RNG.standard_normal((2, n)) + 1j * _RNG.standard_normal((2, n))).astype(dtype)
            Z = nb.asarray(z)
            check(f"fft n={n} {np.dtype(dtype).name}", lambda: (xp.fft.fft(Z), np.fft.fft(z)), tol)


def fft_real_checks() -> None:
    """Even n through the half-length trick (L = 500, 1009 (Bluestein), 8192, 2^20), odd n as
    complex transforms."""
    for dtype, tol, lengths in ((np.float32, 5e-6, (1000, 1001, 2018, 10007, 16384)),
                                (np.float64, 1e-13, (1024, 999, 1 << 21))):
        for n in lengths:
            r = _RNG.standard_normal((3, n)).astype(dtype)
            R = nb.asarray(r)
            check(f"rfft n={n} {np.dtype(dtype).name}", lambda: (xp.fft.rfft(R), np.fft.rfft(r)), tol)
            h = np.fft.rfft(r)
            H = nb.asarray(h.astype(np.complex64 if dtype == np.float32 else np.complex128))
            check(f"irfft n={n} {np.dtype(dtype).name}", lambda: (xp.fft.irfft(H, n=n), np.fft.irfft(h, n=n)), tol)


def fft_axis_checks() -> None:
    z = (_RNG.standard_normal((2, 48, 40)) + 1j * _RNG.standard_normal((2, 48, 40)))
    Z = nb.asarray(z)
    check("ifft along axis 1 (inner sequences), ortho", lambda: (xp.fft.ifft(Z, axis=1, norm="ortho"),
                                                                 np.fft.ifft(z, axis=1, norm="ortho")), 1e-13)
    check("fftn over the last two axes", lambda: (xp.fft.fftn(Z, axes=(1, 2)), np.fft.fftn(z, axes=(1, 2))), 1e-13)
    r = _RNG.standard_normal((30, 7))
    R = nb.asarray(r)
    check("rfft along axis 0 (inner, even n)", lambda: (xp.fft.rfft(R, axis=0), np.fft.rfft(r, axis=0)), 1e-13)
    h = np.fft.rfft(r, axis=0)
    H = nb.asarray(h)
    check("irfft along axis 0 (inner, even n)", lambda: (xp.fft.irfft(H, n=30, axis=0), np.fft.irfft(h, n=30, axis=0)),
          1e-13)
    check("hfft n=30 / ihfft", lambda: (xp.concat([xp.fft.hfft(H[:, 0], n=30), xp.real(xp.fft.ihfft(R[:, 0]))]),
                                        np.concatenate([np.fft.hfft(h[:, 0], n=30), np.fft.ihfft(r[:, 0]).real])),
          1e-13)
    r = _RNG.standard_normal((6, 30))
    R = nb.asarray(r)
    check("grad of sum(abs(rfft(x))**2)", lambda: (nb.grad(lambda v: nb.sum(xp.abs(xp.fft.rfft(v)) ** 2))(R),
                                                              _spectral_grad(r)), 1e-12)


def _spectral_grad(r):
    """d/dx of sum |rfft(x)|^2 (unweighted half spectrum): 2 Re(sum_k X_k e^{2 pi i j k / n}) over
    the stored bins, i.e. 2 n Re(ifft(X zero-padded))."""
    n = r.shape[-1]
    full = np.zeros(r.shape, complex)
    full[:, : n // 2 + 1] = np.fft.rfft(r)
    return 2 * n * np.real(np.fft.ifft(full))


def sharding_checks() -> None:
    from nabla.sharding import DeviceMesh, P, psum, shard_map

    host = [_f32(32, 64) * 0.3, _f32(64) * 0.1, _f32(64, 8) * 0.3]
    x, y = _f32(128, 32), _f32(128, 8)
    loss, grads = _mlp_numpy(*host, x, y)
    want = np.concatenate([np.ravel(loss)] + [g.ravel() for g in grads])
    for size in (2, 4):
        mesh = DeviceMesh((size,), ("dp",))  # the default device, size times: a simulated mesh

        def run(mesh=mesh):
            params = tuple(nb.asarray(h).shard(mesh, P()) for h in host)
            X, Y = nb.asarray(x).shard(mesh, P("dp")), nb.asarray(y).shard(mesh, P("dp"))
            l, gs = nb.value_and_grad(_mlp)(params, X, Y)
            return _flat(l, gs), want

        check(f"data-parallel MLP grad, simulated ({size},) mesh", run, 1e-5)
        f = shard_map(lambda a: psum(nb.sum(a * a), "dp"), mesh, in_specs=P("dp"), out_specs=P())
        check(f"shard_map psum, simulated ({size},) mesh", lambda f=f: (f(nb.asarray(x)), np.sum(x * x)), 1e-5)


def _sync():
    from max import driver

    if driver.accelerator_count():
        driver.Accelerator(0).synchronize()


def _median_ms(fn, sync) -> float:
    """Median of 20 calls, each timed to the device's synchronize."""
    return 1e3 * median_time(lambda: (fn(), sync()), repeat=20, number=1)


def _kernel_ms(torch, fn, sync, repeat=10) -> dict:
    """Device time per call of each kernel ``fn`` launches (CUPTI, through torch's profiler, which
    sees every kernel of the process, MAX's too)."""
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(repeat):
            fn()
        sync()
    kernels = {}
    for e in prof.key_averages():
        t = getattr(e, "device_time_total", None) or getattr(e, "cuda_time_total", 0)
        if t:
            kernels[e.key[:70]] = round(t / 1e3 / repeat, 4)
    return dict(sorted(kernels.items(), key=lambda kv: -kv[1])[:8])


def fft_timings() -> list[dict]:
    """The FFT's four figures on the GPU (and a small batch), Nabla against PyTorch's cuFFT,
    medians of 20; each call's kernels' device time; an elementwise op of the same size for what
    a call costs besides its kernels."""
    rows = []
    try:
        import torch
    except ImportError:
        torch = None
    cases = [("complex64 fft n=2^20", lambda m: m.fft.fft, (1 << 20,), np.complex64),
             ("float32 rfft 4096 rows of 1024", lambda m: m.fft.rfft, (4096, 1024), np.float32),
             ("complex64 fft2 1024x1024", lambda m: (lambda a: m.fft.fftn(a, axes=(-2, -1))) if m is xp
              else (lambda a: m.fft.fft2(a)), (1024, 1024), np.complex64),
             ("complex128 fft n=10007", lambda m: m.fft.fft, (10007,), np.complex128),
             ("complex128 fft 1000 rows of 64", lambda m: m.fft.fft, (1000, 64), np.complex128),
             ("float32 x * 2 + 1, 4096x1024 (no fft)", lambda m: (lambda a: a * 2.0 + 1.0), (4096, 1024), np.float32)]
    for name, pick, shape, dtype in cases:
        if time.perf_counter() > _DEADLINE[0]:
            break
        data = _RNG.standard_normal(shape).astype(np.float64)
        data = (data + 1j * _RNG.standard_normal(shape)).astype(dtype) if np.dtype(dtype).kind == "c" else data.astype(dtype)
        row = {"figure": name}
        try:
            x = nb.asarray(data)
            f = pick(xp)
            row["nabla_ms"] = _median_ms(lambda: f(x).realize(), _sync)
            if torch is not None and torch.cuda.is_available():
                row["nabla_kernels_ms"] = _kernel_ms(torch, lambda: f(x).realize(), _sync)
                tx = torch.from_numpy(data).cuda()
                g = pick(torch)
                row["torch_ms"] = _median_ms(lambda: g(tx), torch.cuda.synchronize)
                row["ratio"] = row["nabla_ms"] / row["torch_ms"]
                row["torch_kernels_ms"] = _kernel_ms(torch, lambda: g(tx), torch.cuda.synchronize)
        except Exception as e:
            row["exception"] = f"{type(e).__name__}: {e}"[:600]
            traceback.print_exc(limit=3)
        print(row, flush=True)
        rows.append(row)
    return rows


def sharding_timings() -> list[dict]:
    """bench_sharding's MLP training step (compiled) on simulated meshes on the default device."""
    from .bench_sharding import training_step

    rows = []
    for size in (None, 2, 4):
        if time.perf_counter() > _DEADLINE[0]:
            break
        try:
            first, steady, loss = training_step(size)
            row = {"figure": f"MLP step, mesh {size}", "first_s": first, "step_ms": 1e3 * steady, "loss": loss}
        except Exception as e:
            row = {"figure": f"MLP step, mesh {size}", "exception": f"{type(e).__name__}: {e}"[:600]}
            traceback.print_exc(limit=3)
        print(row, flush=True)
        rows.append(row)
    return rows


def main() -> None:
    from max import driver

    from nabla.core.context import get_default_device

    print("devices:", [str(d) for d in xp.__array_namespace_info__().devices()], "default:",
          get_default_device(), flush=True)
    INFO["accelerators"] = driver.accelerator_count()
    budgets = {"fft_real": 120, "fft_timings": 100, "fft_c2c": 120, "fft_axis": 60, "dlpack": 40,
               "transforms": 75, "sharding": 60, "core": 30, "programs": 150, "sharding_timings": 30}
    chosen = os.environ.get("GPU_CHECK_SECTIONS", ",".join(budgets)).split(",")
    for name in chosen:
        section = globals()[f"{name}_checks" if f"{name}_checks" in globals() else name]
        print(f"--- {name}", flush=True)
        _DEADLINE[0] = time.perf_counter() + budgets[name] * _SCALE
        try:
            TIMINGS.extend(section() or [])
        except Exception:
            traceback.print_exc()
        _save()
    failed = [r for r in RESULTS if r["status"] not in ("ok",)]
    print(f"{len(RESULTS) - len(failed)} of {len(RESULTS)} checks ok", flush=True)


if __name__ == "__main__":
    main()
