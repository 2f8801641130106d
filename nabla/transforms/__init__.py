"""Function transformations: autodiff, vmap and compile; shard_map is an open issue."""

from .autodiff import grad, hessian, jacfwd, jacrev, jvp, no_grad, value_and_grad, vjp
from .vmap import vmap
from .compile import CompiledFunction, compile
