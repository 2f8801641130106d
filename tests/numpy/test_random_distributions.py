"""``nabla.numpy.random.Generator``'s distributions beyond the basic ones, against independent oracles:
NumPy for shapes, dtypes and ValueErrors; ``scipy.stats`` for the distributions (Kolmogorov-Smirnov for
continuous ones, chi-square goodness of fit on the pmf for discrete ones), over several parameter
regimes each. Seeds are fixed, so every check is deterministic."""

from __future__ import annotations

import re
import warnings

import numpy
import pytest
from scipy import stats

import nabla
import nabla.numpy as fnp

N = 20000
P_MIN = 1e-3  # the smallest p-value a test accepts (fixed seeds: a pass stays a pass)


def _rng(seed=0):
    return fnp.random.default_rng(seed)


def _ks(sample, cdf):
    assert numpy.all(numpy.isfinite(sample))
    p = stats.kstest(sample, cdf).pvalue
    assert p > P_MIN, p


def _chi2(sample, pmf, lo=0):
    """Chi-square goodness of fit of integer samples (support from ``lo``) to ``pmf`` (a function of an
    integer array): a cell per value of expected count >= 5 within the sample's range, and one cell for
    the rest of the support."""
    sample = numpy.asarray(sample)
    assert sample.dtype == numpy.int64 and sample.min() >= lo
    n, first = sample.size, int(sample.min())
    top = min(int(sample.max()), first + 10**6)  # (a heavy tail: cells of 5 expected end far below)
    sample = numpy.minimum(sample, top + 1)
    ks = numpy.arange(first, top + 1)
    expected = n * pmf(ks)
    cells = numpy.flatnonzero(expected >= 5)
    counts = numpy.bincount(sample - first, minlength=top - first + 2)
    obs, exp = list(counts[cells]), list(expected[cells])
    rest_o, rest_e = n - sum(obs), n - sum(exp)
    if rest_e > 1e-9 * n:
        obs.append(rest_o)
        exp.append(rest_e)
    else:
        assert rest_o == 0
    obs, exp = numpy.array(obs, float), numpy.array(exp, float)
    if len(obs) < 2:
        return
    p = stats.chi2.sf(numpy.sum((obs - exp) ** 2 / exp), len(obs) - 1)
    assert p > P_MIN, (p, obs[:10], exp[:10])


def _np(a):
    return numpy.asarray(a.numpy() if hasattr(a, "numpy") else a)


# --- shapes and dtypes, against NumPy ----------------------------------------------------------------------
A3 = numpy.array([0.5, 2.0, 30.0])
P3 = numpy.array([0.1, 0.5, 0.9])
SHAPE_CASES = [
    ("poisson", (A3,)), ("binomial", (numpy.array([3, 50, 2000]), P3)), ("geometric", (P3,)),
    ("negative_binomial", (A3, P3)), ("standard_gamma", (A3,)), ("gamma", (A3, 2.0)), ("beta", (A3, 1.5)),
    ("chisquare", (A3,)), ("standard_t", (A3,)), ("f", (A3, 4.0)), ("pareto", (A3,)), ("power", (A3,)),
    ("rayleigh", (A3,)), ("weibull", (A3,)), ("triangular", (0.0, A3, 40.0)), ("wald", (A3, 2.0)),
    ("vonmises", (0.5, A3)), ("noncentral_chisquare", (A3, 1.5)), ("noncentral_f", (A3, 4.0, 1.5)),
    ("logseries", (P3,)), ("zipf", (A3 + 1.5,)), ("hypergeometric", (numpy.array([5, 60, 700]), 80, 40)),
]


