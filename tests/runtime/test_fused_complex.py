"""Complex work on the fused kernel: each complex value a pair of real registers, by the formulas
MAX's lowerings use (``complex_formulas``). Values against NumPy, with no MAX compile and no
interpreter kernel (a complex trace cost a cold machine a 30 s compile in its foreground), and
bit for bit against the compiled path."""

import numpy as np
import pytest

import nabla as nb
from nabla.core.graph import GRAPH

from .fused_paths import on_the_kernel

pytestmark = pytest.mark.usefixtures("fused_on")

# (nnp, z, w: complex128, x: float64, b: bool, c: complex64) -> a result
COMPLEX = {
    "add_sub": lambda m, z, w, x, b, c: z + w - 1.5,
    "multiply": lambda m, z, w, x, b, c: z * w,
    "by_a_complex_scalar": lambda m, z, w, x, b, c: z * (2 - 3j) + 1j,
    "from_parts": lambda m, z, w, x, b, c: x + 1j * (x * 2),
    "power_spectrum": lambda m, z, w, x, b, c: (z * z.conj()).real,
    "abs": lambda m, z, w, x, b, c: m.abs(z),
    "abs_sum": lambda m, z, w, x, b, c: m.abs(z * w).sum(axis=-1),
    "divide": lambda m, z, w, x, b, c: z / w,
    "reciprocal": lambda m, z, w, x, b, c: 1 / z,
    "square": lambda m, z, w, x, b, c: m.square(z) - z,
    "exp": lambda m, z, w, x, b, c: m.exp(1j * x),
    "exp_of_complex": lambda m, z, w, x, b, c: m.exp(z),
    "sign": lambda m, z, w, x, b, c: m.sign(z),
    "equal": lambda m, z, w, x, b, c: z == m.where(b, z, w),
    "greater": lambda m, z, w, x, b, c: z > w,
    "isfinite": lambda m, z, w, x, b, c: m.isfinite(z / (w - w)),
    "where": lambda m, z, w, x, b, c: m.where(b, z, w * 2),
    "real_imag": lambda m, z, w, x, b, c: z.real * 2 + z.imag,
    "to_complex64": lambda m, z, w, x, b, c: (z * w).astype(m.complex64),
    "complex64": lambda m, z, w, x, b, c: c * c + (1 + 1j),
    "float_to_complex": lambda m, z, w, x, b, c: x.astype(m.complex128) * w,
    "to_bool": lambda m, z, w, x, b, c: (z - z.real).astype(bool),
    "to_real": lambda m, z, w, x, b, c: (z * w).real.astype(m.float32),
    "sum": lambda m, z, w, x, b, c: (z * w).sum(axis=-1),
    "mean": lambda m, z, w, x, b, c: (z + 1).mean(),
    "log": lambda m, z, w, x, b, c: m.log(z),
    "log_complex64": lambda m, z, w, x, b, c: m.log(c),
    "power": lambda m, z, w, x, b, c: z ** w,
    "power_of_a_real_exponent": lambda m, z, w, x, b, c: m.power(z, 2.5),
    "power_complex64": lambda m, z, w, x, b, c: c ** -0.5,
    # the elementary functions (Kahan's branch-cut-safe forms)
    **{name: (lambda f: lambda m, z, w, x, b, c: getattr(m, f)(z * 0.7))(name)
       for name in ("sqrt", "expm1", "log1p", "log2", "log10", "sin", "cos", "tan", "sinh", "cosh", "tanh",
                    "arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh")},
    "sqrt_complex64": lambda m, z, w, x, b, c: m.sqrt(c),
    "rint": lambda m, z, w, x, b, c: m.rint(z * 3),
}
#: results bit for bit NumPy's; the others round as NumPy's loops may not (a product's sum: NumPy's
#: loops fuse a multiply-add; exp, cos and sin: the C library's, within 1e-11)
_EXACT = {"add_sub", "from_parts", "real_imag", "where", "equal", "greater", "isfinite", "to_bool"}


