"""A module imported at its first use: ``max.graph`` costs ~0.1 s of every process's import (a
third of ``import nabla``'s), and a process whose work runs on the program kernel builds no graph."""

from __future__ import annotations

import importlib


class LazyModule:
    """Stands for module ``name`` (``graph_ops.add(...)``): imports it at the first attribute
    asked, then holds its attributes as its own, so later lookups cost what a module's do."""

    def __init__(self, name: str):
        self.__dict__["_lazy_name"] = name

    def __getattr__(self, attr):
        module = importlib.import_module(self.__dict__["_lazy_name"])
        self.__dict__.update(vars(module))
        return getattr(module, attr)

    def __repr__(self) -> str:
        return f"<lazy module {self.__dict__['_lazy_name']}>"


#: MAX's graph ops, for the ops' lowerings
graph_ops = LazyModule("max.graph.ops")
