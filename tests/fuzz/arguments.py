"""Fuzz families over what a call is given: Python scalars of every kind and range in every argument
position (``scalars``), and every kind of view into every op that takes an array (``view_args``).

Both draw programs with ``programs._Writer``; ``programs.FAMILIES`` lists them with the others.
"""

from __future__ import annotations

#: Python scalars of every kind, in and past each integer dtype's range and past int64, as program text
SCALARS = ("-1", "0", "1", "True", "False", "127", "128", "255", "256", "300", "-129", "-32769", "65536",
           "2 ** 31", "2 ** 32", "-2 ** 31 - 1", "2 ** 63 - 1", "2 ** 63", "2 ** 64", "-2 ** 63", "-2 ** 63 - 1",
           "1.5", "-1.5", "0.0", "-0.0", "1e300", "float('nan')", "float('inf')", "float('-inf')", "1 + 2j")
_ARRAY_DTYPES = ("bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float16",
                 "float32", "float64", "complex64", "complex128")

#: call forms over an array ``a`` and a scalar ``s``; each mutates a copy where it writes
_CALLS = (
    "xp.where({a} > 1, {a}, {s})", "xp.where({a} > 1, {s}, {a})", "xp.where({a} > 1, {s}, {s})",
    "xp.select([{a} > 1, {a} < 1], [{a}, {a} * 2], {s})",
    "xp.full(3, {s}, dtype={a}.dtype)", "xp.full_like({a}, {s})", "xp.full((2, 2), {s})",
    "{a} == {s}", "{a} != {s}", "{a} < {s}", "{s} >= {a}",
    "{a} + {s}", "{s} - {a}", "{a} * {s}", "xp.add({a}, {s})", "xp.multiply({s}, {a})",
    "xp.clip({a}, {s}, None)", "xp.clip({a}, None, {s})",
    "xp.maximum({a}, {s})", "xp.minimum({s}, {a})",
    "{a}[0] = {s}", "{a}[...] = {s}", "xp.putmask({a}, {a} > 1, {s})", "{a}.fill({s})",
)
#: calls whose NumPy behaviour Nabla does not follow yet for some scalars (the README lists them):
#: (form, predicate over (dtype, scalar text)) pairs the generator avoids
_GAPS = (
    # complex ordering (NumPy orders complex lexicographically; Nabla refuses it)
    (("xp.clip({a}, {s}, None)", "xp.clip({a}, None, {s})", "xp.maximum({a}, {s})", "xp.minimum({s}, {a})"),
     lambda dt, s: dt.startswith("complex") or s == "1 + 2j"),
    # ints past int64 where NumPy converts them to a float or complex array dtype
    (("xp.select([{a} > 1, {a} < 1], [{a}, {a} * 2], {s})", "{a}[...] = {s}", "{a}[0] = {s}", "{a}.fill({s})"),
     lambda dt, s: s in ("2 ** 64", "-2 ** 63 - 1")),
    # (not a gap: NumPy makes an object array of such an int, which Nabla refuses by design)
    (("xp.full((2, 2), {s})",), lambda dt, s: s in ("2 ** 64", "-2 ** 63 - 1")),
)


def _gap(form, dtype, scalar) -> bool:
    return any(form in forms and hit(dtype, scalar) for forms, hit in _GAPS)


def scalars(w) -> None:
    """One call with a Python scalar in one argument position, on an array of any dtype, possibly a
    view: NEP 50's promotion, its OverflowError for an int the dtype cannot hold, NumPy's own rules
    where a function differs (``where`` and ``full`` cast as C does; ``clip`` clamps a harmless
    bound; ``putmask`` converts as ``dtype.type(s)``)."""
    for _ in range(int(w.rng.integers(1, 4))):
        dtype = w.pick(_ARRAY_DTYPES)
        while True:
            form, scalar = w.pick(_CALLS), w.pick(SCALARS)
            if not _gap(form, dtype, scalar):
                break
        a = w.array((int(w.pick((1, 4, 7, 65))),), dtype)
        call = form.format(a=a, s=f"({scalar})")
        if form.startswith("{a}[") or form.startswith("xp.putmask") or form.endswith(".fill({s})"):
            w.emit(f"{a} = xp.array({a})")  # a write: into a copy the program owns (not a view of a broadcast)
            w.emit(call)
        else:
            w.new(call, (), "")


