"""The two evaluate scripts install as modules beside the package (the rest is in pyproject.toml):
`bleukit.load()` finds `bleu_metric.py` there, and `evaluate.load` needs a script, not a package."""

from setuptools import setup

setup(py_modules=["bleu_metric", "bleu_comparison"])
