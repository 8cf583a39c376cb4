"""What each chapter needs besides ``semvar``: data folders, stored results, the embedding model.

Usage: python scripts/chapter_data.py [--source notebooks]

Reads the code cells of every chapter notebook (nothing is executed) and
follows each call into ``semvar`` through the package's source, function by
function, until it reaches

* a data loader of ``semvar.data`` (``LOADER_FOLDERS`` says which folder of
  the data directory each one reads);
* ``result_path("<file>")``: a result file the project stores in its ``data/``;
* the sentence-embedding model (``SentenceTransformer`` or ``get_model_path``).

Prints a markdown table, one row per chapter: the table of "How to use this
book" is this output (``tests/test_make_student.py`` compares the two).
"""

from __future__ import annotations

import argparse
import ast
import sys
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "semvar"



def _pinned_loader_folders() -> dict[str, tuple[str, ...]]:
    """``load_<subdir>`` -> ``(subdir,)`` for every origin table ``semvar.data.<NAME>_ORIGIN`` (files pinned at a
    commit): a new pinned loader is listed here by its table, with nothing to add by hand."""
    sys.path.insert(0, str(ROOT))
    import semvar.data as data

    return {f"load_{o['subdir']}": (o["subdir"],) for name, o in sorted(vars(data).items())
            if name.endswith("_ORIGIN") and isinstance(o, dict) and "subdir" in o}


# loader -> folders of the data directory it reads (SEMVAR_DATA_DIR or data_dir=): the loaders of other origins
# (the Hugging Face hub, release files), then every loader of files pinned at a commit, from its origin table
LOADER_FOLDERS: dict[str, tuple[str, ...]] = {
    "load_mmlu": ("mmlu",),
    "load_helm_mmlu": ("mmlu_redux",),
    "load_mmlu_redux": ("mmlu_redux",),
    "load_mmlu_pro_outputs": ("mmlu_pro",),
    "load_ye_logits": ("ye2024",),
    "load_ye_answers": ("ye2024",),
    "load_mmlu_responses": ("mmlu_responses.csv.gz",),
    **_pinned_loader_folders(),
}
_MODEL_CALLS = {"SentenceTransformer", "get_model_path"}


@dataclass
class Needs:
    """What one chapter (or one function) needs."""

    folders: set[str] = field(default_factory=set)
    results: set[str] = field(default_factory=set)
    model: bool = False

    def update(self, other: Needs) -> None:
        self.folders |= other.folders
        self.results |= other.results
        self.model = self.model or other.model


def _module_path(module: str) -> Path | None:
    parts = module.split(".")
    if parts[0] != "semvar":
        return None
    base = ROOT.joinpath(*parts)
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def _absolute(module: str, level: int, name: str | None, here: str, is_package: bool) -> str:
    if level == 0:
        return name or ""
    parts = here.split(".")
    if not is_package:
        parts = parts[:-1]
    parts = parts[: len(parts) - (level - 1)]
    return ".".join(parts + ([name] if name else []))


@dataclass
class _Module:
    name: str
    tree: ast.Module
    defs: dict[str, ast.AST]
    imports: dict[str, tuple[str, str | None]]  # local name -> (module, attribute or None for a module)
    star: list[str]
    constants: dict[str, str]
    is_package: bool = False


