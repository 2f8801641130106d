"""Random short programs of what NumPy users write, as Python source over a namespace ``xp``.

A program is text: run with ``xp = numpy`` it is the oracle, with ``xp = nabla.numpy`` the subject, and
printed it is its own reproducer. Host data comes from ``onp`` (NumPy) seeded in the program itself.
Each family draws sizes that cross the engine's internal boundaries (SIMD widths, blocks, the 4 KiB
constant limit, thread splits, the fused kernel's tiles) and inputs that are views.
"""

from __future__ import annotations

import dataclasses

import numpy as onp

from . import arguments, face_calls

#: sizes where blocks, tiles, thread splits and byte limits change (1 element to 10^6)
SIZES = (1, 2, 7, 8, 9, 63, 64, 65, 255, 256, 257, 511, 512, 513, 999, 1000, 1024, 1025, 4095, 4096, 4097,
         65535, 65537, 1_000_000)
#: the same, without the largest: what multi-axis arrays and O(n log n) families draw from
SMALL_SIZES = SIZES[:-3]
INTS = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
FLOATS = ("float16", "float32", "float64")
COMPLEX = ("complex64", "complex128")
DTYPES = ("bool",) + INTS + FLOATS + COMPLEX


@dataclasses.dataclass
class Program:
    family: str
    seed: int
    lines: list[str]
    namespace: str = "numpy"  # the face it runs on: nabla.numpy, or nabla.array_api ("array_api")

    @property
    def source(self) -> str:
        return "\n".join(self.lines)

    def reproducer(self) -> str:
        return (f"import numpy as onp\nimport nabla.{self.namespace} as xp  # numpy as xp gives the expected "
                f"values\n" + self.source + "\n")


class _Writer:
    """Draws a program line by line; names the arrays it makes ``a0, a1, ...``."""

    def __init__(self, rng: onp.random.Generator, big: bool):
        self.rng, self.big = rng, big
        self.lines: list[str] = []
        self.arrays: list[tuple[str, tuple, str]] = []  # (name, shape, dtype)
        self.data = 0

    # --- draws ---------------------------------------------------------------------------------
    def pick(self, seq):
        return seq[int(self.rng.integers(len(seq)))]

    def size(self, small=False):
        sizes = SMALL_SIZES if small or not self.big else SIZES
        return int(self.pick(sizes))

    def shape(self, ndim=None, max_elements=70_000):
        ndim = int(self.rng.integers(0, 5)) if ndim is None else ndim
        if ndim == 0:
            return ()
        if ndim == 1:
            return (self.size(),)
        while True:
            dims = tuple(int(self.pick((1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 33, 64, 65))) for _ in range(ndim))
            if int(onp.prod(dims)) <= max_elements:
                return dims

    # --- lines ---------------------------------------------------------------------------------
    def emit(self, line: str) -> None:
        self.lines.append(line)

    def new(self, expr: str, shape, dtype) -> str:
        name = f"a{len(self.arrays)}"
        self.emit(f"{name} = {expr}")
        self.arrays.append((name, tuple(shape), dtype))
        return name

    def host(self, shape, dtype) -> str:
        """Host data of ``dtype`` and ``shape`` (values that keep integer arithmetic in range)."""
        seed = int(self.rng.integers(1 << 30))
        shp = repr(tuple(shape))
        if dtype == "bool":
            src = f"onp.random.default_rng({seed}).random({shp}) < 0.5"
        elif dtype.startswith("uint"):
            src = f"onp.random.default_rng({seed}).integers(0, 100, {shp}).astype('{dtype}')"
        elif dtype.startswith("int"):
            src = f"onp.random.default_rng({seed}).integers(-100, 100, {shp}).astype('{dtype}')"
        elif dtype.startswith("complex"):
            src = (f"(onp.random.default_rng({seed}).standard_normal({shp}) + 1j * onp.random.default_rng("
                   f"{seed + 1}).standard_normal({shp})).astype('{dtype}')")
        else:
            src = f"onp.random.default_rng({seed}).standard_normal({shp}).astype('{dtype}')"
        return src

    def array(self, shape=None, dtype=None, view=True) -> str:
        """A new input: host data, often seen through a view (a step, a reversal, a transpose, a
        broadcast), sometimes pending work (``+ 0``) rather than a realized buffer."""
        dtype = dtype or self.pick(DTYPES)
        shape = self.shape() if shape is None else tuple(shape)
        kind = self.pick(("plain", "plain", "step", "reverse", "transpose", "broadcast", "pending")) if view \
            else "plain"
        if kind == "step" and shape and shape[0] * 2 <= 2_000_000:
            base = (shape[0] * 2,) + shape[1:]
            return self.new(f"xp.asarray({self.host(base, dtype)})[::2]", shape, dtype)
        if kind == "reverse" and shape:
            return self.new(f"xp.asarray({self.host(shape, dtype)})[::-1]", shape, dtype)
        if kind == "transpose" and len(shape) >= 2:
            return self.new(f"xp.asarray({self.host(shape[::-1], dtype)}).T", shape, dtype)
        if kind == "broadcast" and len(shape) >= 2:
            row = (1,) + shape[1:]
            return self.new(f"xp.broadcast_to(xp.asarray({self.host(row, dtype)}), {shape!r})", shape, dtype)
        if kind == "pending" and dtype not in ("bool",):
            return self.new(f"xp.asarray({self.host(shape, dtype)}) * 1", shape, dtype)
        return self.new(f"xp.asarray({self.host(shape, dtype)})", shape, dtype)


# --- families ------------------------------------------------------------------------------------

def _creation(w: _Writer) -> None:
    kind = w.pick(("arange", "arange", "arange_float", "linspace", "eye", "full", "tri", "indices", "zeros"))
    n = w.size()
    if kind == "arange":
        dtype = w.pick(("None", "'int64'", "'int32'", "'int16'", "'uint32'", "'float32'", "'float64'"))
        step = int(w.pick((1, 1, 2, 3, -1, -7)))
        start = int(w.pick((0, 0, 1, -5, 100)))
        stop = start + step * n
        if dtype in ("'int16'",):
            start, stop = 0, min(n, 30000) * (1 if step > 0 else -1)
            step = 1 if step > 0 else -1
        if dtype == "'uint32'":
            start, step, stop = 0, abs(step), abs(step) * n
        x = w.new(f"xp.arange({start}, {stop}, {step}, dtype={dtype})", (len(range(start, stop, step)),), dtype)
    elif kind == "arange_float":
        start, step = float(w.pick((0.0, 0.5, -3.25, 0.1))), float(w.pick((0.1, 0.25, 0.7, -0.3)))
        dtype = w.pick(("'float32'", "'float64'", "None"))
        x = w.new(f"xp.arange({start}, {start + step * n}, {step}, dtype={dtype})", (n,), dtype)
    elif kind == "linspace":
        x = w.new(f"xp.linspace({w.pick((-1.0, 0.0, 2.5))}, {w.pick((1.0, 10.0, 1e3))}, {n}, "
                  f"endpoint={w.pick(('True', 'False'))})", (n,), "float64")
    elif kind == "eye":
        m = w.size(small=True)
        k = int(w.pick((0, 1, -1, 3)))
        m = min(m, 300)
        x = w.new(f"xp.eye({m}, {min(w.size(small=True), 300)}, k={k}, dtype={w.pick(('float', 'int', 'bool'))})",
                  (m, 0), "float64")
    elif kind == "full":
        fill, dtype = w.pick((7, -3, 2.5, True)), w.pick(("None", "'int32'", "'float32'", "'int64'"))
        x = w.new(f"xp.full({n}, {fill}, dtype={dtype})", (n,), "int64")
    elif kind == "tri":
        x = w.new(f"xp.tri({min(w.size(small=True), 300)}, k={w.pick((0, 1, -2))}, dtype=int)", (0, 0), "int64")
    elif kind == "indices":
        x = w.new(f"xp.indices(({w.pick((3, 7, 33))}, {w.pick((2, 9, 65))}))", (0, 0), "int64")
    else:
        x = w.new(f"xp.zeros({n}, dtype='{w.pick(('int64', 'float32', 'bool', 'uint8'))}')", (n,), "int64")
    # what the values feed (every use must see them)
    use = w.pick(("{x} * 7", "{x} + 9", "-{x}", "{x} % 13", "({x} * 7 % 13).sum()", "{x}.sum()", "{x}[::2]",
                  "{x}.cumsum()", "{x} == {x}[::-1]", "{x}.astype('float64')", "{x} + {x}", "{x}[{x}.size // 2:]"))
    w.new(use.format(x=x), (), "")