@pytest.mark.parametrize("name,args", SHAPE_CASES, ids=[c[0] for c in SHAPE_CASES])
def test_shapes_and_dtypes(name, args):
    """Scalar parameters, ``size=``, and array parameters broadcast against ``size``: NumPy's shape and dtype."""
    g, ref = _rng(1), numpy.random.default_rng(1)
    scalars = tuple(a[1] if isinstance(a, numpy.ndarray) else a for a in args)
    for params, size in ((scalars, None), (scalars, (2, 3)), (args, None), (args, (4, 3)), (scalars, 0)):
        want = getattr(ref, name)(*params, size=size)
        got = _np(getattr(g, name)(*params, size=size))
        assert got.shape == numpy.shape(want) and got.dtype == numpy.asarray(want).dtype, (params, size)


def test_shapes_of_the_others():
    g, ref = _rng(2), numpy.random.default_rng(2)
    for call in (lambda m: m.standard_cauchy(size=(2, 5)), lambda m: m.standard_cauchy(),
                 lambda m: m.multinomial(10, [0.2, 0.3, 0.5]),
                 lambda m: m.multinomial(10, [0.2, 0.3, 0.5], size=(4, 2)),
                 lambda m: m.multinomial(numpy.array([[3], [7]]), [[0.5, 0.5], [0.1, 0.9], [1.0, 0.0]]),
                 lambda m: m.multivariate_normal([0.0, 1.0], numpy.eye(2)),
                 lambda m: m.multivariate_normal([0.0, 1.0], numpy.eye(2), size=(3, 2)),
                 lambda m: m.dirichlet([1.0, 2.0, 3.0]), lambda m: m.dirichlet([1.0, 2.0], size=(4, 5)),
                 lambda m: m.standard_gamma(2.0, size=3, dtype=numpy.float32),
                 lambda m: m.permuted(numpy.arange(12.0).reshape(3, 4), axis=0)):
        want, got = numpy.asarray(call(ref)), _np(call(g))
        assert got.shape == want.shape and got.dtype == want.dtype


# --- NumPy's ValueErrors -------------------------------------------------------------------------------------
NAN = float("nan")
BAD = [
    ("poisson", (-1.0,)), ("poisson", (NAN,)), ("poisson", (1e19,)), ("poisson", (numpy.array([1.0, -1.0]),)),
    ("binomial", (-1, 0.5)), ("binomial", (5, 1.5)), ("binomial", (5, NAN)),
    ("binomial", (numpy.array([2, 3]), [0.5, 2.0])),
    ("geometric", (0.0,)), ("geometric", (1.5,)), ("geometric", (numpy.array([0.5, NAN]),)),
    ("negative_binomial", (0, 0.5)), ("negative_binomial", (NAN, 0.5)), ("negative_binomial", (1, 0.0)),
    ("negative_binomial", (1e30, 1e-30)),
    ("standard_gamma", (-1.0,)), ("gamma", (-1.0,)), ("gamma", (1.0, -1.0)), ("beta", (0.0, 1.0)), ("beta", (1.0, 0.0)),
    ("chisquare", (0.0,)), ("standard_t", (0.0,)), ("f", (0.0, 1.0)), ("f", (1.0, 0.0)), ("pareto", (0.0,)),
    ("power", (0.0,)), ("rayleigh", (-1.0,)), ("weibull", (-1.0,)), ("triangular", (0.0, 2.0, 1.0)),
    ("triangular", (1.0, 0.0, 2.0)), ("triangular", (1.0, 1.0, 1.0)), ("wald", (0.0, 1.0)), ("wald", (1.0, 0.0)),
    ("vonmises", (0.0, -1.0)), ("noncentral_chisquare", (0.0, 1.0)), ("noncentral_chisquare", (1.0, -1.0)),
    ("noncentral_f", (0.0, 1.0, 1.0)), ("noncentral_f", (1.0, 0.0, 1.0)), ("noncentral_f", (1.0, 1.0, -1.0)),
    ("logseries", (1.0,)), ("logseries", (-0.1,)), ("logseries", (NAN,)), ("zipf", (1.0,)), ("zipf", (NAN,)),
    ("zipf", (numpy.array([2.0, 0.5]),)), ("hypergeometric", (-1, 10, 1)), ("hypergeometric", (1, -1, 0)),
    ("hypergeometric", (1, 1, -1)), ("hypergeometric", (1, 1, 3)), ("hypergeometric", (10**9, 10**9, 5)),
    ("multinomial", (-1, [0.5, 0.5])), ("multinomial", (3, [-0.1, 1.1])), ("multinomial", (3, [0.7, 0.7, 0.1])),
    ("multinomial", (3, [])), ("dirichlet", ([-1.0, 1.0],)),
    ("multivariate_normal", ([0.0, 0.0], [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])),
    ("multivariate_normal", ([0.0, 0.0], [[1.0, 2.0], [2.0, 1.0]], None, "raise")),
    ("multivariate_normal", ([0.0, 0.0], numpy.eye(2), None, "bad")),
]


