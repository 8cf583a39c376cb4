"""The package's shape, checked: the import rule, type hints, function length, tests per module.

These walk the source with :mod:`ast` (nothing is imported), so they are fast and
say exactly which file breaks a rule.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "semvar"
TESTS = ROOT / "tests"

#: a public function may be longer than this (body, docstring excluded) only with a
#: comment ``# long: <reason>`` on its first body line or in its signature block
MAX_BODY_LINES = 80


def _modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def _dotted(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _package_of(path: Path) -> str:
    """The package a module lives in (for ``__init__.py``, the package itself)."""
    dotted = _dotted(path)
    return dotted if path.name == "__init__.py" else dotted.rsplit(".", 1)[0]


def _target(node: ast.ImportFrom, path: Path) -> str:
    if not node.level:
        return node.module or ""
    base = _package_of(path).split(".")
    if node.level > 1:
        base = base[: -(node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _is_public_module(path: Path) -> bool:
    return not any(_private(part) for part in path.relative_to(ROOT).with_suffix("").parts if part != "__init__")


def private_imports() -> list[str]:
    """``file:line: module.name`` for every private name imported from outside its subpackage."""
    found = []
    for path in _modules():
        here = _package_of(path)
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ImportFrom):
                continue
            target = _target(node, path)
            if not target.startswith("semvar"):
                continue
            # a subpackage's own modules may share private names; the top level package may not
            inside = here != "semvar" and (target == here or target.startswith(here + "."))
            for alias in node.names:
                if _private(alias.name) and not inside:
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {target}.{alias.name}")
            if not inside and _private_submodule(target):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: from {target} (a private module of a subpackage)")
        found += _private_attributes(path, here)
    return found


def _private_submodule(target: str) -> bool:
    """``semvar.sub._mod``: a private module inside a subpackage (top-level ``semvar._x`` helpers are shared)."""
    parts = target.split(".")
    return len(parts) > 2 and any(_private(part) for part in parts[2:])


def _private_attributes(path: Path, here: str) -> list[str]:
    """``alias._name`` where ``alias`` is a semvar module imported from outside the importer's subpackage."""
    tree = ast.parse(path.read_text())
    aliases = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("semvar") and a.asname:
                    aliases[a.asname] = a.name
        elif isinstance(node, ast.ImportFrom):
            target = _target(node, path)
            if target.startswith("semvar"):
                for a in node.names:
                    aliases[a.asname or a.name] = f"{target}.{a.name}"
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and _private(node.attr):
            module = aliases.get(node.value.id)
            if module is None or not (PACKAGE.parent / (module.replace(".", "/") + ".py")).exists() and not (
                PACKAGE.parent / module.replace(".", "/") / "__init__.py"
            ).exists():
                continue  # not a module of semvar (a class, a function, another library)
            inside = here != "semvar" and (module == here or module.startswith(here + "."))
            if not inside and module != _dotted(path):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {module}.{node.attr} (through {node.value.id})")
    return found


def _public_functions(path: Path):
    """Public functions and methods of public classes in one module: (qualified name, node, is_method)."""
    tree = ast.parse(path.read_text())

    def walk(body, prefix: str, in_class: bool):
        for node in body:
            if isinstance(node, (ast.If, ast.Try)):
                blocks = [node.body, node.orelse] + [h.body for h in getattr(node, "handlers", [])]
                for block in blocks + [getattr(node, "finalbody", [])]:
                    yield from walk(block, prefix, in_class)
            elif isinstance(node, ast.ClassDef) and not _private(node.name):
                yield from walk(node.body, f"{prefix}{node.name}.", True)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if _private(node.name) or (node.name.startswith("__") and node.name not in ("__init__", "__call__")):
                    continue
                yield f"{prefix}{node.name}", node, in_class

    yield from walk(tree.body, "", False)


def missing_hints() -> list[str]:
    found = []
    for path in filter(_is_public_module, _modules()):
        for name, node, is_method in _public_functions(path):
            args = node.args
            every = args.posonlyargs + args.args + args.kwonlyargs
            every += [a for a in (args.vararg, args.kwarg) if a is not None]
            if is_method and every and every[0].arg in ("self", "cls") and not _is_static(node):
                every = every[1:]
            bare = [a.arg for a in every if a.annotation is None]
            no_return = node.returns is None and node.name != "__init__"
            if bare or no_return:
                what = ", ".join(bare) + (" -> ?" if no_return else "")
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {name}({what})")
    return found


def _is_static(node) -> bool:
    return any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in node.decorator_list)


def _body_lines(node) -> int:
    body = node.body
    if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant):
        body = body[1:]  # the docstring does not count
    if not body:
        return 0
    return body[-1].end_lineno - body[0].lineno + 1


