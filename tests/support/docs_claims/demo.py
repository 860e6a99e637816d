"""docs/demo.md's claims: the Space's limits and defaults, uedin-nmt's numbers as the tabs show them.

Others edit docs/demo.md: wrong numbers there are reported (Claim.reported), not fixed here."""

from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path
from typing import Any, List

from docs_numbers import REPO, Claim

from .common import CAT, REFERENCE, Code, compare_of, constant, default_of, signature_of_test


CLAIMS: List[Claim] = [
    Claim("docs/demo.md", "**Limits**, stated on the page:\n  {} characters per paste box (larger sets: upload), {} MB per file.",
          lambda code: [constant("space/inputs.py", "MAX_PASTED_CHARS"), constant("space/inputs.py", "MAX_FILE_MB")]),
    Claim("docs/demo.md", "Max order is a whole number {}–{}", lambda code: [1, constant("space/inputs.py", "MAX_ORDER_LIMIT")]),
    Claim("docs/demo.md", "(uedin-nmt on WMT17: {} → {})",
          lambda code: [code.system("uedin-nmt.4722.de")["bleu"], code.system("uedin-nmt.4722.de", smooth="method5")["bleu"]]),
    Claim("docs/demo.md", "(`BLEU = {*}`,\n  as `str(sacrebleu.corpus_bleu(...))`",
          lambda code: [re.sub(r" \(μ = [^)]*\)", "", uedin_confidence(code).split(" = ", 1)[1])]),
    Claim("docs/demo.md", "and the seed, which shows {} (sacreBLEU's", lambda code: [default_of("bootstrap_seed")]),
    Claim("docs/demo.md", "width of their 95% interval (`μ = {} ± {}`, the interval's ends in its tooltip), the\n  summary line is "
          "sacreBLEU's (`BLEU = {} (μ = {} ± {}) {}/…`), and the signature\n  carries sacreBLEU's `{*}` after `nrefs`",
          lambda code: [*(c := confidence_numbers(code))[1:3], *c[:4], c[4]]),
    Claim("docs/demo.md", "The\n  table is paged ({} rows)", lambda code: [constant("space/scoring.py", "PAGE_ROWS")]),
    Claim("docs/demo.md", '"the cat the cat on the mat" scores {}.',
          lambda code: [code.compute(["the cat the cat on the mat"], [CAT], smooth="exp", effective_order=True)["bleu"]]),
    Claim("docs/demo.md", "segment {} of uedin-nmt reads {} in both.", lambda code: [1245, segment_1245(code, smooth="exp", effective_order=True)]),
    Claim("docs/demo.md", "({} for segment {}:", lambda code: [segment_1245(code), 1245]),
    Claim("docs/demo.md", "the first {} tokens of each side and the first {} rows of each\n  table are shown",
          lambda code: [constant("space/render.py", "MAX_TOKENS_SHOWN"), constant("space/render.py", "MAX_NGRAM_ROWS_SHOWN")]),
    Claim("docs/demo.md", "and past {}\n  tokens the tables are not counted", lambda code: [constant("space/explain.py", "MAX_TOKENS_COUNTED")]),
    Claim("docs/demo.md", "The resamples box shows the number the test uses: {} for the\n  bootstrap and {} trials for approximate randomization",
          lambda code: [compare_of(code, method="bootstrap")["samples"], compare_of(code, method="ar")["samples"]]),
    Claim("docs/demo.md", "and the seed box {}, as on the Score tab", lambda code: [compare_of(code)["seed"]]),
    Claim("docs/demo.md", "and the signature (`…{*}`). A test on fewer than {}\n  segments comes with a warning (on {} segment every resample "
          "is that segment, and p = {} is",
          lambda code: [signature_of_test(code, method="bootstrap"), constant("space/compare_view.py", "FEW_SEGMENTS"), 1,
                        compare_of(code, [["a b c d"], ["x y z w"]], ["a b c d"])["systems"][1]["p_value"]]),
    Claim("docs/demo.md", "(WMT17 KIT {} and LIUM {} are more", lambda code: [100 * code.system("KIT.4950.de", smooth="exp")["bleu"],
                                                                          100 * code.system("LIUM-NMT.4900.de", smooth="exp")["bleu"]]),
    Claim("docs/demo.md", "the {} segments\n  where their sentence BLEU", lambda code: [constant("space/compare_view.py", "DIFFERENCE_ROWS")]),
    Claim("docs/demo.md", "the `top` most similar pairs (searched for up to {} texts, else None)",
          lambda code: [constant("bleukit/diversity/pairwise.py", "PAIR_SEARCH_LIMIT")]),
    Claim("docs/demo.md", "within budgets of {} MB of\nmemory and {} GB of disk",
          lambda code: [constant("space/store.py", "MAX_MEMORY_BYTES") / 2**20, constant("space/store.py", "MAX_DISK_BYTES") / 2**30]),
    Claim("docs/demo.md", "Gradio keeps a record per session, at most {}\n  (`state_session_capacity`",
          lambda code: [constant("space/session_memory.py", "SESSION_CAPACITY")]),
    Claim("docs/demo.md", "the store stops at {} MB) and Gradio's\nown per-session records (the page's last outputs; at most {} sessions",
          lambda code: [constant("space/store.py", "MAX_MEMORY_BYTES") / 2**20, constant("space/session_memory.py", "SESSION_CAPACITY")]),
    Claim("docs/demo.md", "their line numbers, both directions' BLEU and the texts (for sets of up to {} texts)",
          lambda code: [constant("bleukit/diversity/pairwise.py", "PAIR_SEARCH_LIMIT")]),
    Claim("docs/demo.md", "e.g.\n`bootstrap_samples {} is more than this Space's API allows ({}); pass at most {}, or use",
          lambda code: [constant("space/inputs.py", "MAX_BOOTSTRAP_SAMPLES") + 1, *[constant("space/inputs.py", "MAX_BOOTSTRAP_SAMPLES")] * 2]),
    Claim("docs/demo.md", "and the {} most similar pairs with", lambda code: [constant("space/diversity_view.py", "PAIRS_SHOWN")]),
    Claim("docs/demo.md", "box has the same {}-character guard", lambda code: [constant("space/inputs.py", "MAX_PASTED_CHARS")]),
    Claim("docs/demo.md", "(`state_session_capacity`; its default is {})",
          lambda code: [parameter_default(gradio_file("blocks.py"), "launch", "state_session_capacity")]),
    Claim("docs/demo.md", "The API's endpoints take\n  {} calls at once and the page's events {} (`PAGE_CONCURRENCY` in `app.py`)",
          lambda code: [keyword_of_call("space/api.py", "add_api_endpoints", "api", "concurrency_limit"),
                        constant("app.py", "PAGE_CONCURRENCY")]),
    Claim("docs/demo.md", "(a pandas groupby over\n  the last {} events) after every event",
          lambda code: [environment_default(gradio_file("queueing.py"), "GRADIO_ANALYTICS_MAX_EVENTS")]),
    Claim("docs/demo.md", "`app.py` sets it to every {} events over\n  the last {} (`GRADIO_ANALYTICS_CACHE_FREQUENCY`, `GRADIO_ANALYTICS_MAX_EVENTS`)",
          lambda code: [environment_default(REPO / "app.py", "GRADIO_ANALYTICS_CACHE_FREQUENCY"),
                        environment_default(REPO / "app.py", "GRADIO_ANALYTICS_MAX_EVENTS")]),
    Claim("docs/demo.md", "`python bench/app_sessions.py` measures the server's resident memory over {} sessions and the files\n"
          "they leave, `python bench/app_load.py` the API under {} concurrent clients",
          lambda code: [option_default("bench/app_sessions.py", "--sessions"), option_default("bench/app_load.py", "--clients")]),
    Claim("docs/demo.md", "small memory benchmark that fails if RSS grows past {} MB or a file is left",
          lambda code: [option_passed("tests/space/test_app_memory.py", "test_the_memory_benchmark_bounded", "--check-growth-mb")]),
    Claim("docs/demo.md", "1.8 MB on the same machine,\nup to the {} sessions Gradio keeps",
          lambda code: [constant("space/session_memory.py", "SESSION_CAPACITY")]),
    Claim("docs/demo.md", "On WMT17 uedin-nmt ({}\nsegments)", lambda code: [len(code.lines("uedin-nmt.4722.de"))]),
]