@pytest.mark.parametrize("name,args", BAD, ids=[f"{c[0]}-{i}" for i, c in enumerate(BAD)])
def test_value_errors_as_numpys(name, args):
    with pytest.raises(ValueError) as want:
        getattr(numpy.random.default_rng(0), name)(*args)
    with pytest.raises(ValueError, match=re.escape(str(want.value))):
        getattr(_rng(0), name)(*args)


def test_legacy_module_level():
    for name in ("poisson", "binomial", "beta", "gamma", "hypergeometric", "multinomial", "zipf", "vonmises",
                 "multivariate_normal", "dirichlet", "standard_t", "noncentral_f", "logseries", "wald"):
        assert callable(getattr(fnp.random, name)) and hasattr(numpy.random, name)
    fnp.random.seed(3)
    a = fnp.random.poisson(4.0, 50).numpy()
    fnp.random.seed(3)
    numpy.testing.assert_array_equal(fnp.random.poisson(4.0, 50).numpy(), a)
    assert fnp.random.binomial(10, 0.5, (2, 3)).dtype == numpy.int64
    assert not hasattr(fnp.random, "permuted")  # Generator-only in NumPy too


def test_reproducible():
    a = _rng(9).binomial(1000, 0.3, 500).numpy()
    numpy.testing.assert_array_equal(_rng(9).binomial(1000, 0.3, 500).numpy(), a)
    b = _rng(9).gamma(0.3, size=500).numpy()
    numpy.testing.assert_array_equal(_rng(9).gamma(0.3, size=500).numpy(), b)


# --- discrete distributions ----------------------------------------------------------------------------------
@pytest.mark.parametrize("lam", [0.02, 0.5, 3.0, 9.9, 10.0, 55.5, 1e4, 1e12])
def test_poisson(lam):
    _chi2(_rng(11).poisson(lam, N).numpy(), lambda k: stats.poisson.pmf(k, lam))


def test_poisson_array_regimes_and_zero():
    lam = numpy.array([0.0, 2.0, 40.0])
    x = _rng(12).poisson(lam, (N, 3)).numpy()
    assert (x[:, 0] == 0).all()
    for j in (1, 2):
        _chi2(x[:, j], lambda k: stats.poisson.pmf(k, lam[j]))


@pytest.mark.parametrize("n,p", [(10, 0.3), (1000, 0.005), (20, 0.9), (1000, 0.3), (1000, 0.97), (10**7, 0.4),
                                 (200, 0.5), (1, 0.5), (10**9, 2e-9)])
def test_binomial(n, p):
    _chi2(_rng(13).binomial(n, p, N).numpy(), lambda k: stats.binom.pmf(k, n, p))


def test_binomial_edges_and_arrays():
    g = _rng(14)
    assert (g.binomial(0, 0.5, 10).numpy() == 0).all() and (g.binomial(7, 0.0, 10).numpy() == 0).all()
    assert (g.binomial(7, 1.0, 10).numpy() == 7).all()
    n, p = numpy.array([5, 300, 40]), numpy.array([0.5, 0.2, 0.95])
    x = g.binomial(n, p, (N, 3)).numpy()
    for j in range(3):
        _chi2(x[:, j], lambda k: stats.binom.pmf(k, n[j], p[j]))


