"""Nabla's own Mojo kernels (``kernels/``), for what no MAX graph op can express.

Each kernel is declared with ``max.experimental.custom.declare`` so MAX's eager
interpreter runs it as well as the compiler. Declaring builds the Mojo package
(a few seconds, once per process), so it happens on first use. Kernels take
rank-1 operands; callers flatten and restore the shape.
"""

from __future__ import annotations

import functools
from pathlib import Path

from max.dtype import DType
from max.graph import ops

KERNEL_DIR = Path(__file__).with_name("kernels")


@functools.cache
def _declared_sign_bit():
    from max.experimental import custom

    (n,) = custom.Symbols("n")
    return custom.declare(
        "nabla_signbit",
        inputs={"x": custom.TemplateType(custom.DTypeVar("T"), [n])},
        outputs=[custom.TemplateType(DType.bool, [n])],
        custom_extensions=[KERNEL_DIR],
    )


def sign_bit(x):
    """The sign bit of each element of a float ``TensorValue``, NaN's included."""
    flat = ops.reshape(x, [-1]) if x.rank != 1 else x
    out = _declared_sign_bit()(flat)
    return ops.reshape(out, x.shape) if x.rank != 1 else out
