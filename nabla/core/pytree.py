"""JAX-compatible pytrees: nested tuples, lists, dicts and registered nodes, with leaves."""

from __future__ import annotations

import dataclasses
from collections import OrderedDict
from typing import Any, Callable, NamedTuple


class _NodeKind(NamedTuple):
    flatten: Callable[[Any], tuple[list, Any]]
    unflatten: Callable[[Any, list], Any]


_REGISTRY: dict[type, _NodeKind] = {}


def register_pytree_node(cls: type, flatten_fn, unflatten_fn) -> None:
    """Register ``cls`` as a container: ``flatten_fn(x) -> (children, aux)``, ``unflatten_fn(aux, children) -> x``."""
    if cls in _REGISTRY:
        raise ValueError(f"nabla.register_pytree_node: {cls.__name__} is already registered")
    _REGISTRY[cls] = _NodeKind(flatten_fn, unflatten_fn)


def register_dataclass_node(cls: type) -> type:
    """Class decorator: a dataclass whose fields are all children."""
    names = [f.name for f in dataclasses.fields(cls)]
    register_pytree_node(
        cls,
        lambda x: ([getattr(x, n) for n in names], None),
        lambda _aux, ch: cls(**dict(zip(names, ch))),
    )
    return cls


register_pytree_node(tuple, lambda x: (list(x), None), lambda _a, ch: tuple(ch))
register_pytree_node(list, lambda x: (list(x), None), lambda _a, ch: list(ch))
register_pytree_node(type(None), lambda x: ([], None), lambda _a, ch: None)


def _dict_flatten(d):
    keys = sorted(d)
    return [d[k] for k in keys], keys


register_pytree_node(dict, _dict_flatten, lambda keys, ch: dict(zip(keys, ch)))
register_pytree_node(
    OrderedDict,
    lambda d: (list(d.values()), list(d.keys())),
    lambda keys, ch: OrderedDict(zip(keys, ch)),
)


def _kind_of(x) -> _NodeKind | None:
    kind = _REGISTRY.get(type(x))
    if kind is None and isinstance(x, tuple) and hasattr(x, "_fields"):
        return _NAMEDTUPLE
    return kind


_NAMEDTUPLE = _NodeKind(lambda x: (list(x), type(x)), lambda cls, ch: cls(*ch))


class PyTreeDef:
    """The structure of a pytree, without its leaves. Hashable and comparable."""

    __slots__ = ("node_type", "aux", "children", "num_leaves", "_hash")

    def __init__(self, node_type, aux, children: tuple["PyTreeDef", ...]):
        self.node_type = node_type  # None for a leaf
        self.aux = aux
        self.children = children
        self.num_leaves = 1 if node_type is None else sum(c.num_leaves for c in children)
        self._hash = None

    def _key(self):
        aux = tuple(self.aux) if isinstance(self.aux, list) else self.aux
        return (self.node_type, aux, self.children)

    def __eq__(self, other) -> bool:
        if self is other:
            return True
        return isinstance(other, PyTreeDef) and hash(self) == hash(other) and self._key() == other._key()

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(self._key())
        return self._hash

    def __repr__(self) -> str:
        if self.node_type is None:
            return "*"
        inner = ", ".join(map(repr, self.children))
        return f"{getattr(self.node_type, '__name__', self.node_type)}({inner})"

    def unflatten(self, leaves):
        return tree_unflatten(self, leaves)


_LEAF = PyTreeDef(None, None, ())
_INTERNED: dict = {}


def _treedef(node_type, aux, children: tuple) -> PyTreeDef:
    """One shared PyTreeDef per structure, so equal structures compare (and hash) at once:
    a cache keyed by structure (``nabla.compile``'s) then costs one dict probe per call."""
    key = (node_type, tuple(aux) if isinstance(aux, list) else aux, children)
    try:
        td = _INTERNED.get(key)
    except TypeError:  # an unhashable aux of a registered node: no sharing
        return PyTreeDef(node_type, aux, children)
    if td is None:
        if len(_INTERNED) > 100_000:
            _INTERNED.clear()
        td = _INTERNED[key] = PyTreeDef(node_type, aux, children)
    return td