@pytest.mark.parametrize("p", [0.001, 0.2, 0.9, 1.0])
def test_geometric(p):
    _chi2(_rng(15).geometric(p, N).numpy(), lambda k: stats.geom.pmf(k, p), lo=1)


@pytest.mark.parametrize("n,p", [(5, 0.3), (0.5, 0.7), (40.0, 0.05), (3, 1.0)])
def test_negative_binomial(n, p):
    _chi2(_rng(16).negative_binomial(n, p, N).numpy(), lambda k: stats.nbinom.pmf(k, n, p))


@pytest.mark.parametrize("p", [0.0, 0.3, 0.9, 0.999])
def test_logseries(p):
    x = _rng(17).logseries(p, N).numpy()
    if p == 0:
        assert (x == 1).all()
    else:
        _chi2(x, lambda k: stats.logser.pmf(k, p), lo=1)


@pytest.mark.parametrize("a", [1.3, 2.0, 4.0, 30.0])
def test_zipf(a):
    _chi2(_rng(18).zipf(a, N).numpy(), lambda k: stats.zipf.pmf(k, a), lo=1)


@pytest.mark.parametrize("good,bad,sample", [(10, 20, 15), (1000, 2000, 1500), (50, 10**6, 200), (10**6, 10**6, 1000),
                                             (30, 5, 20), (300, 200, 480), (7, 3, 10), (7, 3, 0)])
def test_hypergeometric(good, bad, sample):
    x = _rng(19).hypergeometric(good, bad, sample, N).numpy()
    _chi2(x, lambda k: stats.hypergeom.pmf(k, good + bad, good, sample))


def test_ratio_of_uniforms_hat_covers_the_pmf():
    """The hat of Stadlober's ratio-of-uniforms (the binomial and hypergeometric samplers' exact method):
    |x - a| sqrt(P(floor x) / P(mode)) <= h / 2 on the whole support, a = mean + 1/2, so it is exact."""
    from nabla.numpy._distributions import _ROU_D1, _ROU_D2

    def worst(logpmf, hi, mean, var, mode):
        k = numpy.arange(hi + 1)
        h = _ROU_D1 * numpy.sqrt(var + 0.5) + _ROU_D2
        need = numpy.maximum(abs(k - mean - 0.5), abs(k + 0.5 - mean)) * numpy.exp((logpmf(k) - logpmf(mode)) / 2)
        return need.max() / (h / 2)

    for n in (21, 100, 5000):
        for p in (0.01, 0.1, 0.3, 0.5):
            mode = numpy.floor((n + 1) * p)
            assert worst(lambda k: stats.binom.logpmf(k, n, p), n, n * p, n * p * (1 - p), mode) <= 1
    for g, b, s in ((48, 48, 48), (100, 10**5, 1000), (1000, 1000, 1000), (60, 70, 65)):
        tot = g + b
        var = s * g * b * (tot - s) / (tot * tot * (tot - 1))
        mode = numpy.floor((s + 1) * (g + 1) / (tot + 2))
        assert worst(lambda k: stats.hypergeom.logpmf(k, tot, g, s), min(g, s), s * g / tot, var, mode) <= 1