_UNARY_ANY = ("-{x}", "xp.abs({x})", "xp.square({x})", "xp.sign({x})", "{x} * 7", "{x} + 9", "{x} - 3",
              "xp.maximum({x}, {y})", "xp.minimum({x}, 2)", "{x} + {y}", "{x} * {y}", "{x} - {y}",
              "xp.where({x} > {y}, {x}, {y})", "{x} == {y}", "{x} < 5", "{x} >= {y}", "xp.clip({x}, -3, 40)")
_UNARY_FLOAT = ("xp.exp({x} / 4)", "xp.sin({x})", "xp.cos({x})", "xp.tanh({x})", "xp.sqrt(xp.abs({x}))",
                "xp.log1p(xp.abs({x}))", "{x} / 3", "{x} / ({y} * {y} + 1)", "xp.floor({x})", "xp.round({x}, 2)",
                "{x} ** 2", "xp.arctan2({x}, {y})", "xp.hypot({x}, {y})", "xp.isnan(xp.sqrt({x}))",
                "xp.exp2({x} / 8)", "{x} % 1.5", "{x} // 0.75", "xp.fmod({x}, {y})", "{x} // ({y} - 1)")
_UNARY_INT = ("{x} % 7", "{x} // 3", "{x} & {y}", "{x} | 5", "{x} ^ {y}", "{x} << 2", "{x} >> 1",
              "{x} % {y}", "{x} // ({y} * 0 + 5)", "~{x}", "{x} * {x}", "{x} // 2 + {x} % 2")
_COMPLEX = ("-{x}", "xp.abs({x})", "{x} * {y}", "{x} + {y}", "{x} - 2j", "{x} / ({y} * {y} + 2)", "xp.exp({x} / 4)",
            "xp.sin({x})", "xp.sqrt({x})", "xp.conj({x})", "{x} == {y}", "xp.square({x})", "{x}.real", "{x}.imag",
            "xp.where(xp.abs({x}) > 1, {x}, {y})", "{x} ** 2", "xp.log({x})", "xp.log1p({x} / 2)", "xp.expm1({x} / 4)",
            "xp.tanh({x} / 2)", "xp.cosh({x} / 3)", "xp.tan({x} / 3)", "xp.arcsinh({x})", "xp.arccos({x} / 2)",
            "xp.arctanh({x} / 3)", "xp.log10({x})")
_BOOL = ("~{x}", "{x} & {y}", "{x} | {y}", "{x} ^ {y}", "{x} == {y}", "xp.logical_not({x})",
         "{x}.astype('int32') + 1", "xp.where({x}, 1.5, -2)")
_SCALARS = ("2", "-1", "0.5", "True", "3.0", "200", "-200", "1000")


def _elementwise(w: _Writer) -> None:
    dtype = w.pick(DTYPES + ("int64", "float32", "float64"))
    shape = w.shape()
    x = w.array(shape, dtype)
    other_shape = shape if w.rng.random() < 0.6 or not shape else shape[-1:]
    y = w.array(other_shape, dtype)
    for _ in range(int(w.rng.integers(1, 5))):
        if dtype == "bool":
            table = _BOOL
        elif dtype.startswith("complex"):
            table = _COMPLEX
        elif dtype.startswith(("int", "uint")):
            table = _UNARY_ANY + _UNARY_INT
        else:
            table = _UNARY_ANY + _UNARY_FLOAT
        expr = w.pick(table)
        if not shape:  # NumPy's 0-d ops give scalars, whose `** 2` is power (bool ** 2: int64), not the
            expr = expr.replace("{x} ** 2", "xp.square({x})")  # square of arrays: Nabla has no scalars
        if w.rng.random() < 0.2:  # a Python scalar meets the array (NEP 50's weak scalars)
            expr = f"({expr}) {w.pick(('+', '*', '<', '=='))} {w.pick(_SCALARS)}"
        x = w.new(expr.format(x=x, y=y), shape, "")
    if w.rng.random() < 0.3:  # ends in a reduction or a read
        w.new(f"{x}.sum()" if w.rng.random() < 0.5 else f"{x}[..., ::-1]", (), "")
    if dtype != "bool" and w.rng.random() < 0.4:  # results written into existing arrays
        target = w.new(f"xp.zeros({shape!r}, dtype='{w.pick((dtype, 'float64', 'int64'))}')", shape, "")
        kind = w.pick(("out", "iadd", "imul", "view_out"))
        if kind == "out":
            w.emit(f"xp.multiply({y}, 3, out={target})")
        elif kind == "iadd":
            w.emit(f"{target} += {y}")
        elif kind == "imul":
            w.emit(f"{target} += 1")
            w.emit(f"{target} *= {w.pick(('2', '-1', '0.5'))}")
        elif shape:
            w.emit(f"xp.add({y}[::2], 1, out={target}[::2])")


def _axes(w: _Writer, ndim: int):
    if ndim == 0:
        return "None"
    kind = w.pick(("none", "one", "neg", "tuple"))
    if kind == "none":
        return "None"
    if kind == "one":
        return str(int(w.rng.integers(ndim)))
    if kind == "neg":
        return str(-1 - int(w.rng.integers(ndim)))
    k = int(w.rng.integers(1, ndim + 1))
    return repr(tuple(sorted(int(a) for a in w.rng.choice(ndim, k, replace=False))))


def _reductions(w: _Writer) -> None:
    dtype = w.pick(("bool",) + INTS + FLOATS)
    shape = w.shape()
    x = w.array(shape, dtype)
    for _ in range(int(w.rng.integers(1, 3))):
        fn = w.pick(("sum", "prod", "min", "max", "mean", "std", "var", "any", "all", "argmin", "argmax", "ptp"))
        if fn == "prod" and dtype != "bool":
            src = f"({x} % 3 + 1 if {x}.dtype.kind in 'iu' else {x} / 2 + 0.75)"
        else:
            src = x
        if fn in ("min", "max", "argmin", "argmax", "ptp") and 0 in shape:
            continue
        keep = w.pick(("False", "True"))
        if fn in ("argmin", "argmax"):
            ax = str(int(w.rng.integers(len(shape)))) if shape else "None"
            w.new(f"xp.{fn}({src}, axis={ax})", (), "")
        elif fn == "ptp" and dtype == "bool":
            continue
        else:
            w.new(f"xp.{fn}({src}, axis={_axes(w, len(shape))}, keepdims={keep})", (), "")


def _scans(w: _Writer) -> None:
    dtype = w.pick(("bool", "int32", "int64", "uint8", "float32", "float64"))
    shape = w.shape(int(w.rng.integers(1, 4)))
    x = w.array(shape, dtype)
    axis = int(w.rng.integers(len(shape)))
    fn = w.pick(("cumsum", "cumprod", "diff", "cumsum_flat"))
    if fn == "cumprod":
        w.new(f"xp.cumprod(({x} % 2 + 1) if {x}.dtype.kind in 'iub' else {x} / 8 + 1, axis={axis})", (), "")
    elif fn == "diff":
        if dtype != "bool":
            w.new(f"xp.diff({x}, axis={axis})", (), "")
    elif fn == "cumsum_flat":
        w.new(f"xp.cumsum({x})", (), "")
    else:
        w.new(f"xp.cumsum({x}, axis={axis})", (), "")