@pytest.fixture
def interpreted(monkeypatch) -> list:
    """The op names of every trace MAX's interpreter runs during the test."""
    from nabla.core.engine import Engine

    names = []
    run = Engine._interpret
    monkeypatch.setattr(Engine, "_interpret", lambda self, entry, *a: names.extend(entry.op_names) or
                        run(self, entry, *a))
    return names


def _data(shape, seed):
    rng = np.random.default_rng(seed)
    z = rng.normal(size=shape) + 1j * rng.normal(size=shape)
    w = rng.normal(size=shape) + 1j * rng.normal(size=shape)
    return z, w, rng.normal(size=shape), rng.normal(size=shape) > 0, (z * 0.5).astype(np.complex64)


@pytest.mark.parametrize("shape", [(7,), (3, 1025), (70001,)])
@pytest.mark.parametrize("name", sorted(COMPLEX))
def test_complex_work_runs_fused_like_numpy(name, shape):
    got, want = on_the_kernel(COMPLEX[name], _data(shape, len(name)))
    if name in _EXACT:
        np.testing.assert_array_equal(got, want)
    else:
        single = want.dtype in (np.complex64, np.float32)
        np.testing.assert_allclose(got, want, rtol=1e-6 if single else 1e-11, atol=1e-6 if single else 1e-300)


# complex storage read through views whose innermost axis is its pair: elements moved whole (a
# transpose, a step, a repeat) and parts broadcast along it, at shapes whose rows end inside a
# block, at a block's end and past it (the kernel walks such short rows apart)
MOVED = {
    "transpose": lambda m, z: m.transpose(z, (2, 0, 1)) * 1,
    "transpose_add": lambda m, z: m.transpose(z, (1, 0, 2)) + z[:1, :1, :1],
    "step": lambda m, z: z[:, ::2, ::-3] - 1j,
    "repeat": lambda m, z: m.repeat(z, 3, axis=1) * (1 + 2j),
    "parts": lambda m, z: z * z.real[:, :, :1] + z.imag,
}


@pytest.mark.parametrize("shape", [(1, 1, 9), (3, 5, 7), (2, 513, 3), (4, 17, 257)])
@pytest.mark.parametrize("name", sorted(MOVED))
def test_complex_storage_moved_through_views_like_numpy(name, shape):
    z = _data(shape, 3)[0]
    got, want = on_the_kernel(MOVED[name], (z,))
    if name == "parts":
        np.testing.assert_allclose(got, want, rtol=1e-15, atol=0)
    else:
        np.testing.assert_array_equal(got, want)


_PARTS = [0.0, -0.0, 1.5, -2.0, 1e300, np.inf, -np.inf, np.nan]
SPECIAL = np.array([complex(a, b) for a in _PARTS for b in _PARTS])


def _same(got, want, rtol=1e-13):
    """Part by part: NaN where NumPy has NaN, equal infinities, close finite values."""
    for g, e in ((got.real, want.real), (got.imag, want.imag)) if np.iscomplexobj(want) else ((got, want),):
        nan = np.isnan(e)
        assert (np.isnan(g) == nan).all(), (got[np.isnan(g) != nan], want[np.isnan(g) != nan])
        np.testing.assert_allclose(g[~nan], e[~nan], rtol=rtol, atol=0)


def _special_data(name):
    z = np.repeat(SPECIAL, SPECIAL.size)
    w = np.tile(SPECIAL, SPECIAL.size)
    return z, w, z.real, np.isnan(z.imag), z.astype(np.complex64)


@pytest.mark.parametrize("name", ["abs", "equal", "isfinite", "real_imag", "where"])
def test_special_values_follow_numpy(name):
    """Infinities, NaNs and signed zeros in every pairing."""
    got, want = on_the_kernel(COMPLEX[name], _special_data(name))
    _same(got, want)


