"""Nabla's packages are layers (docs/architecture.md): each imports only from the layers below it,
function-level imports counted, and no module reaches itself again through its imports: an import
cycle fails here."""

import ast
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent / "nabla"

#: package -> layer; a module may import from its own layer and the ones below
LAYERS = {"core": 0, "ops": 1, "runtime": 2, "sharding": 3, "transforms": 4, "array_api": 5, "numpy": 6}

#: import cycles still to break (none: any cycle fails)
KNOWN_CYCLES: list = []


def _modules() -> dict:
    found = {}
    for path in ROOT.rglob("*.py"):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def import_graph() -> dict:
    """module -> the modules of nabla it imports, anywhere in its body."""
    modules = _modules()
    edges = {m: set() for m in modules}
    for name, path in modules.items():
        package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = ".".join((package[:len(package) - node.level + 1] if node.level else [])
                                + ([node.module] if node.module else []))
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
            else:
                continue
            edges[name].update(t for t in targets if t in modules and t != name and not name.startswith(t + "."))
    return edges


def cycles(edges: dict) -> list:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(component)

    for v in edges:
        if v not in index:
            visit(v)
    return found


def _layer(module: str):
    parts = module.split(".")
    return LAYERS.get(parts[1]) if len(parts) > 1 else None


def test_packages_import_only_from_the_layers_below():
    wrong = [(a, b) for a, targets in import_graph().items() for b in targets
             if _layer(a) is not None and (_layer(b) is None or _layer(b) > _layer(a))]
    assert not wrong, wrong


def test_no_new_import_cycle():
    grown = [sorted(c) for c in cycles(import_graph()) if not any(c <= known for known in KNOWN_CYCLES)]
    assert not grown, grown


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [{"a", "b", "c"}]


def test_no_package_reaches_into_the_engines_private_state():
    """What other packages need from the engine (``nabla/core``) is its public interface:
    ``trace``, ``tracing``, ``graph_of``, ``signal_buffers``, ``single_op_model_known``, ..."""
    import re

    reach = re.compile(r"\bengine\._[a-z]\w*")
    found = [f"{path.relative_to(ROOT)}: {m.group(0)}" for path in sorted(ROOT.rglob("*.py"))
             if path.relative_to(ROOT).parts[0] != "core" for m in reach.finditer(path.read_text())]
    assert not found, found