def _index_key(w: _Writer, shape) -> str:
    parts = []
    for n in shape[:int(w.rng.integers(1, len(shape) + 1))]:
        kind = w.pick(("slice", "step", "neg", "int", "array", "all"))
        if kind == "slice":
            parts.append(f"{int(w.rng.integers(0, n))}:{int(w.rng.integers(0, n + 1))}")
        elif kind == "step":
            parts.append(f"::{int(w.pick((2, 3, 7)))}")
        elif kind == "neg":
            parts.append(f"::{int(w.pick((-1, -2)))}")
        elif kind == "int":
            parts.append(str(int(w.rng.integers(-n, n))))
        elif kind == "array" and not any(p.startswith("[") for p in parts):
            k = int(w.rng.integers(1, 6))
            parts.append(repr([int(v) for v in w.rng.integers(-n, n, k)]))
        else:
            parts.append(":")
    return ", ".join(parts) if parts else "..."


def _indexing(w: _Writer) -> None:
    dtype = w.pick(("bool", "int16", "int64", "uint8", "float32", "float64", "complex64"))
    shape = w.shape(int(w.rng.integers(1, 4)))
    if 0 in shape:
        shape = tuple(max(d, 1) for d in shape)
    x = w.array(shape, dtype, view=w.rng.random() < 0.5)
    kind = w.pick(("get", "get", "mask", "set", "set_mask", "set_array", "take", "flat", "nonzero"))
    if kind == "get":
        w.new(f"{x}[{_index_key(w, shape)}]", (), "")
    elif kind == "mask":
        w.new(f"{x}[{x}.real > 0]" if dtype != "bool" else f"{x}[{x}]", (), "")
    elif kind == "take":
        n = int(onp.prod(shape))
        w.new(f"xp.take({x}, {[int(v) for v in w.rng.integers(-n, n, 5)]})", (), "")
    elif kind == "flat":
        n = int(onp.prod(shape))
        w.emit(f"{x} = xp.array({x})")
        w.emit(f"{x}.flat[{[int(v) for v in w.rng.integers(0, n, 3)]}] = {w.pick(('1', '[0, 1]', 'True'))}")
    elif kind == "nonzero":
        w.new(f"xp.nonzero({x})", (), "")
    else:
        w.emit(f"{x} = xp.array({x})")  # a writable copy (a view of a broadcast is read-only in NumPy)
        value = w.pick(("1", "0", "True", "2.7" if dtype.startswith(("float", "complex")) else "3"))
        if kind == "set":
            w.emit(f"{x}[{_index_key(w, shape)}] = {value}")
        elif kind == "set_mask":
            w.emit(f"{x}[{x}.real < 0.5] = {value}" if dtype != "bool" else f"{x}[~{x}] = True")
        else:
            n = shape[0]
            w.emit(f"{x}[{sorted(set(int(v) for v in w.rng.integers(0, n, 3)))}] = {value}")
        if w.rng.random() < 0.5:  # a view of the written array, written through
            w.emit(f"v = {x}[::2]")
            w.emit(f"v[...] = {value}")


def _sorting(w: _Writer) -> None:
    dtype = w.pick(("int8", "int32", "int64", "uint16", "float32", "float64"))
    shape = w.shape(int(w.rng.integers(1, 3)), max_elements=70_000)
    x = w.array(shape, dtype)
    kind = w.pick(("sort", "argsort", "unique", "searchsorted", "sort_axis0", "unique_counts", "sets"))
    if kind == "sets":
        y = w.array((int(w.pick((1, 5, 64, 513))),), dtype, view=False)
        w.new(f"xp.{w.pick(('isin', 'intersect1d', 'union1d', 'setdiff1d', 'setxor1d'))}({x}, {y})", (), "")
        return
    if kind == "sort":
        w.new(f"xp.sort({x})", (), "")
    elif kind == "sort_axis0":
        w.new(f"xp.sort({x}, axis=0)", (), "")
    elif kind == "argsort":
        w.new(f"xp.argsort({x}, kind='stable')", (), "")
    elif kind == "unique":
        w.new(f"xp.unique({x})", (), "")
    elif kind == "unique_counts":
        w.new(f"xp.unique({x}, return_counts=True, return_index=True)", (), "")
    else:
        w.new(f"xp.searchsorted(xp.sort({x}.ravel()), {x}.ravel()[::3], side={w.pick(('left', 'right'))!r})",
              (), "")


def _matmul(w: _Writer) -> None:
    dtype = w.pick(("float32", "float64", "int32", "int64", "complex64"))
    m, k, n = (int(w.pick((1, 2, 3, 7, 16, 33, 64, 65, 128))) for _ in range(3))
    a = w.array((m, k), dtype)
    b = w.array((k, n), dtype)
    kind = w.pick(("matmul", "dot", "einsum", "batched", "vec"))
    if kind == "matmul":
        w.new(f"{a} @ {b}", (), "")
    elif kind == "dot":
        w.new(f"xp.dot({a}, {b})", (), "")
    elif kind == "einsum":
        w.new(f"xp.einsum('ij,jk->ik', {a}, {b})", (), "")
    elif kind == "vec":
        w.new(f"{a} @ {b}[:, 0]", (), "")
    else:
        c = w.array((3, m, k), dtype)
        w.new(f"xp.matmul({c}, {b})", (), "")


def _manipulation(w: _Writer) -> None:
    dtype = w.pick(("bool", "int32", "int64", "uint8", "float32", "float64", "complex128"))
    shape = w.shape(int(w.rng.integers(1, 4)))
    x = w.array(shape, dtype)
    y = w.array(shape, dtype)
    axis = int(w.rng.integers(len(shape)))
    kind = w.pick(("concatenate", "stack", "pad", "roll", "flip", "repeat", "tile", "reshape_f", "ravel_f",
                   "transpose", "moveaxis", "split", "squeeze"))
    exprs = {
        "concatenate": f"xp.concatenate([{x}, {y}], axis={axis})",
        "stack": f"xp.stack([{x}, {y}], axis={axis})",
        "pad": f"xp.pad({x}, {w.pick((1, 2, (1, 3)))})",
        "roll": f"xp.roll({x}, {int(w.rng.integers(-9, 9))}, axis={w.pick(('None', str(axis)))})",
        "flip": f"xp.flip({x}, axis={axis})",
        "repeat": f"xp.repeat({x}, {w.pick((2, 3))}, axis={axis})",
        "tile": f"xp.tile({x}, {w.pick((2, (2, 1), (1, 2, 1)))})",
        "reshape_f": f"xp.reshape({x}, (-1,), order='F')" if w.rng.random() < 0.5 else
                     f"{x}.reshape({shape[::-1]!r}, order='F')",
        "ravel_f": f"xp.ravel({x}, order='F')" if w.rng.random() < 0.5 else f"{x}.flatten('F')",
        "transpose": f"xp.transpose({x})",
        "moveaxis": f"xp.moveaxis({x}, 0, -1)",
        "split": f"xp.array_split({x}, 3, axis={axis})",
        "squeeze": f"xp.squeeze({x}[None])",
    }
    w.new(exprs[kind], (), "")


