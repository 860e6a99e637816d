"""pyproject.toml: `pip install .` (or from a git URL) installs the one package, the two evaluate scripts,
the `bleu` command and the extras, and the installed files work with the clone nowhere on the path.

How the install is tested, and why so: the wheel is built from a copy of the tree with this
environment's setuptools (`--no-build-isolation`: nothing is downloaded) and installed with `--no-deps`
into a fresh virtual environment created without pip (`pip --python` installs into it). The fresh
environment reaches the dependencies (numpy, evaluate, datasets, ...) through a .pth file naming this
environment's site-packages, instead of downloading them again: that would take minutes and the
network, and would test pip rather than this package. What it proves: the wheel holds the package
`bleukit`, the two scripts and nothing else at the top level, its metadata declares the dependencies and
extras, and from a directory outside the clone the package imports, `bleukit.load()` runs the installed
bleu_metric.py, a tokenizer object from the package signs its own name in the loaded metric, and the
`bleu` command scores files and the bundled example; each module's `__file__` is checked to be the
installed one. About 15 seconds in all.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from importlib.metadata import packages_distributions
from pathlib import Path

import pytest

from bleukit.core import compute_bleu
from conftest import REPO
from requirements_and_imports import requirement_names, third_party_imports

PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
SCRIPTS = ["bleu_comparison.py", "bleu_metric.py"]  # the evaluate scripts: the only top-level modules
PACKAGE = "bleukit"
NOT_INSTALLED = {"app.py", "setup.py"}  # the Space's entry point (run from the clone) and the build script
# Installed by the user before the extras that use it (an unpinned torch may be a CUDA build of gigabytes).
INSTALL_IT_YOURSELF = {"torch"}
SKIP_DIRS = {".git", ".venv", "node_modules", "artifacts", "__pycache__", "build", "dist", ".pytest_cache"}


def copy_tree(target: Path) -> Path:
    shutil.copytree(REPO, target, ignore=lambda folder, names: [n for n in names if n in SKIP_DIRS
                                                                   or n.endswith(".egg-info")])
    return target


def build_wheel(source: str, out: Path) -> Path:
    subprocess.run([sys.executable, "-m", "pip", "wheel", source, "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(out)], check=True, capture_output=True, text=True, timeout=300)
    (wheel,) = out.glob("*.whl")
    return wheel


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("build")
    return build_wheel(str(copy_tree(folder / "tree")), folder / "dist")


def top_level(names) -> list:
    """The wheel's top-level entries: files, and folders other than its .dist-info."""
    return sorted({name.split("/")[0] for name in names} - {name.split("/")[0] for name in names if ".dist-info/" in name})


def test_the_wheel_holds_one_package_and_the_two_scripts(wheel):
    """No module of ours lands at the top of site-packages under a name another project may use: the
    code is one package, and beside it only the two scripts `evaluate.load` needs. Every module of
    the package's tree is in the wheel, and the bundled example with it."""
    stray = sorted(path.name for path in REPO.glob("*.py") if path.name not in NOT_INSTALLED and path.name not in SCRIPTS)
    assert stray == [], f"top-level modules besides the evaluate scripts: {stray}; put them in {PACKAGE}/"
    names = zipfile.ZipFile(wheel).namelist()
    assert top_level(names) == sorted([*SCRIPTS, PACKAGE])
    tree = sorted(str(path.relative_to(REPO)) for path in (REPO / PACKAGE).rglob("*.py") if "__pycache__" not in path.parts)
    assert sorted(name for name in names if name.endswith(".py") and "/" in name) == tree
    assert {f"{PACKAGE}/cli/example/{name}" for name in ("hypotheses.txt", "references.1.txt", "references.2.txt")} <= set(names)