def uedin_confidence(code: Code) -> str:
    """`bleu newstest2017-ende.ref.de -i uedin-nmt.4722.de -f text -w 2 --confidence`: sacreBLEU's line."""
    return code.cli(REFERENCE, "-i", "uedin-nmt.4722.de", "-f", "text", "-w", "2", "--confidence").strip()


def confidence_numbers(code: Code) -> list:
    """BLEU, μ, ± and the unigram precision of uedin-nmt's confidence line, and its bs:...|seed:... fields."""
    line = uedin_confidence(code)
    found = re.search(r" = ([\d.]+) \(μ = ([\d.]+) ± ([\d.]+)\) ([\d.]+)/", line)
    return [*found.groups(), re.search(r"(bs:\d+\|seed:\d+)", line).group(1)]


def segment_1245(code: Code, **options) -> float:
    """uedin-nmt's segment 1245 (counted from 1) alone."""
    return code.compute([code.lines("uedin-nmt.4722.de")[1244]], [code.lines(REFERENCE)[1244]], **options)["bleu"]


# Values the page's words take from the code where they are not module-level constants: read from the
# source (nothing imported), as `constant` reads a constant.

def _tree(path: Any) -> ast.Module:
    file = path if isinstance(path, Path) else REPO / path
    return ast.parse(file.read_text(encoding="utf-8"))