def _linalg(w: _Writer) -> None:
    dtype = w.pick(("float32", "float64"))
    n = int(w.pick((1, 2, 3, 5, 8, 17, 33)))
    a = w.new(f"xp.asarray({w.host((n, n), dtype)}) + {n} * xp.eye({n}, dtype='{dtype}')", (n, n), dtype)
    b = w.array((n, 2), dtype, view=False)
    kind = w.pick(("solve", "inv", "det", "norm", "cholesky", "eigvalsh", "qr_r", "svd_s", "lstsq"))
    norm_ord = w.pick(("None", "'fro'", "1", "2", "xp.inf"))
    exprs = {
        "solve": f"xp.linalg.solve({a}, {b})",
        "inv": f"xp.linalg.inv({a})",
        "det": f"xp.linalg.det({a} / {n})",
        "norm": f"xp.linalg.norm({a}, {norm_ord})",
        "cholesky": f"xp.linalg.cholesky({a} @ {a}.T)",
        "eigvalsh": f"xp.linalg.eigvalsh({a} + {a}.T)",
        "qr_r": f"xp.abs(xp.linalg.qr({a})[1])",
        "svd_s": f"xp.linalg.svd({a}, compute_uv=False)",
        "lstsq": f"xp.linalg.lstsq({a}, {b}, rcond=None)[0]",
    }
    w.new(exprs[kind], (), "")


def _fft(w: _Writer) -> None:
    n = int(w.pick((1, 2, 7, 8, 16, 63, 64, 100, 1000, 1024, 1025, 4097)))
    dtype = w.pick(("float32", "float64", "complex64", "complex128"))
    x = w.array((n,), dtype)
    kind = w.pick(("fft", "ifft", "rfft", "irfft", "fft_n"))
    if kind == "rfft" and not dtype.startswith("complex"):
        w.new(f"xp.fft.rfft({x})", (), "")
    elif kind == "irfft" and n > 1:
        w.new(f"xp.fft.irfft(xp.fft.rfft({x}.real))", (), "")
    elif kind == "fft_n":
        w.new(f"xp.fft.fft({x}, n={int(w.pick((5, 16, 33)))})", (), "")
    else:
        w.new(f"xp.fft.{'ifft' if kind == 'ifft' else 'fft'}({x})", (), "")


def _random(w: _Writer) -> None:
    shape = w.shape(int(w.rng.integers(0, 3)))
    kind = w.pick(("random", "normal", "integers", "uniform", "permutation", "choice"))
    seed = int(w.rng.integers(1000))
    g = f"xp.random.default_rng({seed})"
    exprs = {
        "random": f"{g}.random({shape!r}).shape",
        "normal": f"{g}.standard_normal({shape!r}, dtype={w.pick(('onp.float32', 'onp.float64'))}).dtype",
        "integers": f"{g}.integers(0, 10, {shape!r}).shape",
        "uniform": f"{g}.uniform(-1, 1, {shape!r}).shape",
        "permutation": f"xp.sort({g}.permutation({max(1, int(onp.prod(shape)))}))",
        "choice": f"{g}.choice(10, {max(1, int(onp.prod(shape)))}).shape",
    }
    w.new(exprs[kind], (), "")


def _array_api(w: _Writer) -> None:
    """The standard's names, run on ``nabla.array_api`` (NumPy 2 has them too, for the oracle)."""
    dtype = w.pick(("int32", "int64", "uint8", "float32", "float64", "bool"))
    shape = w.shape(int(w.rng.integers(1, 4)))
    x = w.array(shape, dtype, view=False)
    axis = int(w.rng.integers(len(shape)))
    num = dtype != "bool"
    exprs = [f"xp.permute_dims({x}, {tuple(reversed(range(len(shape))))!r})", f"xp.reshape({x}, (-1,))",
             f"xp.concat([{x}, {x}], axis={axis})", f"xp.flip({x}, axis={axis})", f"xp.astype({x}, xp.float64)",
             f"xp.where({x} == {x}, {x}, {x})", f"xp.expand_dims({x}, axis=0)", f"xp.roll({x}, 3, axis={axis})"]
    if num:
        exprs += [f"xp.sum({x}, axis={axis})", f"xp.max({x}, axis={axis}, keepdims=True)",
                  f"xp.cumulative_sum({x}, axis={axis})", f"xp.sort({x}, axis={axis})",
                  f"xp.argsort({x}, axis={axis}, stable=True)", f"xp.sort(xp.unique_values({x}))",
                  f"xp.clip({x}, 1, 50)", f"{x} * 3 + 7", f"xp.take({x}, xp.asarray([0, 0]), axis={axis})"]
    if dtype.startswith("float"):
        exprs += [f"xp.mean({x}, axis={axis})", f"xp.exp({x} / 4)", f"xp.linalg.vector_norm({x})"]
    w.new(w.pick(exprs), (), "")


def _statistics(w: _Writer) -> None:
    """What an analysis script meets after its arithmetic: order statistics, histograms and counts,
    interpolation, convolution, differences, covariances and weighted means."""
    dtype = w.pick(("int32", "int64", "uint8", "float32", "float64", "float64"))
    kind = w.pick(("percentile", "quantile", "median", "histogram", "histogram_edges", "bincount", "digitize",
                   "interp", "convolve", "correlate", "gradient", "diff", "cov", "corrcoef", "average", "nan",
                   "count_nonzero", "searchsorted"))
    flat = (w.size(),)
    if kind in ("percentile", "quantile", "median"):
        shape = w.shape(int(w.rng.integers(1, 4)))
        if 0 in shape:
            shape = tuple(max(d, 1) for d in shape)
        x = w.array(shape, dtype)
        axis = w.pick(("None", "0", "-1")) if len(shape) > 1 else "None"
        if kind == "median":
            w.new(f"xp.median({x}, axis={axis})", (), "")
            return
        q = w.pick(("50", "[5, 50, 95]", "0", "100", "[12.5, 99.9]", "33.3"))
        if kind == "quantile":
            q = f"xp.asarray({q}) / 100" if q.startswith("[") else f"{q} / 100"
        method = w.pick(("'linear'", "'linear'", "'lower'", "'higher'", "'nearest'", "'midpoint'"))
        w.new(f"xp.{kind}({x}, {q}, axis={axis}, method={method})", (), "")
    elif kind in ("histogram", "histogram_edges"):
        x = w.array(flat, w.pick(("float32", "float64", "int64")))
        if kind == "histogram":
            bins = w.pick(("10", "1", "7", "64", "257"))
            rng_ = w.pick(("None", "(-2, 2)", "(0, 1)"))
            counts = w.new(f"xp.histogram({x}, bins={bins}, range={rng_})", (), "")
        else:
            edges = w.pick(("[-1.0, 0.0, 0.5, 2.0]", "xp.linspace(-3, 3, 13)", "[-100, 0, 100]"))
            counts = w.new(f"xp.histogram({x}, bins={edges})", (), "")
        w.new(f"{counts}[0].sum()", (), "")
    elif kind == "bincount":
        x = w.new(f"xp.asarray({w.host(flat, 'uint8')}) % {w.pick((3, 17, 100))}", flat, "uint8")
        weights = w.pick(("None", "weights"))
        if weights == "weights":
            weights = w.array(flat, "float64", view=False)
        w.new(f"xp.bincount({x}, weights={weights}, minlength={w.pick((0, 5, 200))})", (), "")
    elif kind == "digitize":
        x = w.array(flat, w.pick(("float32", "float64", "int64")))
        bins = w.pick(("[-1.0, 0.0, 0.5, 2.0]", "[2.0, 0.5, 0.0, -1.0]", "[0, 0, 1]", "[-50, 0, 50]"))
        w.new(f"xp.digitize({x}, {bins}, right={w.pick(('False', 'True'))})", (), "")
    elif kind == "interp":
        n = w.size(small=True)
        xp_ = w.new(f"xp.sort(xp.asarray({w.host((n,), 'float64')}))", (n,), "float64")
        fp = w.array((n,), "float64", view=False)
        x = w.array(flat, w.pick(("float64", "float32", "int64")))
        w.new(f"xp.interp({x}, {xp_}, {fp})", (), "")
    elif kind in ("convolve", "correlate"):
        x = w.array(flat if flat[0] <= 65537 else (4097,), w.pick(("float64", "float32", "int64")))
        v = w.array((int(w.pick((1, 2, 3, 5, 16, 65))),), w.pick(("float64", "int64")))
        mode = w.pick(("'full'", "'same'", "'valid'"))
        w.new(f"xp.{kind}({x}, {v}, mode={mode})", (), "")
    elif kind == "gradient":
        shape = w.shape(int(w.rng.integers(1, 3)))
        shape = tuple(max(d, 3) for d in shape)
        x = w.array(shape, w.pick(("float64", "float32", "int64")))
        spacing = w.pick(("", ", 0.5", ", 2"))
        axis = ", axis=0" if len(shape) > 1 else ""
        w.new(f"xp.gradient({x}{spacing}{axis})", (), "")
    elif kind == "diff":
        shape = w.shape(int(w.rng.integers(1, 3)))
        x = w.array(shape, dtype)
        prepend = w.pick(("", ", prepend=0"))
        w.new(f"xp.diff({x}, n={w.pick((1, 2, 3))}, axis=-1{prepend})", (), "")
    elif kind in ("cov", "corrcoef"):
        rows, cols = int(w.pick((1, 2, 3, 5, 9))), int(w.pick((2, 3, 8, 65, 257, 1000)))
        x = w.array((rows, cols), w.pick(("float64", "float32", "int64")))
        extra = ", rowvar=False" if w.rng.random() < 0.3 and rows > 1 else ""
        w.new(f"xp.{kind}({x}{extra})", (), "")
    elif kind == "average":
        shape = w.shape(int(w.rng.integers(1, 3)))
        shape = tuple(max(d, 1) for d in shape)
        x = w.array(shape, dtype)
        wts = w.new(f"xp.asarray({w.host(shape[-1:], 'float64')}) ** 2 + 0.5", shape[-1:], "float64")
        w.new(f"xp.average({x}, axis=-1, weights={wts}, returned={w.pick(('False', 'True'))})", (), "")
    elif kind == "nan":
        x = w.array(flat, w.pick(("float32", "float64")), view=False)
        holed = w.new(f"xp.where({x} > 1.0, xp.nan, {x})", flat, "")
        fn = w.pick(("nansum", "nanmean", "nanmax", "nanmin", "nanstd", "nanvar", "nanargmax", "nanmedian",
                     "nanpercentile"))
        extra = ", 90" if fn == "nanpercentile" else ""
        w.new(f"xp.{fn}({holed}{extra})", (), "")
    elif kind == "count_nonzero":
        shape = w.shape(int(w.rng.integers(1, 4)))
        x = w.array(shape, w.pick(("bool",) + INTS + FLOATS))
        w.new(f"xp.count_nonzero({x}, axis={_axes(w, len(shape))})", (), "")
    else:
        n = w.size(small=True)
        a = w.new(f"xp.sort(xp.asarray({w.host((n,), dtype)}))", (n,), dtype)
        v = w.array(flat, dtype)
        side = w.pick(("'left'", "'right'"))
        w.new(f"xp.searchsorted({a}, {v}, side={side})", (), "")