def test_the_wheel_declares_the_runtime_the_extras_and_the_command(wheel):
    with zipfile.ZipFile(wheel) as archive:
        info = next(name for name in archive.namelist() if name.endswith(".dist-info/METADATA"))
        metadata = archive.read(info).decode()
        entry_points = archive.read(info.replace("METADATA", "entry_points.txt")).decode()
    required = {line.split(":", 1)[1].strip() for line in metadata.splitlines()
                if line.startswith("Requires-Dist:") and "extra ==" not in line}
    assert {r.split("<")[0].split(">")[0].split("=")[0].lower() for r in required} == requirement_names("requirements.txt")
    assert requirement_names("requirements.txt") == {"evaluate", "datasets", "numpy", "pandas", "pyarrow", "regex"}
    extras = {line.split(":", 1)[1].strip() for line in metadata.splitlines() if line.startswith("Provides-Extra:")}
    assert extras == set(PYPROJECT["project"]["optional-dependencies"]) >= {"space", "trainer", "rl", "ja", "ko", "spm",
                                                                          "spark", "ray", "all"}
    assert "bleu = bleukit.cli.main:run_as_command" in entry_points  # main(), and quiet when piped into head
    from bleukit import __version__

    assert f"Version: {__version__}" in metadata


def distribution(module: str) -> str:
    """The distribution that provides an import name (the name itself when it is not installed here)."""
    return (packages_distributions().get(module) or [module])[0].lower().replace("_", "-")


def test_the_extras_are_the_hints_ranges():
    """One source for each optional package's range: bleukit/extras.py, which every install hint is
    written from; pyproject.toml's extras and the test requirements repeat it."""
    from bleukit.extras import EXTRAS

    declared = PYPROJECT["project"]["optional-dependencies"]
    tests = (REPO / "requirements-test.txt").read_text(encoding="utf-8").splitlines()
    for extra, requirements in EXTRAS.items():
        assert tuple(declared[extra]) == requirements, extra
        assert set(requirements) <= set(tests), extra


def test_every_optional_import_is_a_dependency_or_in_an_extra():
    """A module that imports a package (a tokenizer's MeCab, Spark, Ray, ...) must declare it: in
    pyproject.toml's dependencies, or in one of its extras."""
    base = requirement_names("requirements.txt")
    extras = {requirement.split("[")[0].split(">")[0].split("<")[0].split("=")[0].strip().lower()
              for group in PYPROJECT["project"]["optional-dependencies"].values() for requirement in group}
    declared = {name.replace("_", "-") for name in base | extras} | INSTALL_IT_YOURSELF
    modules = [*SCRIPTS, *(str(path.relative_to(REPO)) for path in (REPO / PACKAGE).rglob("*.py"))]
    for module in modules:
        undeclared = {name for name in third_party_imports(module) if distribution(name) not in declared}
        assert undeclared == set(), f"{module} imports {sorted(undeclared)}: add them to pyproject.toml's extras"
    assert set(PYPROJECT["project"]["optional-dependencies"]["all"][0].split("[")[1].rstrip("]").split(",")) == (
        set(PYPROJECT["project"]["optional-dependencies"]) - {"all"})


def run(venv: Path, *command: str, cwd: Path) -> str:
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "PYTHONHOME")}
    completed = subprocess.run([str(venv / "bin" / command[0]), *command[1:]], cwd=cwd, env=env,
                               capture_output=True, text=True, timeout=300)
    assert completed.returncode == 0, completed.stderr
    return completed.stdout


