"""The installed modules: every top-level bleu_*.py beside this file (the rest is in pyproject.toml).

`evaluate.load` copies a metric script's sibling modules, so the modules stay flat (no package); a
module added by anyone is installed without editing a list.
"""

from pathlib import Path

from setuptools import setup

setup(py_modules=sorted(path.stem for path in Path(__file__).resolve().parent.glob("bleu_*.py")))