def _composites(w: _Writer) -> None:
    """Functions NumPy builds from others, as a script meets them: polynomials, grids, products,
    triangles, partitions, gathers along an axis, matrix powers and pseudo-inverses, windows."""
    dtype = w.pick(("int32", "int64", "float32", "float64", "float64"))
    kind = w.pick(("polyfit", "polyval", "meshgrid", "kron", "tri", "argpartition", "take_along_axis",
                   "matrix_power", "pinv", "outer", "cross", "trapezoid", "vander", "ediff1d", "unwrap",
                   "rot90", "where_select", "clip_round", "cumprod", "nan_to_num"))
    if kind in ("polyfit", "polyval"):
        n = int(w.pick((3, 8, 65, 257, 1000)))
        x = w.new(f"xp.linspace(-2, 2, {n})", (n,), "float64")
        y = w.array((n,), "float64", view=False)
        deg = int(w.pick((0, 1, 2, 3)))
        c = w.new(f"xp.polyfit({x}, {y}, {deg})", (deg + 1,), "float64")
        if kind == "polyval":
            w.new(f"xp.polyval({c}, {x})", (n,), "")
    elif kind == "meshgrid":
        a, b = w.array((w.size(small=True) % 70 + 1,), dtype), w.array((int(w.pick((1, 3, 9))),), dtype)
        indexing = w.pick(("'xy'", "'ij'"))
        w.new(f"xp.meshgrid({a}, {b}, indexing={indexing})", (), "")
    elif kind == "kron":
        a = w.array((int(w.pick((1, 2, 3))), int(w.pick((2, 4)))), dtype)
        b = w.array((int(w.pick((1, 3, 5))), int(w.pick((2, 7)))), dtype)
        w.new(f"xp.kron({a}, {b})", (), "")
    elif kind == "tri":
        a = w.array((int(w.pick((1, 4, 9, 65))), int(w.pick((1, 5, 64)))), dtype)
        w.new(f"xp.{w.pick(('tril', 'triu'))}({a}, k={w.pick((0, 1, -2))})", (), "")
    elif kind in ("argpartition", "take_along_axis"):
        shape = (int(w.pick((1, 5, 17))), int(w.pick((2, 9, 64, 257))))
        a = w.array(shape, dtype)
        axis = int(w.pick((0, 1, -1)))
        if kind == "argpartition":
            k = int(w.rng.integers(shape[axis]))
            # (the order around the kth element is NumPy's own: only the kth element is compared)
            p = f"xp.argpartition({a}, {k}, axis={axis})"
            w.new(f"xp.take_along_axis({a}, {p}, axis={axis})[(slice(None),) * ({axis} % 2) + ({k},)]", (), "")
        else:
            i = w.new(f"xp.argsort({a}, axis={axis}, kind='stable')", shape, "int64")
            w.new(f"xp.take_along_axis({a}, {i}, axis={axis})", (), "")
    elif kind == "matrix_power":
        m = int(w.pick((1, 2, 3, 5)))
        a = w.new(f"xp.asarray({w.host((m, m), 'float64')}) / {m + 1}", (m, m), "float64")
        w.new(f"xp.linalg.matrix_power({a}, {w.pick((0, 1, 2, 3, 5))})", (), "")
    elif kind == "pinv":
        a = w.array((int(w.pick((1, 3, 5))), int(w.pick((2, 4, 7)))), "float64", view=False)
        w.new(f"xp.linalg.pinv({a}) @ {a}", (), "")
    elif kind == "outer":
        a, b = w.array((w.size(small=True) % 300 + 1,), dtype), w.array((int(w.pick((1, 3, 65))),), dtype)
        w.new(f"xp.outer({a}, {b})", (), "")
    elif kind == "cross":
        shape = (int(w.pick((1, 4, 65))), 3)
        a, b = w.array(shape, dtype), w.array(shape, dtype)
        w.new(f"xp.cross({a}, {b})", (), "")
    elif kind == "trapezoid":
        a = w.array((w.size(),), "float64")
        w.new(f"xp.trapezoid({a}, dx={w.pick((1.0, 0.5))})", (), "")
    elif kind == "vander":
        a = w.array((int(w.pick((1, 3, 8))),), dtype)
        w.new(f"xp.vander({a}, {w.pick((None, 2, 4))})", (), "")
    elif kind == "ediff1d":
        a = w.array((w.size(),), dtype)
        w.new(f"xp.ediff1d({a})", (), "")
    elif kind == "unwrap":
        a = w.new(f"xp.cumsum(xp.asarray({w.host((w.size(small=True),), 'float64')}))", (), "float64")
        w.new(f"xp.unwrap({a})", (), "")
    elif kind == "rot90":
        a = w.array((int(w.pick((1, 3, 8))), int(w.pick((2, 5)))), dtype)
        w.new(f"xp.rot90({a}, {w.pick((1, 2, 3, -1))})", (), "")
    elif kind == "where_select":
        a = w.array((w.size(),), dtype)
        w.new(f"xp.select([{a} < 0, {a} > 1], [{a} * 2, {a} - 1], default=7)", (), "")
    elif kind == "clip_round":
        a = w.array((w.size(),), "float64")
        w.new(f"xp.round(xp.clip({a}, -1.5, 1.5), {w.pick((0, 1, 3, -1))})", (), "")
    elif kind == "cumprod":
        a = w.new(f"xp.asarray({w.host((w.size(small=True),), dtype)}) % 3 + 1", (), dtype)
        w.new(f"xp.cumprod({a})", (), "")
    else:
        a = w.array((w.size(),), "float64", view=False)
        w.new(f"xp.nan_to_num(xp.where({a} > 1, xp.inf, xp.where({a} < -1, xp.nan, {a})), posinf=9.0)", (), "")


