"""What the project declares and what its modules import: the package names a requirements file
installs (following `-r` and `-e .`), and the third-party modules a file imports (the standard library
and the repository's own modules left out). Used by the import and requirements tests and by the
packaging tests."""

from __future__ import annotations

import ast
import re
import sys

from conftest import REPO


def pyproject() -> dict:
    import tomllib

    return tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))


def names_of(requirements) -> set:
    return {re.match(r"[A-Za-z0-9_.-]+", line).group(0).lower() for line in requirements}


def requirement_names(path) -> set:
    """The packages a requirements file installs: `-e .` (this project) stands for its dependencies."""
    names = set()
    for line in (REPO / path).read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line.startswith("-r "):
            names |= requirement_names(line[3:].strip())
        elif line == "-e .":
            names |= names_of(pyproject()["project"]["dependencies"])
        elif line:
            names.add(re.match(r"[A-Za-z0-9_.-]+", line).group(0).lower())
    return names


def third_party_imports(path) -> set:
    tree = ast.parse((REPO / path).read_text(encoding="utf-8"))
    modules = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules.add(node.module.split(".")[0])
    local = {path.stem for path in REPO.glob("*.py")} | {path.parent.name for path in REPO.glob("*/__init__.py")}
    return {module for module in modules if module not in local and module not in sys.stdlib_module_names}