class _Resolver:
    def __init__(self):
        self._modules: dict[str, _Module | None] = {}
        self._done: dict[tuple[str, str], Needs] = {}

    def module(self, name: str) -> _Module | None:
        if name not in self._modules:
            path = _module_path(name)
            if path is None:
                self._modules[name] = None
            else:
                tree = ast.parse(path.read_text(encoding="utf-8"))
                self._modules[name] = _scan(name, tree, path.name == "__init__.py")
        return self._modules[name]

    def function(self, module: str, name: str, seen: set | None = None) -> Needs:
        """Needs of ``module.name`` (a function, class or re-exported name)."""
        key = (module, name)
        if key in self._done:
            return self._done[key]
        seen = set() if seen is None else seen
        if key in seen:
            return Needs()
        seen.add(key)
        needs = Needs()
        if name in LOADER_FOLDERS:
            needs.folders |= set(LOADER_FOLDERS[name])
        if name in _MODEL_CALLS:
            needs.model = True
        mod = self.module(module)
        if mod is not None:
            if name in mod.defs:
                needs.update(self.body(mod, mod.defs[name], seen))
            elif name in mod.imports:
                target, attr = mod.imports[name]
                if attr is not None:
                    needs.update(self.function(target, attr, seen))
            else:
                for star in mod.star:
                    sub = self.module(star)
                    if sub is not None and (name in sub.defs or name in sub.imports):
                        needs.update(self.function(star, name, seen))
                        break
        self._done[key] = needs
        return needs

    def body(self, mod: _Module, node: ast.AST, seen: set) -> Needs:
        local = [n for n in ast.walk(node) if isinstance(n, (ast.Import, ast.ImportFrom))]
        if local and node is not mod.tree:  # imports inside a function body count there
            inner = _scan(mod.name, ast.Module(body=local, type_ignores=[]), mod.is_package)
            mod = _Module(mod.name, mod.tree, mod.defs, {**mod.imports, **inner.imports}, mod.star + inner.star,
                          mod.constants, mod.is_package)
        needs = Needs()
        for call in (n for n in ast.walk(node) if isinstance(n, ast.Call)):
            func = call.func
            if isinstance(func, ast.Name):
                name = func.id
                if name == "result_path":
                    needs.results |= self.constant_args(mod, call)
                if name in _MODEL_CALLS:
                    needs.model = True
                if name in mod.defs:
                    needs.update(self.function(mod.name, name, seen))
                elif name in mod.imports:
                    target, attr = mod.imports[name]
                    if attr is not None:
                        needs.update(self.function(target, attr, seen))
                elif name in LOADER_FOLDERS:
                    needs.folders |= set(LOADER_FOLDERS[name])
            elif isinstance(func, ast.Attribute):
                if func.attr in _MODEL_CALLS:
                    needs.model = True
                if func.attr == "result_path":
                    needs.results |= self.constant_args(mod, call)
                if isinstance(func.value, ast.Name) and func.value.id in mod.imports:
                    target, attr = mod.imports[func.value.id]
                    target = target if attr is None else f"{target}.{attr}"
                    needs.update(self.function(target, func.attr, seen))
        return needs


    def constant(self, mod: _Module, name: str, depth: int = 0) -> str | None:
        """The string value of module-level constant ``name`` as seen from ``mod`` (imports followed)."""
        if name in mod.constants:
            return mod.constants[name]
        if name in mod.imports and depth < 10:
            target, attr = mod.imports[name]
            other = self.module(target)
            if attr is not None and other is not None:
                return self.constant(other, attr, depth + 1)
        return None

    def constant_args(self, mod: _Module, call: ast.Call) -> set[str]:
        """The file named by the first argument of a ``result_path`` call, when it is a constant."""
        if not call.args:
            return set()
        arg = call.args[0]
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            return {arg.value}
        if isinstance(arg, ast.Name):
            value = self.constant(mod, arg.id)
            return {value} if value is not None else {f"(the file named by {arg.id})"}
        return {"(a file named at run time)"}


def _scan(name: str, tree: ast.Module, is_package: bool) -> _Module:
    defs: dict[str, ast.AST] = {}
    imports: dict[str, tuple[str, str | None]] = {}
    star: list[str] = []
    constants: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defs[node.name] = node
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    constants[target.id] = node.value.value
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node.module or "", node.level, node.module, name, is_package)
            for alias in node.names:
                if alias.name == "*":
                    star.append(base)
                    continue
                # ``from pkg import submodule`` names a module when one exists
                sub = f"{base}.{alias.name}"
                if _module_path(sub) is not None:
                    imports[alias.asname or alias.name] = (sub, None)
                else:
                    imports[alias.asname or alias.name] = (base, alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                imports[alias.asname or alias.name.split(".")[0]] = (alias.name if alias.asname else alias.name.split(".")[0], None)
    return _Module(name, tree, defs, imports, star, constants, is_package)


def _code(nb) -> str:
    lines = []
    for cell in nb.cells:
        if cell.cell_type == "code":
            lines += [ln for ln in cell.source.split("\n") if not ln.lstrip().startswith(("%", "!"))]
    return "\n".join(lines)


def notebook_needs(nb, resolver: _Resolver | None = None) -> Needs:
    """What the code cells of one notebook need (see the module docstring)."""
    resolver = resolver or _Resolver()
    tree = ast.parse(_code(nb))
    mod = _scan("__chapter__", tree, False)
    mod.defs = {n.name: n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    return resolver.body(mod, tree, set())


def chapter_table(source: str | Path = ROOT / "notebooks") -> list[tuple[str, Needs]]:
    """``(notebook stem, needs)`` for every ``.ipynb`` of ``source``, in name order."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from _chapters import chapter_notebooks

    resolver = _Resolver()
    return [(p.stem, notebook_needs(nbformat.read(p, as_version=4), resolver)) for p in chapter_notebooks(source)]


def markdown_table(rows: list[tuple[str, Needs]]) -> str:
    """The rows as the markdown table of "How to use this book"."""
    out = ["| chapter | data folders (`SEMVAR_DATA_DIR`) | stored results (`data/`) | embedding model |",
           "|---|---|---|---|"]
    for stem, needs in rows:
        folders = ", ".join(f"`{f}`" for f in sorted(needs.folders)) or "—"
        results = ", ".join(f"`{r}`" for r in sorted(needs.results)) or "—"
        out.append(f"| {{doc}}`/notebooks/{stem}` | {folders} | {results} | {'yes' if needs.model else '—'} |")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", default=str(ROOT / "notebooks"))
    args = parser.parse_args(argv)
    print(markdown_table(chapter_table(args.source)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
