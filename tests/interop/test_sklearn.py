"""scikit-learn on Nabla tensors: its own array-API checks for every estimator and metric it marks
array-API capable, and a representative set of fits against the same fits on NumPy arrays."""

import functools
import os
import warnings

os.environ.setdefault("SCIPY_ARRAY_API", "1")  # scipy reads it at import; sklearn's dispatch needs it

import numpy as np
import pytest

import nabla as nb

sklearn = pytest.importorskip("sklearn")  # a test dependency (the test extra): always there in CI

from sklearn import config_context  # noqa: E402
from sklearn.base import clone  # noqa: E402
from sklearn.utils import get_tags  # noqa: E402
from sklearn.utils._test_common.instance_generator import (  # noqa: E402
    _get_check_estimator_ids, _get_expected_failed_checks, _tested_estimators)
from sklearn.utils.estimator_checks import check_array_api_input, check_array_api_same_namespace  # noqa: E402

NAMESPACE = "nabla.array_api"


def _estimator_cases():
    cases = []
    for est in _tested_estimators():
        tags = get_tags(est)
        if not tags.array_api_support or not tags.input_tags.two_d_array:  # as sklearn's _yield_all_checks
            continue
        expected = _get_expected_failed_checks(est)  # scikit-learn's own list of known failures
        ident = _get_check_estimator_ids(est)
        for check, dtype in ((check_array_api_input, "float64"), (check_array_api_input, "float32"),
                             (check_array_api_same_namespace, None)):
            if check.__name__ not in expected:
                cases.append(pytest.param(est, check, dtype, id=f"{check.__name__}-{ident}-{dtype}"))
    return cases


def _metric_id(metric) -> str:
    """A metric's name, with a partial's keywords (its repr holds an address: ids must be the same in
    every process that collects them)."""
    if isinstance(metric, functools.partial):
        return f"{metric.func.__name__}({','.join(f'{k}={v}' for k, v in sorted(metric.keywords.items()))})"
    return getattr(metric, "__name__", str(metric))


def _metric_cases():
    from sklearn.metrics.tests.test_common import array_api_metric_checkers

    return [pytest.param(metric, chk, dtype, id=f"{_metric_id(metric)}-{chk.__name__}-{dtype}")
            for metric, checks in array_api_metric_checkers.items() for chk in checks
            for dtype in ("float64", "float32")]


@pytest.mark.parametrize("estimator, check, dtype", _estimator_cases())
def test_scikit_learn_estimator_checks(estimator, check, dtype):
    kwargs = {} if dtype is None else {"dtype_name": dtype}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(type(estimator).__name__, clone(estimator), array_namespace=NAMESPACE, device_name=None, **kwargs)


@pytest.mark.parametrize("metric, check, dtype", _metric_cases())
def test_scikit_learn_metric_checks(metric, check, dtype):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(metric, NAMESPACE, None, dtype)


def _fit_both(estimator, x, y=None):
    host = clone(estimator).fit(x, y)
    with config_context(array_api_dispatch=True):
        lazy = clone(estimator).fit(nb.array_api.asarray(x), None if y is None else nb.array_api.asarray(y))
    return host, lazy


def _same_up_to_sign(a, b, **kw):
    """Rows of a and b equal up to one sign per row (singular/eigen vectors)."""
    a, b = np.asarray(a), np.asarray(b)
    signs = np.sign(np.sum(a * b, axis=-1, keepdims=True))
    np.testing.assert_allclose(a * signs, b, **kw)


@pytest.mark.parametrize("solver", ["full", "covariance_eigh"])
def test_pca_matches_numpy(solver):
    from sklearn.decomposition import PCA

    x = np.random.default_rng(0).standard_normal((60, 8)) @ np.diag(np.arange(8, 0, -1.0))
    host, lazy = _fit_both(PCA(n_components=5, svd_solver=solver), x)
    assert isinstance(lazy.components_, nb.Tensor)
    np.testing.assert_allclose(np.asarray(lazy.explained_variance_), host.explained_variance_, rtol=1e-10)
    _same_up_to_sign(np.asarray(lazy.components_), host.components_, rtol=1e-8, atol=1e-10)
    with config_context(array_api_dispatch=True):
        z = lazy.transform(nb.array_api.asarray(x))
    np.testing.assert_allclose(np.abs(np.asarray(z)), np.abs(host.transform(x)), rtol=1e-8, atol=1e-10)


def test_ridge_svd_matches_numpy():
    from sklearn.linear_model import Ridge

    rng = np.random.default_rng(1)
    x = rng.standard_normal((50, 6))
    y = x @ rng.standard_normal(6) + 0.1 * rng.standard_normal(50)
    host, lazy = _fit_both(Ridge(alpha=0.5, solver="svd"), x, y)
    np.testing.assert_allclose(np.asarray(lazy.coef_), host.coef_, rtol=1e-10)
    with config_context(array_api_dispatch=True):
        pred = lazy.predict(nb.array_api.asarray(x))
    np.testing.assert_allclose(np.asarray(pred), host.predict(x), rtol=1e-10)


def test_linear_discriminant_analysis_matches_numpy():
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
    from sklearn.datasets import make_classification

    x, y = make_classification(n_samples=80, n_features=6, n_informative=4, n_classes=3, random_state=2)
    host, lazy = _fit_both(LinearDiscriminantAnalysis(solver="svd"), x, y)
    with config_context(array_api_dispatch=True):
        proba = lazy.predict_proba(nb.array_api.asarray(x))
        pred = lazy.predict(nb.array_api.asarray(x))
    np.testing.assert_allclose(np.asarray(proba), host.predict_proba(x), rtol=1e-7, atol=1e-10)
    np.testing.assert_array_equal(np.asarray(pred), host.predict(x))


def test_cross_validation_and_grid_search_run_in_two_worker_processes():
    """``n_jobs=2``: joblib's loky workers receive Nabla arrays by pickle, fit on them with
    dispatch on (the configuration travels with each task) and send results back; the scores
    are NumPy's."""
    from sklearn.linear_model import Ridge
    from sklearn.model_selection import GridSearchCV, cross_val_score

    rng = np.random.default_rng(3)
    X = rng.normal(size=(120, 5))
    y = X @ rng.normal(size=5) + 0.1 * rng.normal(size=120)
    want = cross_val_score(Ridge(alpha=1.0, solver="svd"), X, y, cv=3)
    with config_context(array_api_dispatch=True):
        got = cross_val_score(Ridge(alpha=1.0, solver="svd"), nb.array_api.asarray(X), nb.array_api.asarray(y), cv=3, n_jobs=2)
        search = GridSearchCV(Ridge(solver="svd"), {"alpha": [0.1, 10.0]}, cv=3, n_jobs=2)
        search.fit(nb.array_api.asarray(X), nb.array_api.asarray(y))
    np.testing.assert_allclose(np.asarray(got, dtype=float), want, rtol=1e-10)
    assert search.best_params_ == {"alpha": 0.1}
    assert isinstance(search.best_estimator_.coef_, nb.Tensor)
