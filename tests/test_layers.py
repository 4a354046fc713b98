"""The layers of docs/layout.md as a rule the code keeps: every import of the package (at the
top of a module or inside a function) points to its own layer or below, and no chain of
imports comes back to where it started. Read from the source (ast), nothing imported."""

import ast

from tests.helpers import ROOT

# Top to bottom. A module belongs to the layer whose longest prefix names it; "attnviz" (the
# package's face, its __init__) names only itself, so a new module must be given a layer here.
LAYERS = (
    ("web", ("attnviz.web",)),  # the App's HTTP side: beside ui/, which never imports it
    ("ui", ("attnviz.ui",)),
    ("serve", ("attnviz.serve",)),
    (
        "links, classroom, charts, the package's face",
        ("attnviz.links", "attnviz.classroom", "attnviz.charts", "attnviz"),
    ),
    (
        "the domain",
        (
            "attnviz.lessons",
            "attnviz.exercises",
            "attnviz.model",
            "attnviz.tiny_gpt",
            "attnviz.causal_lm",
            "attnviz.files",
        ),
    ),
    (
        "the math",
        tuple(
            f"attnviz.{name}"
            for name in (
                "settings",
                "core",
                "softmax",
                "masking",
                "multihead",
                "tiled",
                "results",
                "checks",
                "limits",
                "inputs",
                "text",
                "version",
            )
        ),
    ),
)


def modules():
    """{module name: path} of every module of the package (a package by its __init__)."""
    found = {}
    for path in sorted((ROOT / "attnviz").rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imports(found):
    """{module: set of the package's modules it imports}, ``from a import b`` naming the module
    ``a.b`` when there is one, else ``a``."""

    def known(name):
        while name and name not in found:
            name = name.rpartition(".")[0]
        return name

    graph = {}
    for name, path in found.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        targets = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:  # relative: from the package, up level - 1
                    up = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*up, base] if base else up)
                for alias in node.names:
                    module = f"{base}.{alias.name}"
                    targets.add(module if module in found else base)
        graph[name] = {known(t) for t in targets if t.startswith("attnviz")} - {"", name}
    return graph


def layer_of(module):
    """The index in LAYERS of ``module``'s layer (the longest matching prefix decides), or
    None."""
    matches = [
        (len(prefix), index)
        for index, (_, prefixes) in enumerate(LAYERS)
        for prefix in prefixes
        if module == prefix or (prefix != "attnviz" and module.startswith(prefix + "."))
    ]
    return max(matches)[1] if matches else None


def cycles(graph):
    """Every strongly connected set of modules larger than one (Tarjan's algorithm)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.add(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_every_module_has_a_layer():
    assert [name for name in modules() if layer_of(name) is None] == []


def test_no_import_cycle():
    assert cycles(imports(modules())) == []


def folders(graph):
    """The import graph between the package's folders (a root module is a folder of its own):
    ``attnviz.classroom.questions`` -> ``attnviz.links.shared`` is classroom -> links."""

    def folder(module):
        return ".".join(module.split(".")[:2])

    joined = {}
    for a, targets in graph.items():
        joined.setdefault(folder(a), set()).update(folder(b) for b in targets)
    return {a: targets - {a} for a, targets in joined.items()}


def test_no_import_cycle_between_folders():
    assert cycles(folders(imports(modules()))) == []


def test_the_folder_rule_sees_a_cycle_of_parts():
    graph = {
        "attnviz.classroom.questions": {"attnviz.links.shared"},
        "attnviz.links.classroom": {"attnviz.classroom.room"},
    }
    assert cycles(folders(graph)) == [["attnviz.classroom", "attnviz.links"]]


def test_no_module_imports_a_layer_above_its_own():
    graph = imports(modules())
    upward = [
        f"{a} ({LAYERS[layer_of(a)][0]}) imports {b} ({LAYERS[layer_of(b)][0]})"
        for a, targets in sorted(graph.items())
        for b in sorted(targets)
        if layer_of(b) < layer_of(a)
    ]
    assert upward == []


def test_the_rule_sees_a_cycle_and_an_upward_import():
    graph = {
        "attnviz.settings": {"attnviz.links.shared"},
        "attnviz.links.shared": {"attnviz.settings"},
    }
    assert cycles(graph) == [["attnviz.links.shared", "attnviz.settings"]]
    assert layer_of("attnviz.links.shared") < layer_of("attnviz.settings")  # upward
    assert layer_of("attnviz.serve.store") < layer_of("attnviz.charts.style")
    assert layer_of("attnviz.ui.pages.real_model") < layer_of("attnviz.serve.real_model")
    assert layer_of("attnviz.new_module") is None


def test_streamlit_is_imported_only_under_ui():
    found = modules()
    streamlit = [
        name
        for name, path in found.items()
        if not name.startswith("attnviz.ui")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, (ast.Import, ast.ImportFrom))
        and any(
            (getattr(node, "module", None) or alias.name).split(".")[0] == "streamlit"
            for alias in node.names
        )
    ]
    assert streamlit == []