def _compiled(fn, data):
    """``fn`` of ``nabla.numpy`` on ``data`` with the fused kernel off (MAX's graph)."""
    import nabla.numpy as nnp

    GRAPH.engine.fused_enabled = False
    try:
        before = nb.engine_stats()["fused"]
        out = np.asarray(fn(nnp, *map(nnp.asarray, data)))
        assert nb.engine_stats()["fused"] == before
        return out
    finally:
        GRAPH.engine.fused_enabled = True


@pytest.mark.parametrize("name", ["sqrt", "log1p", "cosh", "tanh", "arcsinh", "arccosh", "arctanh"])
def test_elementary_functions_at_special_values_follow_numpy(name):
    """C99 Annex G's special values, as NumPy gives them, where NumPy's loops follow it (its expm1
    takes no limits: inf + nan j at 1e300; its sinh(-inf + inf j) has the real part's sign Annex G
    leaves open)."""
    z = SPECIAL[np.isfinite(SPECIAL.real) | np.isfinite(SPECIAL.imag) | np.isnan(SPECIAL)]
    got, want = on_the_kernel(lambda m, a: getattr(m, name)(a), (z,))
    _same(got, want, rtol=1e-12)


@pytest.mark.parametrize("name", ["multiply", "divide", "reciprocal", "exp_of_complex", "sign"])
def test_special_values_as_the_compiled_path_gives_them(name):
    """Where the formulas follow C99 Annex G's limits (a finite number over an infinity is zero)
    and NumPy's loops do not (NaN there; its multiply's fused multiply-add keeps an infinity where
    the product of parts overflows), both of Nabla's paths give C99's answer, bit for bit."""
    data = _special_data(name)
    got, _ = on_the_kernel(COMPLEX[name], data)
    np.testing.assert_array_equal(_flushed(got), _compiled(COMPLEX[name], data))


def _flushed(a):
    """``a`` with its denormal parts zero (their signs kept), as MAX's compiled kernels give them:
    the fused kernel keeps denormals, as NumPy does (docs/realization.md)."""
    parts = a.view(a.real.dtype) if np.iscomplexobj(a) else a
    if parts.dtype.kind != "f":
        return a
    parts = np.where(np.abs(parts) < np.finfo(parts.dtype).tiny, np.copysign(0.0, parts), parts).astype(parts.dtype)
    return parts.view(a.dtype) if np.iscomplexobj(a) else parts


@pytest.mark.parametrize("name", ["log", "power"])
def test_logarithms_special_values_as_the_compiled_path_gives_them(name):
    """``log`` and ``pow`` (exp(w log z), NumPy's limits at 0 and for a zero exponent) at every pair
    of special parts, as MAX's lowering of the same formula gives them (an arctangent each: the
    fused kernel's and MAX's agree within an ulp)."""
    data = _special_data(name)
    with np.errstate(all="ignore"):
        got, _ = on_the_kernel(COMPLEX[name], data)
        _same(got, _compiled(COMPLEX[name], data))


@pytest.mark.parametrize("name", ["multiply", "divide", "exp_of_complex", "greater", "sum"])
def test_fused_and_compiled_paths_agree_bit_for_bit(name):
    """One formula for both: the fused kernel's program and MAX's graph compute the same ops."""
    data = _data((257,), 7)
    got, _ = on_the_kernel(COMPLEX[name], data)
    np.testing.assert_array_equal(got, _compiled(COMPLEX[name], data))


@pytest.mark.parametrize("name", ["abs", "sign"])
def test_a_magnitude_is_the_kernels_hypot_within_an_ulp_of_the_graphs(name):
    """|z| is one ``hypot`` instruction of the kernel, whose ``1 + r * r`` is a fused multiply-add
    (as a correctly rounded hypot, NumPy's, gives it more often), where MAX's graph of the same
    formula rounds the product first: the two agree within an ulp, and NumPy's is the oracle."""
    data = _data((257,), 7)
    got, want = on_the_kernel(COMPLEX[name], data)
    _same(got, _compiled(COMPLEX[name], data), rtol=4.5e-16)
    _same(got, want, rtol=4.5e-16)