def test_multinomial():
    g = _rng(20)
    p = numpy.array([0.1, 0.25, 0.05, 0.6])
    x = g.multinomial(30, p, N // 4).numpy()
    assert x.dtype == numpy.int64 and (x.sum(axis=1) == 30).all()
    for j in range(4):
        _chi2(x[:, j], lambda k: stats.binom.pmf(k, 30, p[j]))
    y = g.multinomial(numpy.array([5, 2000]), [0.3, 0.7], size=(N // 4, 2)).numpy()
    assert (y.sum(axis=-1) == [5, 2000]).all()
    _chi2(y[:, 1, 0], lambda k: stats.binom.pmf(k, 2000, 0.3))
    z = g.multinomial(10, [0.5, 0.5, 0.0], 100).numpy()  # (the last p is what the others leave)
    assert (z[:, 2] == 0).all() and (z.sum(axis=1) == 10).all()


# --- continuous distributions ---------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [0.05, 0.5, 1.0, 3.3, 1e4])
def test_standard_gamma(shape):
    _ks(_rng(21).standard_gamma(shape, N).numpy(), stats.gamma(shape).cdf)


def test_gamma_scale_zero_shape_and_float32():
    g = _rng(22)
    _ks(g.gamma(2.5, 3.0, N).numpy(), stats.gamma(2.5, scale=3.0).cdf)
    assert (g.standard_gamma(0.0, 10).numpy() == 0).all()
    x = g.standard_gamma(4.0, N, dtype=fnp.float32).numpy()
    assert x.dtype == numpy.float32
    _ks(x.astype(float), stats.gamma(4.0).cdf)
    out = fnp.zeros(5)
    assert g.standard_gamma(2.0, out=out) is out and (out.numpy() > 0).all()


@pytest.mark.parametrize("a,b", [(0.5, 0.5), (2.0, 5.0), (0.1, 0.2), (1.0, 1.0), (500.0, 300.0)])
def test_beta(a, b):
    _ks(_rng(23).beta(a, b, N).numpy(), stats.beta(a, b).cdf)


@pytest.mark.parametrize("df", [0.5, 3.0, 100.0])
def test_chisquare(df):
    _ks(_rng(24).chisquare(df, N).numpy(), stats.chi2(df).cdf)


@pytest.mark.parametrize("df", [0.7, 5.0, 1000.0])
def test_standard_t(df):
    _ks(_rng(25).standard_t(df, N).numpy(), stats.t(df).cdf)


@pytest.mark.parametrize("d1,d2", [(3.0, 7.0), (0.5, 20.0)])
def test_f(d1, d2):
    _ks(_rng(26).f(d1, d2, N).numpy(), stats.f(d1, d2).cdf)


def test_simple_continuous():
    g = _rng(27)
    _ks(g.standard_cauchy(N).numpy(), stats.cauchy.cdf)
    for a in (0.5, 3.0):
        _ks(g.pareto(a, N).numpy(), stats.lomax(a).cdf)
        _ks(g.power(a, N).numpy(), stats.powerlaw(a).cdf)
        _ks(g.weibull(a, N).numpy(), stats.weibull_min(a).cdf)
    _ks(g.rayleigh(2.0, N).numpy(), stats.rayleigh(scale=2.0).cdf)
    assert (g.weibull(0.0, 5).numpy() == 0).all()


@pytest.mark.parametrize("left,mode,right", [(0.0, 1.0, 3.0), (0.0, 0.0, 1.0), (-2.0, 5.0, 5.0)])
def test_triangular(left, mode, right):
    x = _rng(28).triangular(left, mode, right, N).numpy()
    _ks(x, stats.triang((mode - left) / (right - left), loc=left, scale=right - left).cdf)


@pytest.mark.parametrize("mean,scale", [(1.0, 2.0), (3.0, 0.5), (1.0, 1e3), (1e3, 1.0)])
def test_wald(mean, scale):
    _ks(_rng(29).wald(mean, scale, N).numpy(), stats.invgauss(mean / scale, scale=scale).cdf)


@pytest.mark.parametrize("mu,kappa", [(0.0, 0.5), (2.5, 4.0), (-1.0, 50.0), (0.0, 1e-9), (1.0, 1e7)])
def test_vonmises(mu, kappa):
    x = _rng(30).vonmises(mu, kappa, N).numpy()
    assert x.min() >= -numpy.pi and x.max() <= numpy.pi
    centred = numpy.remainder(x - mu + numpy.pi, 2 * numpy.pi) - numpy.pi
    if kappa > 1e6:  # NumPy's wrapped normal there
        _ks(centred, stats.norm(scale=kappa ** -0.5).cdf)
    else:
        _ks(centred, stats.vonmises(kappa).cdf)


@pytest.mark.parametrize("df,nonc", [(3.0, 2.0), (0.5, 5.0), (5.0, 0.0), (2.0, 300.0)])
def test_noncentral_chisquare(df, nonc):
    x = _rng(31).noncentral_chisquare(df, nonc, N).numpy()
    _ks(x, stats.chi2(df).cdf if nonc == 0 else stats.ncx2(df, nonc).cdf)


@pytest.mark.parametrize("d1,d2,nonc", [(3.0, 7.0, 2.0), (0.8, 20.0, 10.0)])
def test_noncentral_f(d1, d2, nonc):
    _ks(_rng(32).noncentral_f(d1, d2, nonc, N).numpy(), stats.ncf(d1, d2, nonc).cdf)


def _cdf_at(sample, cdf, points):
    """The empirical CDF at ``points`` within 5 standard errors of ``cdf``: for samples piled against 1,
    where float64 keeps too little of 1 - x for a KS test (NumPy's samples fail it as well)."""
    n = sample.size
    for t in points:
        want = cdf(t)
        assert abs(numpy.mean(sample <= t) - want) <= 5 * numpy.sqrt(want * (1 - want) / n) + 1e-12, t


TINY = [1e-200, 1e-50, 1e-10, 1e-3, 0.1, 0.5, 0.9, 1 - 1e-3, 1 - 1e-8]


@pytest.mark.parametrize("alpha", [(0.5, 1.0, 2.0), (0.01, 0.02, 0.05), (30.0, 1.0)])
def test_dirichlet(alpha):
    alpha = numpy.array(alpha)
    x = _rng(33).dirichlet(alpha, N).numpy()
    numpy.testing.assert_allclose(x.sum(axis=1), 1.0, rtol=1e-12)
    for j in range(len(alpha)):
        marginal = stats.beta(alpha[j], alpha.sum() - alpha[j])
        if alpha.min() < 0.1:
            _cdf_at(x[:, j], marginal.cdf, TINY)
        else:
            _ks(x[:, j], marginal.cdf)


def test_beta_tiny_shapes():
    x = _rng(38).beta(0.01, 0.03, N).numpy()
    assert numpy.isfinite(x).all() and 0 < x.mean() < 1
    _cdf_at(x, stats.beta(0.01, 0.03).cdf, TINY)


@pytest.mark.parametrize("method", ["svd", "eigh", "cholesky"])
def test_multivariate_normal(method):
    mean = numpy.array([1.0, -2.0, 0.5])
    cov = numpy.array([[2.0, 0.6, -0.3], [0.6, 1.0, 0.2], [-0.3, 0.2, 0.5]])
    x = _rng(34).multivariate_normal(mean, cov, N, method=method).numpy()
    for w in (numpy.eye(3)[0], numpy.eye(3)[2], numpy.array([1.0, -1.0, 2.0])):
        _ks(x @ w, stats.norm(w @ mean, numpy.sqrt(w @ cov @ w)).cdf)
    numpy.testing.assert_allclose(numpy.cov(x.T), cov, atol=0.06)


def test_multivariate_normal_check_valid():
    bad = [[1.0, 2.0], [2.0, 1.0]]
    with pytest.warns(RuntimeWarning, match="positive-semidefinite"):
        _rng(35).multivariate_normal([0.0, 0.0], bad)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _rng(35).multivariate_normal([0.0, 0.0], bad, check_valid="ignore")
        singular = _rng(35).multivariate_normal([0.0, 0.0], [[1.0, 1.0], [1.0, 1.0]], 100).numpy()  # PSD: no warning
    numpy.testing.assert_allclose(singular[:, 0], singular[:, 1], atol=1e-6)
    with pytest.raises(numpy.linalg.LinAlgError):
        numpy.random.default_rng(0).multivariate_normal([0.0, 0.0], bad, method="cholesky")
    with pytest.raises(numpy.linalg.LinAlgError):
        _rng(35).multivariate_normal([0.0, 0.0], bad, method="cholesky")


def test_permuted():
    g = _rng(36)
    x = numpy.tile(numpy.arange(4), (N // 4, 1))
    y = g.permuted(x, axis=1).numpy()
    assert (numpy.sort(y, axis=1) == x).all()
    for j in range(4):
        _chi2(y[:, j], lambda k: numpy.full(k.shape, 0.25))
    z = g.permuted(numpy.arange(24).reshape(4, 6)).numpy()
    assert z.shape == (4, 6) and sorted(z.ravel()) == list(range(24))
    w = g.permuted(numpy.arange(12).reshape(3, 4), axis=0).numpy()
    assert (numpy.sort(w, axis=0) == numpy.arange(12).reshape(3, 4)).all()
    a = fnp.arange(10)
    assert g.permuted(a, out=a) is a and sorted(a.numpy()) == list(range(10))


# --- on Nabla's program kernel ----------------------------------------------------------------------------
def test_no_compiles_and_no_interpreter():
    """Every sampler runs on the program kernel: repeated calls (past the sightings after which a
    staged structure would be compiled) neither compile a model nor run MAX's interpreter."""
    nabla.wait_for_compiles()
    before = nabla.engine_stats()
    g = _rng(37)
    for _ in range(17):
        for r in (g.poisson([2.0, 50.0], (40, 2)), g.binomial([5, 500], [0.3, 0.8], (40, 2)),
                  g.gamma([0.4, 3.0], size=(40, 2)), g.hypergeometric([10, 500], 600, 300, (40, 2)), g.zipf(2.0, 40),
                  g.vonmises(0.0, 3.0, 40), g.beta(0.3, 2.0, 40), g.multinomial(20, [0.2, 0.8], 40),
                  g.negative_binomial(3, 0.4, 40), g.dirichlet([0.5, 1.0], 40), g.noncentral_f(2.0, 3.0, 1.0, 40),
                  g.logseries(0.5, 40), g.multivariate_normal([0.0, 0.0], numpy.eye(2), 40), g.geometric(0.3, 40),
                  g.permuted(numpy.arange(12).reshape(3, 4), axis=1), g.standard_t(3.0, 40), g.wald(1.0, 2.0, 40)):
            r.numpy()
    nabla.wait_for_compiles()
    after = nabla.engine_stats()
    assert after["compiles"] == before["compiles"] and after["interpreted"] == before["interpreted"]


@pytest.mark.parametrize("draw,pmf", [
    (lambda g: g.binomial(20, 0.3, 256), lambda k: stats.binom.pmf(k, 20, 0.3)),
    (lambda g: g.binomial(7, 0.8, 256), lambda k: stats.binom.pmf(k, 7, 0.8)),
    (lambda g: g.poisson(2.5, 200), lambda k: stats.poisson.pmf(k, 2.5)),
    (lambda g: g.hypergeometric(9, 12, 6, 256), lambda k: stats.hypergeom.pmf(k, 21, 9, 6)),
])
def test_small_draws_invert_through_a_table_of_their_terms(draw, pmf, monkeypatch):
    """A small draw's inversion (a loop's scalar ``binomial(n, p)``) runs over a table of its terms, a
    running product and sum, where a larger one takes a pass per term: the same counts for the same
    uniforms, and the distribution's (chi-square over 40 small draws)."""
    from nabla.numpy import _distributions, _sampling

    tabled = []
    invert = _distributions._invert

    def counted(u, first, ratio, terms):
        tabled.append(1 < terms and u.shape[0] * terms <= _sampling._TABLE)
        return invert(u, first, ratio, terms)

    monkeypatch.setattr(_distributions, "_invert", counted)
    table = numpy.concatenate([draw(_rng(40 + k)).numpy() for k in range(40)])
    _chi2(table, pmf)
    assert tabled and all(tabled)
    monkeypatch.setattr(_sampling, "_TABLE", 0)
    passes = numpy.concatenate([draw(_rng(40 + k)).numpy() for k in range(40)])
    numpy.testing.assert_array_equal(table, passes)