def long_functions() -> list[str]:
    found = []
    for path in filter(_is_public_module, _modules()):
        lines = path.read_text().splitlines()
        for name, node, _ in _public_functions(path):
            n = _body_lines(node)
            if n <= MAX_BODY_LINES:
                continue
            head = "\n".join(lines[node.lineno - 1 : node.body[0].end_lineno + 2])
            if not re.search(r"# long: *\S{3,}", head):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {name} has {n} lines")
    return found


#: a numpydoc parameter line that spells its default ``default 3`` or ``default: 3``
_LOOSE_DEFAULT = re.compile(r"^\s+\*{0,2}[A-Za-z_][A-Za-z0-9_]* : .*, default(?: |: )\S")


def loose_defaults() -> list[str]:
    """Parameter lines whose default is not written ``default=value`` (numpydoc's spelling)."""
    found = []
    for path in _modules():
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if _LOOSE_DEFAULT.match(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    return found


def _contributing_exemptions() -> dict[str, str]:
    """Modules CONTRIBUTING.md lists as tested elsewhere: ``| `semvar/x.py` | reason |`` rows."""
    text = (ROOT / "CONTRIBUTING.md").read_text()
    section = text.split("### Modules without a test file of their own", 1)
    if len(section) < 2:
        return {}
    rows = re.findall(r"^\|\s*`(semvar/[^`]+\.py)`\s*\|\s*([^|]+?)\s*\|", section[1], flags=re.M)
    return dict(rows)


def untested_modules() -> list[str]:
    exempt = _contributing_exemptions()
    holding = [p for p in TESTS.rglob("test_*.py") if re.search(r"^(?:async )?def test_", p.read_text(), flags=re.M)]
    names = {p.name for p in holding}
    paths = {p.relative_to(TESTS).as_posix() for p in holding}
    found = []
    for path in _modules():
        rel = path.relative_to(ROOT).as_posix()
        if path.name == "__init__.py" or rel in exempt:
            continue
        sub = path.relative_to(PACKAGE).parent.as_posix()
        stem = path.stem.strip("_")
        mirrored = f"{sub}/test_{stem}.py" if sub != "." else f"test_{stem}.py"
        if mirrored not in paths and not (sub == "." and f"test_{stem}.py" in names):
            found.append(f"{rel}: no tests/{mirrored}")
    return found


@pytest.mark.parametrize(
    "rule, finder",
    [
        ("no module imports a private name from outside its own subpackage", private_imports),
        ("every public function and method has type hints on its arguments and return", missing_hints),
        (f"no public function is longer than {MAX_BODY_LINES} lines without a '# long:' reason", long_functions),
        ("every module has a test file that mirrors it (or a reason in CONTRIBUTING.md)", untested_modules),
        ("numpydoc defaults are written 'default=value'", loose_defaults),
    ],
    ids=["private-imports", "type-hints", "function-length", "tests-mirror-package", "numpydoc-defaults"],
)
def test_package_rule(rule, finder):
    broken = finder()
    assert not broken, f"{rule}; {len(broken)} break it:\n" + "\n".join(broken)


def test_the_walkers_see_a_breach(tmp_path, monkeypatch):
    """Each finder reports a module written to break its rule (the rules are not vacuous)."""
    fake = tmp_path / "semvar"
    (fake / "sub").mkdir(parents=True)
    (fake / "__init__.py").write_text("")
    (fake / "sub" / "__init__.py").write_text("")
    (fake / "sub" / "mod.py").write_text(
        "from semvar.other import _hidden\n\n"
        "def public(x):\n" + "".join(f"    y{i} = {i}\n" for i in range(MAX_BODY_LINES + 1)) + "    return x\n"
    )
    (fake / "other.py").write_text('def _hidden(k=3) -> None:\n    """Hide.\n\n    k : int, default 3\n    """\n')
    (fake / "sub" / "_inner.py").write_text("def shared() -> None:\n    pass\n")
    (fake / "third.py").write_text(
        "import semvar.other as o\nfrom semvar.sub._inner import shared\n\n"
        "try:\n    def hidden_in_try(y):\n        return o._hidden(y)\nexcept ImportError:\n    pass\n"
    )
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_third.py").write_text("# no test here\n")
    (tmp_path / "CONTRIBUTING.md").write_text("")
    for name, value in (("ROOT", tmp_path), ("PACKAGE", fake), ("TESTS", tmp_path / "tests")):
        monkeypatch.setitem(globals(), name, value)
    assert any("semvar.other._hidden" in line for line in private_imports())
    assert any("semvar.other._hidden (through o)" in line for line in private_imports())
    assert any("from semvar.sub._inner" in line for line in private_imports())
    assert any("hidden_in_try(y -> ?)" in line for line in missing_hints())
    assert any("semvar/third.py" in line for line in untested_modules())
    assert any("public(x -> ?)" in line for line in missing_hints())
    assert any("public has" in line for line in long_functions())
    assert any("semvar/sub/mod.py" in line for line in untested_modules())
    assert any("k : int, default 3" in line for line in loose_defaults())