def test_a_complex_scalar_of_another_value_shares_nothing_stale():
    """A complex constant's value is part of the program: two scalars, two results."""
    import nabla.numpy as nnp

    z = np.arange(5) + 1j
    for s in (2 + 1j, -3j, 0.5 + 0j):
        np.testing.assert_array_equal(np.asarray(nnp.asarray(z) * s), z * s)


@pytest.mark.parametrize("to", ["float64", "complex128"])
def test_integer_work_cast_to_floats_runs_as_two_programs(to):
    """``exp(-2j * pi * (ii * jj / 16.0))`` (stockham_fft's twiddles): integer products, then float
    and complex work on them; the integer part is a program of its own family first."""
    def twiddles(m, ii, jj):
        z = ii[:, :4] * jj[:, :4] / 16.0
        return m.exp(-2.0j * m.pi * z) if to == "complex128" else m.exp(z)
    ii, jj = np.mgrid[0:4, 0:64]
    got, want = on_the_kernel(twiddles, (ii, jj))
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)


def test_reshapes_of_computed_complex_values_stay_pairs(interpreted):
    """stockham_fft's twiddles, ``repeat(reshape(exp(-2j * pi * ii * jj / R), (R, n, 1)), m, axis=2)``
    written into a complex array: each part of the exp reshaped, where a view of the stacked parts
    as a stage's result took the twiddle chain to MAX's interpreter."""
    import nabla.numpy as nnp

    def twiddles(m, z):
        ii, jj = m.mgrid[0:2, 0:16]
        out = m.empty((2, 4, 2), dtype=m.complex128)
        tmp = m.exp(-2.0j * m.pi * ii[:, :4] * jj[:, :4] / 8)
        out[:] = m.repeat(m.reshape(tmp, (2, 4, 1)), 2, axis=2)
        return m.reshape(out, (16,)) * z
    z = _data((16,), 5)[0]
    np.testing.assert_allclose(np.asarray(twiddles(nnp, nnp.asarray(z))), twiddles(np, z), rtol=1e-12, atol=1e-300)
    assert "exp" not in interpreted


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_triangles_of_complex_stacks_run_on_the_kernel(dtype, interpreted):
    """``tril``/``triu`` of a complex stack (an (n, n) mask over (b, n, n) data, as ``eigh`` makes
    its Hermitian operand): one ``where`` over the storage, never MAX's interpreter; NumPy's values."""
    import nabla.numpy as nnp

    z = _data((3, 5, 5), 9)[0].astype(dtype)
    for fn in (lambda m, a: m.tril(a), lambda m, a: m.triu(a, 1),
               lambda m, a: m.tril(a) + m.conj(m.swapaxes(m.tril(a, -1), -1, -2))):
        got = np.asarray(fn(nnp, nnp.asarray(z)))
        want = fn(np, z)
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    assert interpreted == []


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_operands_broadcast_into_complex_parts_run_on_the_kernel(dtype, interpreted):
    """A mask or real operand broadcast over complex data (``where(m[:, None], z, 1 + 2j)``): each
    part is computed with the operand spread into it, never MAX's interpreter; NumPy's values."""
    import nabla.numpy as nnp

    z = _data((3, 4), 5)[0].astype(dtype)
    m = np.array([True, False, True])
    col = np.array([[1.0], [-2.0], [0.5]], dtype=np.float32 if dtype is np.complex64 else np.float64)
    for fn in (lambda n, m, z, c: n.where(m[:, None], z, 1 + 2j), lambda n, m, z, c: n.where(m[:, None], -1j, z),
               lambda n, m, z, c: n.where(m[None, :, None], z[:, None, :], z[None, :, :1]),
               lambda n, m, z, c: z * c + (1 - 1j)):
        got = np.asarray(fn(nnp, nnp.asarray(m), nnp.asarray(z), nnp.asarray(col)))
        want = fn(np, m, z, col)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-6 if dtype is np.complex64 else 1e-15)
    assert interpreted == []