def _flatten_into(x, leaves: list, is_leaf) -> PyTreeDef:
    # a module-level recursion: a nested recursive closure would be a reference cycle that
    # keeps the leaves (tensors, and so pending work) alive until the cyclic GC runs
    if is_leaf is not None and is_leaf(x):
        leaves.append(x)
        return _LEAF
    kind = _kind_of(x)
    if kind is None:
        leaves.append(x)
        return _LEAF
    children, aux = kind.flatten(x)
    node_type = type(x) if kind is not _NAMEDTUPLE else "namedtuple"
    return _treedef(node_type, aux, tuple(_flatten_into(c, leaves, is_leaf) for c in children))


def tree_flatten(tree, is_leaf: Callable[[Any], bool] | None = None) -> tuple[list, PyTreeDef]:
    leaves: list = []
    treedef = _flatten_into(tree, leaves, is_leaf)
    return leaves, treedef


def _build(td: PyTreeDef, it):
    if td.node_type is None:
        return next(it)
    kind = _NAMEDTUPLE if td.node_type == "namedtuple" else _REGISTRY[td.node_type]
    return kind.unflatten(td.aux, [_build(c, it) for c in td.children])


def tree_unflatten(treedef: PyTreeDef, leaves) -> Any:
    it = iter(leaves)
    try:
        out = _build(treedef, it)
    except StopIteration:
        raise ValueError(f"nabla.tree_unflatten: too few leaves for {treedef!r}") from None
    if next(it, _SENTINEL) is not _SENTINEL:
        raise ValueError(f"nabla.tree_unflatten: too many leaves for {treedef!r}")
    return out


_SENTINEL = object()


def tree_leaves(tree, is_leaf=None) -> list:
    return tree_flatten(tree, is_leaf)[0]


def tree_structure(tree, is_leaf=None) -> PyTreeDef:
    return tree_flatten(tree, is_leaf)[1]


def tree_map(fn: Callable, tree, *rest, is_leaf=None):
    """Apply ``fn`` leafwise over ``tree`` and trees of the same structure in ``rest``."""
    leaves, treedef = tree_flatten(tree, is_leaf)
    others = []
    for r in rest:
        r_leaves, r_def = tree_flatten(r, is_leaf)
        if r_def != treedef:
            raise ValueError(f"nabla.tree_map: structures differ: {treedef!r} vs {r_def!r}")
        others.append(r_leaves)
    return tree_unflatten(treedef, [fn(*xs) for xs in zip(leaves, *others)])


def broadcast_prefix(prefix, tree, is_prefix_leaf: Callable[[Any], bool], what: str, is_leaf=None) -> list:
    """One entry of ``prefix`` per leaf of ``tree``, in ``tree_flatten``'s order (JAX's pytree
    prefixes: a leaf of the prefix covers a whole subtree). Lists and tuples match each other, as
    ``in_axes=[0, None]`` for two arguments does in JAX; other nodes match their own type."""
    if is_prefix_leaf(prefix):
        return [prefix] * len(tree_flatten(tree, is_leaf=is_leaf)[0])
    if isinstance(prefix, (list, tuple)) and isinstance(tree, (list, tuple)) and not hasattr(tree, "_fields"):
        if len(prefix) != len(tree):
            raise ValueError(f"{what} has {len(prefix)} entries for a {type(tree).__name__} of {len(tree)}")
        pairs = list(zip(prefix, tree))
    elif isinstance(prefix, dict) and isinstance(tree, dict):
        if set(prefix) != set(tree):
            raise ValueError(f"{what} keys {sorted(map(str, prefix))} do not match the keys {sorted(map(str, tree))}")
        pairs = [(prefix[k], tree[k]) for k in _kind_of(tree).flatten(tree)[1]]
    else:
        kind = _kind_of(tree)
        if kind is None or type(prefix) is not type(tree):
            raise ValueError(f"{what} {prefix!r} does not match the structure of a {type(tree).__name__}")
        (p_children, p_aux), (children, aux) = kind.flatten(prefix), kind.flatten(tree)
        if p_aux != aux or len(p_children) != len(children):
            raise ValueError(f"{what} {prefix!r} does not match the structure of a {type(tree).__name__}")
        pairs = list(zip(p_children, children))
    return [x for p, sub in pairs for x in broadcast_prefix(p, sub, is_prefix_leaf, what, is_leaf)]


__all__ = [
    "PyTreeDef", "register_pytree_node", "register_dataclass_node", "tree_flatten",
    "tree_unflatten", "tree_leaves", "tree_structure", "tree_map",
]

