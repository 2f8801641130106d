"""Function transformations: autodiff and vmap; compile and shard_map are open issues."""

from .autodiff import grad, hessian, jacfwd, jacrev, jvp, no_grad, value_and_grad, vjp
from .vmap import vmap