def _function(path: Any, name: str) -> ast.AST:
    found = [node for node in ast.walk(_tree(path)) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name]
    if len(found) != 1:
        raise LookupError(f"{path}: no single function {name} ({len(found)})")
    return found[0]


def gradio_file(name: str) -> Path:
    """A module of the installed Gradio (found, not imported)."""
    return Path(importlib.util.find_spec("gradio").submodule_search_locations[0]) / name


def parameter_default(path: Any, function: str, name: str) -> Any:
    """The default of a parameter of `function` (a keyword-or-positional or keyword-only one)."""
    args = _function(path, function).args
    pairs = list(zip(args.args[len(args.args) - len(args.defaults):], args.defaults)) + list(zip(args.kwonlyargs, args.kw_defaults))
    return next(ast.literal_eval(default) for arg, default in pairs if arg.arg == name)


def keyword_of_call(path: str, function: str, callee: str, keyword: str) -> Any:
    """The value `function` passes as `keyword` to its calls of `callee` (`gr.api(..., concurrency_limit=4)`), one for all."""
    values = {ast.literal_eval(kw.value) for node in ast.walk(_function(path, function)) if isinstance(node, ast.Call)
              and getattr(node.func, "attr", getattr(node.func, "id", None)) == callee for kw in node.keywords if kw.arg == keyword}
    if len(values) != 1:
        raise LookupError(f"{path}: {function} passes {keyword}={values} to {callee}")
    return values.pop()


def environment_default(path: Any, name: str) -> int:
    """The value a module gives an environment variable when it is not set: `os.environ.setdefault(name, "100")`
    or `os.getenv(name, "10000")`, one for all."""
    values = {int(ast.literal_eval(node.args[1])) for node in ast.walk(_tree(path)) if isinstance(node, ast.Call)
              and getattr(node.func, "attr", None) in ("setdefault", "getenv", "get") and len(node.args) == 2
              and isinstance(node.args[0], ast.Constant) and node.args[0].value == name}
    if len(values) != 1:
        raise LookupError(f"{path}: {name} defaults to {values}")
    return values.pop()


def option_default(path: str, flag: str) -> Any:
    """The default of a script's command-line option (`parser.add_argument("--sessions", type=int, default=200)`)."""
    values = [ast.literal_eval(kw.value) for node in ast.walk(_tree(path)) if isinstance(node, ast.Call)
              and getattr(node.func, "attr", None) == "add_argument" and node.args and isinstance(node.args[0], ast.Constant)
              and node.args[0].value == flag for kw in node.keywords if kw.arg == "default"]
    if len(values) != 1:
        raise LookupError(f"{path}: {flag} has defaults {values}")
    return values[0]


def option_passed(path: str, function: str, flag: str) -> float:
    """The value `function` passes after `flag` in an argument list (`["--check-growth-mb", "150"]`)."""
    values = {float(ast.literal_eval(items[i + 1])) for node in ast.walk(_function(path, function)) if isinstance(node, (ast.List, ast.Tuple))
              for items in [node.elts] for i in range(len(items) - 1)
              if isinstance(items[i], ast.Constant) and items[i].value == flag}
    if len(values) != 1:
        raise LookupError(f"{path}: {function} passes {flag} {values}")
    value = values.pop()
    return int(value) if value.is_integer() else value