class _FilledNumpy:
    """numpy, but ``empty`` memory filled with 0x7f bytes (1.4e306 as float64): what a run reads
    before it writes shows up, whatever the allocator last held there."""

    def __getattr__(self, name):
        return getattr(np, name)

    @staticmethod
    def empty(shape, dtype=float, *args, **kwargs):
        out = np.empty(shape, dtype, *args, **kwargs)
        out.view(np.uint8)[...] = 0x7F
        return out


def test_a_real_part_of_complex_work_has_its_full_shape_for_any_reader(monkeypatch):
    """``(a + 0j) @ (b + 0j)`` as four real products: the imaginary part of a cast is a scalar 0,
    which a matmul must read spread to its operand's shape (it read past the scalar's slot)."""
    from nabla.runtime import program_plan, result_memory

    monkeypatch.setattr(program_plan, "np", _FilledNumpy())
    monkeypatch.setattr(result_memory, "np", _FilledNumpy())  # (the arena and results' memory)
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal((3, 3)), rng.standard_normal((3, 3))
    z = nb.asarray(np.ones(1, np.complex128)).dtype
    got = nb.matmul(nb.astype(nb.asarray(a), z), nb.astype(nb.asarray(b), z)).numpy()
    np.testing.assert_allclose(got, (a + 0j) @ (b + 0j), rtol=1e-12, atol=1e-12)


WRITES = {  # complex results stored through a slice's layout, and results that are views of inputs
    "slice_write": lambda m, z, w: _written(m, z, (slice(None), slice(1, None, 2)), z[:, :-1:2] * w[:, 1::2]),
    "masked_write": lambda m, z, w: _written(m, z, z.real > 0, (z * w)[z.real > 0]),
    "same_precision_cast": lambda m, z, w: m.prod(z.astype(m.complex128)[:, :3], axis=1),
    "parts_of_inputs": lambda m, z, w: z.real + 1j * w.imag,
    "conj": lambda m, z, w: m.conj(z) * 1,
}


def _written(m, z, index, value):
    out = z * 1
    out[index] = value
    return out


@pytest.mark.parametrize("shape", [(2, 7), (3, 1025), (4, 70001)])
@pytest.mark.parametrize("name", sorted(COMPLEX) + sorted(WRITES))
def test_complex_results_stored_as_pairs_are_the_stacked_programs_bits(name, shape, monkeypatch):
    """A complex result's program runs over its elements, its parts in two registers stored as (re,
    im) pairs (in order, or through a slice's layout): the same bits as the program over the storage
    that picks each element's part (the stack), which it replaced; and it is the path taken."""
    import collections

    from nabla.runtime import fused_program

    z, w, x, b, c = _data(shape, len(name))
    fn = (lambda m, *data: WRITES[name](m, data[0], data[1])) if name in WRITES else COMPLEX[name]
    parts, taken = fused_program._parts, []
    engine = GRAPH.engine
    monkeypatch.setattr(engine, "small_at_once", False)
    monkeypatch.setattr(engine, "_cache", collections.OrderedDict())  # (each run plans its programs)
    monkeypatch.setattr(fused_program, "_parts", lambda out, order: taken.append(parts(out, order)) or taken[-1])
    got, want = on_the_kernel(fn, (z, w, x, b, c))
    monkeypatch.setattr(engine, "_cache", collections.OrderedDict())
    monkeypatch.setattr(fused_program, "_parts", lambda out, order: None)
    stacked, _ = on_the_kernel(fn, (z, w, x, b, c))
    np.testing.assert_array_equal(got, stacked)
    # (not taken: reductions; ``where``, which moves pairs as they are; casts between precisions, whose
    # programs read data of other dtypes through codes)
    if np.iscomplexobj(want) and name not in ("sum", "mean", "same_precision_cast", "where", "to_complex64",
                                              "float_to_complex"):
        assert any(t is not None for t in taken), name
    single = want.dtype in (np.complex64, np.float32)
    np.testing.assert_allclose(got, want, rtol=1e-5 if single else 1e-10, atol=1e-5 if single else 1e-300)
