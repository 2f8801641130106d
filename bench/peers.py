"""The optional peers the benchmarks run beside Nabla (``pip install -e ".[bench]"``)."""

try:
    import jax
    import jax.numpy as jnp
except ImportError:  # optional peer
    jax = jnp = None
try:
    import torch
except ImportError:  # optional peer
    torch = None
