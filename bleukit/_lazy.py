"""Public names read from their modules on first use (PEP 562), so `import bleukit` (and the CLI's
start-up) loads only what a caller touches."""

from __future__ import annotations

import importlib
from typing import Any, Callable, Dict, List


def lazy_exports(package: str, exports: Dict[str, str]) -> tuple[Callable[[str], Any], Callable[[], List[str]]]:
    """`__getattr__` and `__dir__` for a package whose public `name` lives at `exports[name]`
    ("module:attribute", the module relative to `package`)."""

    def __getattr__(name: str) -> Any:
        target = exports.get(name)
        if target is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        module, attribute = target.split(":")
        value = getattr(importlib.import_module(f"{package}.{module}"), attribute)
        globals_of_package = importlib.import_module(package).__dict__
        globals_of_package[name] = value  # later lookups skip this function
        return value

    def __dir__() -> List[str]:
        return sorted(set(importlib.import_module(package).__dict__) | set(exports))

    return __getattr__, __dir__