#: a float dtype's edges, as program text over ``e = onp.finfo(dtype)``: zeros, units, the largest and
#: smallest normals, infinities, NaN, wide quotients, arguments next to exp's and sinh's overflow
_EDGE_VALUES = ("[0.0, -0.0, 1.0, -1.0, 0.5, 2.0, 3.0, -3.0, 1e-3, 0.1, e.tiny, e.max, -e.max, e.max / 3, e.eps, "
                "1 + e.eps, 1 - e.eps / 2, onp.inf, -onp.inf, onp.nan, 10.0, -10.5, 1e10, 88.0, 88.7, 89.2, -87.0, "
                "700.0, 709.9, 710.3, -708.0, 11.0]")
_EDGE_UNARY = ("exp", "expm1", "exp2", "log", "log1p", "log2", "sqrt", "cbrt", "sinh", "cosh", "tanh", "sin", "cos",
               "arctan", "arcsinh", "spacing", "negative", "abs", "sign", "floor", "rint", "square", "reciprocal")
_EDGE_BINARY = ("add", "subtract", "multiply", "divide", "fmod", "remainder", "floor_divide", "power", "arctan2",
                "hypot", "logaddexp", "logaddexp2", "nextafter", "copysign", "maximum", "minimum", "fmax", "fmin",
                "heaviside", "equal", "not_equal", "less", "greater_equal")
_EDGE_COMPARISONS = ("equal", "not_equal", "less", "greater_equal")
#: the edge ops whose results are NumPy's to the bit (IEEE's correctly rounded arithmetic, exact
#: operations): a chain goes on after these only
_EDGE_EXACT = frozenset(("add", "subtract", "multiply", "divide", "sqrt", "negative", "abs", "sign", "floor",
                         "rint", "square", "reciprocal", "fmod", "remainder", "floor_divide", "copysign",
                         "maximum", "minimum", "fmax", "fmin", "nextafter", "spacing", "heaviside"))
#: the ops that pick one operand of two equal ones: NumPy's loops give the zero of either sign where
#: both are zeros (maximum(-0.0, 0.0) is 0.0 in its float32 and float64 SIMD loops, -0.0 in their
#: tails and in float16's), so the program adds 0.0 after them (a zero's sign is then +)
_EDGE_TIES = frozenset(("maximum", "minimum", "fmax", "fmin"))


def _edge_operands(w: _Writer, dtypes, values: str, info: str):
    """A dtype of ``dtypes`` and two arrays drawn from its edge ``values`` (program text over ``e``, the
    dtype's ``onp.finfo`` or ``onp.iinfo``), of one drawn length."""
    dtype = w.pick(dtypes)
    pool = f"(lambda e: onp.array({values}, dtype='{dtype}'))(onp.{info}('{dtype}'))"
    n = int(w.pick((1, 7, 64, 257, 1000)))

    def edge_array():
        seed = int(w.rng.integers(1 << 30))
        return w.new(f"xp.asarray(onp.random.default_rng({seed}).choice({pool}, {n}))", (n,), dtype)

    return dtype, n, edge_array(), edge_array()


def _edges(w: _Writer) -> None:
    """Float ufuncs on the edges of their dtypes, operands apart and one value twice (``x - x``,
    ``x != x``: what a compiler may fold)."""
    dtype, n, x, y = _edge_operands(w, FLOATS, _EDGE_VALUES, "finfo")

    def flushed(name):
        # MAX's kernels flush subnormals (docs/numpy.md): the program flushes NumPy's too, so that a
        # subnormal step is not compared through the steps after it
        w.emit(f"{name} = xp.where(xp.abs({name}) < onp.finfo('{dtype}').tiny, {name} * 0, {name})")
        return name

    for _ in range(int(w.rng.integers(1, 4))):
        if w.rng.random() < 0.35:
            name = w.pick(_EDGE_UNARY)
            x = flushed(w.new(f"xp.{name}({x})", (n,), ""))
        else:
            name = w.pick(_EDGE_BINARY)
            operands = w.pick((f"{x}, {y}", f"{x}, {y}", f"{x}, {x}", f"{x}, -{x}", f"{x} * 2, {x} * 2"))
            x = w.new(f"xp.{name}({operands})", (n,), "")
            if name in _EDGE_COMPARISONS:
                break
            x = flushed(x)
            if name in _EDGE_TIES:  # (a zero of either sign where both operands are zeros: see _EDGE_TIES)
                w.emit(f"{x} = {x} + 0.0")
        if name not in _EDGE_EXACT:
            # an op within ulps of NumPy's, not at them, ends the chain: what follows would magnify
            # its last bit (sin of a power near 1e10, a comparison of two such values, an
            # overflow one ulp away), a difference of the libraries' rounding, not of the values
            break


#: an integer dtype's edges, as program text over ``e = onp.iinfo(dtype)``: zero, units, the extremes and
#: their neighbours, halves, and (in 64 bits) values past float64's 2^53
_INT_EDGE_VALUES = ("sorted({v for v in [0, 1, 2, 3, 7, -1, -2, -7, e.max, e.max - 1, e.max // 2, e.max // 2 + 1, "
                    "e.min, e.min + 1, e.min // 2, 2 ** 53 + 1, 2 ** 62 + 3, -2 ** 53 - 1, e.max - 1024] "
                    "if e.min <= v <= e.max})")
_INT_EDGE_UNARY = ("negative", "abs", "square", "sign", "invert", "bitwise_count", "positive")
_INT_EDGE_BINARY = ("add", "subtract", "multiply", "floor_divide", "remainder", "fmod", "maximum", "minimum",
                    "bitwise_and", "bitwise_or", "bitwise_xor", "gcd", "lcm", "equal", "less", "greater_equal",
                    "not_equal")


def _int_edges(w: _Writer) -> None:
    """Integer ufuncs on the edges of their dtypes: wrapping arithmetic, a zero divisor (0, as NumPy
    gives), the signed minimum's magnitude, shifts up to past the width, casts and sums that wrap."""
    dtype, n, x, y = _edge_operands(w, INTS, _INT_EDGE_VALUES, "iinfo")
    for _ in range(int(w.rng.integers(1, 4))):
        kind = w.rng.random()
        if kind < 0.25:
            x = w.new(f"xp.{w.pick(_INT_EDGE_UNARY)}({x})", (n,), "")
        elif kind < 0.35:
            seed = int(w.rng.integers(1 << 30))
            shifts = f"onp.random.default_rng({seed}).integers(0, onp.iinfo('{dtype}').bits + 2, {n}).astype('{dtype}')"
            x = w.new(f"xp.{w.pick(('left_shift', 'right_shift'))}({x}, xp.asarray({shifts}))", (n,), "")
        else:
            name = w.pick(_INT_EDGE_BINARY)
            x = w.new(f"xp.{name}({w.pick((f'{x}, {y}', f'{x}, {y}', f'{x}, {x}', f'{y}, {x}'))})", (n,), "")
            if name in _EDGE_COMPARISONS:
                break
        if w.rng.random() < 0.15:
            break
    end = w.rng.random()
    if end < 0.2:
        w.new(f"{x}.astype('{w.pick(('float64', 'float32', 'int8', 'uint64', 'int64'))}')", (n,), "")
    elif end < 0.35:
        w.new(f"xp.{w.pick(('sum', 'cumsum', 'max', 'min'))}({x})", (), "")