#: ops that take an array (not only elementwise ones), as program text over an input ``x`` of at
#: least one axis; a view reaches each
_VIEW_OPS = (
    "xp.sort({x}, axis=-1)", "xp.argsort({x}, axis=-1, kind='stable')", "xp.partition({x}, 0, axis=-1)[..., 0]",
    "xp.take_along_axis({x}, xp.argpartition({x}, {x}.shape[-1] // 2, axis=-1), axis=-1)[..., {x}.shape[-1] // 2]",
    "xp.take_along_axis({x}, xp.argsort({x}, axis=-1, kind='stable'), axis=-1)",
    "xp.searchsorted(xp.sort({x}.ravel()), {x}.ravel()[::3])", "xp.unique({x})", "xp.cumsum({x}, axis=0)",
    "xp.diff({x}, axis=-1)", "xp.flip({x}, axis=0)", "xp.roll({x}, 1, axis=0)", "xp.concatenate([{x}, {x}], axis=0)",
    "xp.fft.fft({x}, axis=-1)", "xp.fft.rfft({x}, axis=-1)",
    "xp.nonzero({x})[0]", "xp.argmax({x}, axis=0)", "xp.count_nonzero({x}, axis=-1)", "{x}.reshape(-1)",
    "xp.tril({x})", "xp.matmul({x}, {x}.T)", "xp.linalg.norm({x})", "xp.median({x}, axis=-1)",
    "xp.percentile({x}, 30, axis=-1)",
)
_VIEW_KINDS = ("[::2]", "[::-1]", ".T", "[::-3]", "broadcast", "[1:]")


def view_args(w) -> None:
    """Every kind of view (steps, negative steps, transposes, broadcasts, offsets) of every dtype into
    sorting, partition, search, scans, FFTs and reductions, not only elementwise ops."""
    dtype = w.pick(("int8", "uint8", "int16", "int32", "int64", "float32", "float64", "bool"))
    rows, cols = int(w.pick((1, 2, 3, 8, 17))), int(w.pick((2, 5, 64, 999, 1998)))
    view = w.pick(_VIEW_KINDS)
    if view == "broadcast":
        base = w.new(f"xp.asarray({w.host((1, cols), dtype)})", (1, cols), dtype)
        x = w.new(f"xp.broadcast_to({base}, {(rows, cols)!r})", (rows, cols), dtype)
    elif view == ".T":
        base = w.new(f"xp.asarray({w.host((cols, rows), dtype)})", (cols, rows), dtype)
        x = w.new(f"{base}.T", (rows, cols), dtype)
    else:
        step = {"[::2]": 2, "[::-3]": 3}.get(view, 1)
        n = rows * step + (view == "[1:]")
        base = w.new(f"xp.asarray({w.host((n, cols), dtype)})", (n, cols), dtype)
        x = w.new(f"{base}{view}" if view != "[::-1]" else f"{base}[::-1]", (rows, cols), dtype)
        if w.rng.random() < 0.5:  # a view along the last axis too
            x = w.new(f"{x}[:, ::-1]", (rows, cols), dtype)
    for _ in range(int(w.rng.integers(1, 3))):
        op = w.pick(_VIEW_OPS)
        if dtype == "bool" and ("fft" in op or "matmul" in op or "diff" in op or "percentile" in op
                                or "median" in op or "norm" in op):
            op = "xp.sort({x}, axis=-1)"
        w.new(op.format(x=x), (), "")