def test_the_installed_files_work_in_a_fresh_virtual_environment(wheel, tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "--no-deps",
                    "--no-index", "-q", str(wheel)], check=True, capture_output=True, timeout=300)
    site = Path(subprocess.run([str(venv / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    (site / "dependencies_from_the_test_environment.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    hypotheses, references = REPO / "bleukit" / "cli" / "example" / "hypotheses.txt", REPO / "bleukit" / "cli" / "example" / "references.1.txt"
    expected = compute_bleu(hypotheses.read_text(encoding="utf-8").splitlines(),
                            references.read_text(encoding="utf-8").splitlines())

    # The package, from the installed files; the metric by its one documented call.
    script = (
        "import importlib.util, json, bleukit, bleukit.significance.compare, bleukit.tensor.scores, evaluate\n"
        "from bleukit.tokenizers.regex import TokenizerIntl\n"
        "files = [bleukit.__file__, bleukit.significance.compare.__file__, bleukit.tensor.scores.__file__]\n"
        "installed = importlib.util.find_spec('bleu_metric').origin\n"
        f"hyp = open({str(hypotheses)!r}, encoding='utf-8').read().splitlines()\n"
        f"ref = open({str(references)!r}, encoding='utf-8').read().splitlines()\n"
        "metric = bleukit.load()\n"
        "result = metric.compute(predictions=hyp, references=ref)\n"
        "intl = metric.compute(predictions=hyp, references=ref, tokenizer=TokenizerIntl())['signature']\n"
        "direct = bleukit.compute(hyp, ref)\n"
        "print(json.dumps({'files': files, 'installed': installed, 'result': result, 'direct': direct, 'intl': intl}))\n"
    )
    answer = json.loads(run(venv, "python", "-c", script, cwd=outside).strip().splitlines()[-1])
    assert all(Path(path).is_relative_to(site) for path in answer["files"] + [answer["installed"]]), answer
    assert Path(answer["installed"]).parent == site
    assert answer["result"] == answer["direct"] == expected
    assert "|tok:intl|" in answer["intl"]
    # The console command.
    printed = json.loads(run(venv, "bleu", str(hypotheses), "-r", str(references), "--json", cwd=outside))
    assert printed == expected
    # With no file: the bundled example (it ships inside the package), from a terminal and from a script
    # alike; never a traceback, never waiting on stdin. With text piped in and no references, a usage error.
    import pty

    main_end, terminal = pty.openpty()
    try:
        for stdin in (terminal, subprocess.DEVNULL):
            completed = subprocess.run([str(venv / "bin" / "bleu")], stdin=stdin, cwd=outside, capture_output=True,
                                       text=True, timeout=120)
            assert completed.returncode == 0 and "Traceback" not in completed.stderr, completed.stderr
            assert "scoring the bundled example" in completed.stdout and "BLEU             0.5870" in completed.stdout
            assert "Score your own with: bleu HYPOTHESES -r REFERENCES" in completed.stdout
    finally:
        os.close(terminal)
        os.close(main_end)
    piped_text = subprocess.run([str(venv / "bin" / "bleu")], input="a hypothesis\n", cwd=outside, capture_output=True,
                                text=True, timeout=120)
    assert piped_text.returncode == 2 and "bleu: error: no files given (text on stdin" in piped_text.stderr
    assert "bleukit/cli/main.py" not in piped_text.stderr + run(venv, "bleu", "--help", cwd=outside)
    # Piped into head: a quiet stop (the default SIGPIPE action), as `python -m bleukit` does.
    lines = "\n".join(f"segment {k} of a long file" for k in range(20000)) + "\n"
    (outside / "long.txt").write_text(lines, encoding="utf-8")
    (outside / "long.ref.txt").write_text(lines, encoding="utf-8")
    piped = subprocess.run(f"{venv / 'bin' / 'bleu'} long.ref.txt -i long.txt -sl | head -1", shell=True, cwd=outside,
                           capture_output=True, text=True, timeout=300)
    assert piped.stdout.startswith("BLEU|") and "Traceback" not in piped.stderr and "BrokenPipe" not in piped.stderr


def test_it_installs_from_a_git_url(tmp_path):
    """`pip install "git+URL"` builds from a clone of the repository: the same wheel."""
    tree = copy_tree(tmp_path / "repo")
    for command in (["init", "-q"], ["add", "-A"], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "t"]):
        subprocess.run(["git", *command], cwd=tree, check=True, capture_output=True, timeout=120)
    wheel = build_wheel(f"git+file://{tree}", tmp_path / "dist")
    assert top_level(zipfile.ZipFile(wheel).namelist()) == sorted([*SCRIPTS, PACKAGE])
