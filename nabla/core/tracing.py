"""OutputRefs: what produced a set of sibling outputs. One per operation call."""

from __future__ import annotations

from typing import Any, NamedTuple


class OutputRefs(NamedTuple):
    """Frozen record shared by every output of one operation call.

    ``op_args`` holds parent ``TensorImpl``s only in traced mode; untraced it is
    empty so parents can be collected as soon as the user drops them.
    """

    refs: tuple  # weakref.ref to each output TensorImpl
    tree_def: Any  # PyTreeDef of the outputs, None for a single output
    op: Any  # the Operation singleton
    op_args: tuple
    op_kwargs: dict

    def get_alive_outputs(self) -> list[Any]:
        """The output TensorImpls still alive (``None`` where collected)."""
        return [r() for r in self.refs]

    @property
    def num_outputs(self) -> int:
        return len(self.refs)

    def __repr__(self) -> str:
        return f"OutputRefs(op={self.op.name}, outputs={len(self.refs)}, traced={bool(self.op_args)})"

    # identity semantics: two calls with equal fields are still two calls
    __eq__ = object.__eq__
    __ne__ = object.__ne__
    __hash__ = object.__hash__