def _loops(w: _Writer) -> None:
    """Programs as NumPy users write them: loops of slice writes (stencils, their borders, shifts
    that overlap what they read), element loops over moving indices, a scalar read per step that
    steers the next write, writes through views, and ops the program kernel lacks between its
    stages; every dtype, every size."""
    dtype = w.pick(("float64", "float64", "float32", "int32", "int64", "int16", "uint8", "bool"))
    numeric = dtype != "bool"
    floats = dtype.startswith("float")
    kind = w.pick(("stencil", "borders", "shift", "elements", "reads", "views", "foreign", "masks", "rows",
                   "host_elements", "scalar_ops", "pending_elements", "growing", "in_place", "sweep", "fields"))
    steps = int(w.rng.integers(1, 9))
    n = int(w.pick((3, 5, 9, 17, 64, 65, 257, 1025, 3000)))
    c = "0.25" if floats else "1"
    if kind == "stencil" and numeric:
        two = w.rng.random() < 0.5 and n <= 257
        shape = (n, max(3, n // 3)) if two else (n,)
        a = w.array(shape, dtype, view=False)
        w.emit(f"{a} = xp.array({a})")
        b = w.new(f"xp.zeros_like({a})", shape, dtype)
        body = (f"{b}[1:-1, 1:-1] = {c} * ({a}[1:-1, 1:-1] + {a}[:-2, 1:-1] + {a}[2:, 1:-1] + {a}[1:-1, :-2])"
                if two else f"{b}[1:-1] = {c} * ({a}[:-2] + {a}[1:-1] + {a}[2:])")
        back = body.replace(f"{b}[", "TMP[").replace(f"{a}[", f"{b}[").replace("TMP[", f"{a}[")
        w.emit(f"for t in range({steps}):\n    {body}\n    {back}")
    elif kind == "borders" and numeric:
        p = w.array((n, max(3, n // 4)), dtype, view=False)
        w.emit(f"{p} = xp.array({p})")
        half = "* 0.5" if floats else "// 2"
        w.emit(f"for t in range({steps}):\n    pn = {p}.copy()\n"
               f"    {p}[1:-1, 1:-1] = (pn[1:-1, 2:] + pn[1:-1, :-2]) {half}\n"
               f"    {p}[:, -1] = {p}[:, -2]\n    {p}[0, :] = {p}[1, :]\n    {p}[:, 0] = {p}[:, 1]\n"
               f"    {p}[-1, :] = 0")
    elif kind == "shift":
        x = w.array((n,), dtype, view=False)
        w.emit(f"{x} = xp.array({x})")
        grow = " * 2" if floats else ""
        w.emit(f"for t in range({steps}):\n    {x}[1:] = {x}[:-1]{grow}\n    {x}[:-2] = {x}[2:]")
    elif kind == "elements" and numeric:
        m = min(n, 40)
        x = w.array((m,), dtype, view=False)
        y = w.array((m,), dtype)
        w.emit(f"{x} = xp.array({x})")
        op = w.pick(("xp.maximum({x}[i - 1], {y}[i])", "{x}[i - 1] + {y}[i]", "xp.minimum({x}[i - 1] * 2, {y}[i])"))
        w.emit(f"for i in range(1, {m}):\n    {x}[i] = " + op.format(x=x, y=y))
        back = f"{x}[i + 1] * 0.5" if floats else f"{x}[i + 1] // 3"
        w.emit(f"for i in range({m} - 2, -1, -1):\n    {x}[i] = {x}[i] - {back}")
    elif kind == "reads" and numeric:
        x = w.array((n,), dtype, view=False)
        w.emit(f"{x} = xp.array({x})")
        w.emit(f"k = 0\nfor t in range({steps}):\n    {x}[1:] = {x}[:-1] + {x}[1:]\n"
               f"    k = int(xp.argmax({x}))\n    {x}[k] = {x}[0]\n    {x}[0] = {x}[{x}.shape[0] // 2]")
    elif kind == "views":
        x = w.array((n,), dtype, view=False)
        w.emit(f"{x} = xp.array({x})")
        grow = " * 2 + t" if floats else ""
        w.emit(f"v = {x}[1::2]\nfor t in range({steps}):\n    v[:] = v[::-1]{grow}\n    {x}[0] = v[-1]\n"
               f"    {x}[-1] = {x}[0]")
        w.new("v.copy()", (), dtype)
    elif kind == "host_elements" and numeric:
        # nussinov's: element writes into realized data (Python scalars, picked elements), a
        # comparison read between them, and a copy, a pending reader and a view taken across them
        m = min(n, 24)
        x = w.array((m, 2), dtype, view=False)
        w.emit(f"{x} = xp.array({x})")
        k = w.new(f"{x}.copy()", (m, 2), dtype)
        r = w.new(f"{x} * 1", (m, 2), dtype)
        scalar = "0.5 * i - 3" if floats else "i % 7"
        w.emit(f"for i in range(1, {m}):\n    {x}[i, 0] = max({x}[i - 1, 0], {x}[i, 1])\n"
               f"    {x}[i, 1] = {scalar}\n    if {x}[i, 0] > {x}[i - 1, 1]:\n        {x}[i - 1, 1] = {x}[i, 0]")
        v = w.new(f"{x}[:, 0]", (m,), dtype)
        w.emit(f"{x}[0, 0] = {x}[{m} - 1, 1]\n{x}[{m} - 1, 0] = {'2.5' if floats else '3'}")
        w.new(f"{v} + {k}[:, 1] - {r}[:, 0]", (m,), dtype)
    elif kind == "scalar_ops" and numeric:
        # crc16's and go_fast's: Python over picked elements (0-d ops computed as they are made), an
        # ``if`` on each, Python scalars mixed in, the result written back element by element
        m = min(n, 30)
        x = w.array((m,), dtype, view=False)
        y = w.array((m,), dtype)
        w.emit(f"{x} = xp.array({x})")
        ops = (("{a} + {b}", "{a} - {b}", "{a} * {b}", "{a} / 4", "xp.maximum({a}, {b})", "-{a}", "abs({a}) * 0.5",
                "xp.tanh({a}) + {b}", "xp.where({a} < {b}, {a}, {b} - 1)") if floats else
               ("{a} + {b}", "{a} - {b}", "{a} * 3", "{a} // 3", "{a} % 5", "{a} & {b}", "{a} | 1", "{a} ^ {b}",
                "{a} >> 1", "xp.minimum({a}, {b})", "-{a}", "abs({a})", "xp.where({a} > {b}, {a}, {b})"))
        first, second = (w.pick(ops).format(a=f"{x}[i]", b="acc"), w.pick(ops).format(a="t", b=f"{y}[i]"))
        w.emit(f"acc = {x}[0]\nfor i in range(1, {m}):\n    t = {first}\n    if t > {y}[i]:\n"
               f"        acc = {second}\n    else:\n        acc = xp.maximum(acc, {y}[i - 1])\n    {x}[i] = acc")
        w.new("acc * 1", (), dtype)
    elif kind == "pending_elements" and numeric:
        # seidel's: a row op leaves the array pending, then an element loop along the row (after its
        # first recorded writes the array is realized for the loop, which then runs at once), a
        # reader taken inside it; or (a view of the array alive) every write recorded
        m = min(n, 24)
        x = w.array((4, m), dtype, view=False)
        w.emit(f"{x} = xp.array({x})")
        half = "* 0.5" if floats else "// 2"
        if w.rng.random() < 0.25:
            w.emit(f"keep = {x}[2]")
        w.emit(f"for i in range(1, 4):\n    {x}[i, 1:] = ({x}[i - 1, :-1] + {x}[i, 1:]) {half}\n"
               f"    for j in range(1, {m}):\n        {x}[i, j] += {x}[i, j - 1]\n"
               f"        {x}[i, j] = {x}[i, j] {half}\n"
               f"        if i == 2 and j == {m // 2}:\n            seen = {x} * 1")
        w.new("seen + 0", (4, m), dtype)
    elif kind == "growing" and numeric:
        # trisolv's, durbin's and lu's: slices that grow by one each step (an op over them is one
        # program of any length), rows, columns and reversed ones, a dot, a reduction, an element
        # write and a slice write into an array the next step slices
        m = min(n, 40)
        a = w.array((m, m), dtype, view=False)
        x = w.array((m,), dtype, view=False)
        w.emit(f"{a} = xp.array({a})\n{x} = xp.array({x})")
        half, share = ("* 0.5", "/ i") if floats else ("// 2", "// i")
        w.emit(f"for i in range(1, {m}):\n    s = {a}[i, :i] @ {x}[:i]\n    u = {a}[:i, i] - {x}[i - 1::-1]\n"
               f"    {x}[i] = (s {share} + u.max()) {half}\n    {x}[:i] = xp.minimum({x}[:i], u {half})")
    elif kind == "in_place" and numeric:
        # syrk's, gramschmidt's, adi's and deriche's: in-place ops on rows, columns and strided
        # slices of realized data (into its memory at once), slices of other data written in, a
        # view and a reader taken across them, and a loop over the rows of a pending array
        m = min(n, 24)
        a = w.array((m, m), dtype, view=False)
        b = w.array((m, m), dtype, view=False)
        r = w.array((m, 130), dtype, view=False)
        w.emit(f"{a} = xp.array({a})\n{b} = xp.array({b})\n{r} = xp.array({r})")
        half = "* 0.5" if floats else "// 2"
        if w.rng.random() < 0.25:
            w.emit(f"keep = {a}[1]")
        w.emit(f"for i in range(1, {m}):\n    {a}[i, :i + 1] += {b}[i, :i + 1] {half}\n"
               f"    {a}[:, i] -= {a}[:, i - 1] {half}\n    {a}[::-2, i] *= {'1.5' if floats else '3'}\n"
               f"    {b}[1:-1, i] = {a}[i, 1:-1]\n"
               f"    if i == {m // 2}:\n        seen = {a} * 1")
        w.new("seen + 0", (m, m), dtype)
        q = w.new(f"{r} * 1", (m, 130), dtype)  # (pending where larger than an op at once)
        o = w.new(f"xp.zeros_like({r})", (m, 130), dtype)
        w.emit(f"for i in range(1, {m}):\n    {o}[i, :] = {q}[i, :] {half} + {o}[i - 1, :] {half}")
    elif kind == "sweep" and numeric:
        # vadv's: a sweep along an axis that writes the region it reads (and reads the one before),
        # the region also read through an op that moves its elements; a block written from itself
        # moved (more than one block of the kernel's)
        m = int(w.pick((40, 41, 1025, 3000)))
        c = w.array((m, 40), dtype, view=False)
        d = w.array((m,), dtype)
        w.emit(f"{c} = xp.array({c}) * 1")
        half = "* 0.5" if floats else "// 2"
        moved = w.pick((f"{c}[:, k]", f"{c}[::-1, k]", f"{c}[:, k - 1:k + 1].T[0]", f"xp.sort({c}[:, k])"))
        w.emit(f"for k in range(1, 6):\n    {c}[:, k] = ({c}[:, k] - {c}[:, k - 1] {half}) + {d}\n"
               f"    {c}[:, k] = {c}[:, k] * {d} - {moved} {half}")
        block = w.pick((f"{c}[:40].T", f"{c}[:40][::-1]", f"{c}[:40].ravel()[::-1].reshape(40, 40)", f"{c}[:40]"))
        w.emit(f"{c}[:40] = {block} {half} + {c}[:40]")
    elif kind == "fields" and numeric:
        # fdtd's: fields updated in place from each other's overlapping regions, a row set first
        m = int(w.pick((5, 17, 65, 257)))
        ex, ey, hz = (w.array((m, m + 3), dtype, view=False) for _ in range(3))
        w.emit(f"{ex} = xp.array({ex})\n{ey} = xp.array({ey})\n{hz} = xp.array({hz})")
        half = "* 0.5" if floats else "// 2"
        w.emit(f"for t in range({steps}):\n    {ey}[0, :] = t\n"
               f"    {ey}[1:, :] -= ({hz}[1:, :] - {hz}[:-1, :]) {half}\n"
               f"    {ex}[:, 1:] -= ({hz}[:, 1:] - {hz}[:, :-1]) {half}\n"
               f"    {hz}[:-1, :-1] -= ({ex}[:-1, 1:] - {ex}[:-1, :-1] + {ey}[1:, :-1] - {ey}[:-1, :-1]) {half}")
    elif kind == "masks" and numeric:  # nbody's and mandelbrot's: a mask read, computed on, written back
        x = w.array((n,), dtype, view=False)
        w.emit(f"{x} = xp.array({x})")
        lo, step = ("0.5", "* 0.5 + 1") if floats else ("3", "// 2 + 1")
        w.emit(f"for t in range({steps}):\n    hot = {x} > {lo}\n    {x}[hot] = {x}[hot] {step}\n"
               f"    {x}[{x} == 0] = 1")
    elif kind == "rows":  # rows named by an index array, repeats and negative ones (the last write wins)
        m = min(n, 64)
        x = w.array((m, 3), dtype, view=False)
        y = w.array((m, 3), dtype)
        w.emit(f"{x} = xp.array({x})")
        rows = [int(r) for r in w.rng.integers(-m, m, int(w.rng.integers(1, 7)))]
        w.emit(f"rows = xp.asarray({rows})")
        w.emit(f"for t in range({steps}):\n    {x}[rows] = {y}[:{len(rows)}]\n    {x}[-1] = {x}[0]")
    else:  # ops the program kernel lacks between its stages (a sort, a large matmul)
        m = min(n, 300)
        x = w.array((m,), dtype if numeric else "float64", view=False)
        w.emit(f"{x} = xp.array({x})")
        k = max(1, m // 3)
        w.emit(f"for t in range({steps}):\n    {x}[:{k}] = xp.sort({x}[:{k}])[::-1]\n"
               f"    {x}[{k}:] = {x}[{k}:] + {x}[:{m - k}]")
    if w.arrays and w.rng.random() < 0.5:
        name, _, dt = w.arrays[0]
        if dt and dt != "bool":
            w.new(f"{name}.sum()", (), "")


FAMILIES = {
    "creation": _creation, "elementwise": _elementwise, "reductions": _reductions, "scans": _scans,
    "indexing": _indexing, "sorting": _sorting, "matmul": _matmul, "manipulation": _manipulation,
    "linalg": _linalg, "fft": _fft, "random": _random, "array_api": _array_api, "statistics": _statistics,
    "composites": _composites, "edges": _edges, "int_edges": _int_edges, "loops": _loops,
    "scalars": arguments.scalars, "view_args": arguments.view_args, "face_calls": face_calls.face_calls,
}


def generate(family: str, seed: int, big: bool = True) -> Program:
    """One program of ``family`` from ``seed`` (the same program for the same arguments)."""
    rng = onp.random.default_rng([seed, list(FAMILIES).index(family)])
    w = _Writer(rng, big)
    FAMILIES[family](w)
    return Program(family, seed, w.lines, "array_api" if family == "array_api" else "numpy")
