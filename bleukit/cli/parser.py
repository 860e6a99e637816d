"""The command line's options: one argparse parser for both grammars.

sacreBLEU's option names are aliases of this module's, so a sacreBLEU command reads as it is;
which grammar a command uses (and so its defaults) is decided later, in `bleukit.cli.request`.
Where sacreBLEU's short flag names something else here, sacreBLEU's meaning wins: `-t` is its
test set (the tokenizer is `-tok`), `-e` its encoding (effective order is `-eff`).
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Optional, Union

from bleukit.significance.compare import APPROXIMATE_RANDOMIZATION, BOOTSTRAP, DEFAULT_SAMPLES
from bleukit.resampling import DEFAULT_BOOTSTRAP_SEED
from bleukit.options import SMOOTH_NAMES
from bleukit.version import __version__
from bleukit.counting.parallel import AUTO as AUTO_WORKERS
from bleukit.counting.stats import REF_LENGTH_POLICIES
from bleukit.tokenizers.registry import AUTO, TOKENIZERS, looks_like_a_path

INSTALLED_COMMAND = "bleu"  # pyproject.toml's console script
MODULE_COMMAND = "python -m bleukit"


def command_name() -> str:
    """How the user ran it, for messages and the hints that say what to type: `bleu` (the installed
    command) or `python -m bleukit`."""
    return INSTALLED_COMMAND if os.path.basename(sys.argv[0] or "") == INSTALLED_COMMAND else MODULE_COMMAND


FORMATS = ("json", "text", "latex")
# sacreBLEU's options that work on its downloadable test sets: refused with one message (see
# `bleukit.cli.request.TEST_SET_MESSAGE`), since nothing is downloaded here.
TEST_SET_OPTIONS = {"test_set": "-t/--test-set", "download": "--download", "echo": "--echo", "list": "--list",
                    "citation": "--citation", "origlang": "-ol/--origlang", "subset": "--subset", "detail": "-d/--detail"}


def seed_value(text: str) -> Optional[int]:
    """A seed: an integer, or 'none' (any case) for fresh randomness, as SACREBLEU_SEED reads it."""
    if text.strip().lower() == "none":
        return None
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a seed; pass an integer, or none for fresh randomness") from None


def num_workers_argument(text: str) -> Union[int, str]:
    """--num-workers: 'auto' or an integer >= 1; else argparse's error."""
    if text.strip().lower() == AUTO_WORKERS:
        return AUTO_WORKERS
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of processes; pass an integer >= 1, or auto")
    return value


def tokenizer_argument(value: str) -> str:
    """A tokenizer name (sacreBLEU's, or auto) or a SentencePiece model file's path; else argparse's error."""
    if value in TOKENIZERS or value == AUTO or looks_like_a_path(value):
        return value
    choices = ", ".join(repr(name) for name in [*TOKENIZERS, AUTO])
    raise argparse.ArgumentTypeError(f"invalid choice: {value!r} (choose from {choices}, or a SentencePiece model's path)")


def build_parser() -> argparse.ArgumentParser:
    """One parser for both grammars: sacreBLEU's option names are aliases of this module's."""
    parser = argparse.ArgumentParser(
        prog=command_name(),
        allow_abbrev=False,  # `-tok` is the tokenizer option, never `-t ok`
        usage="%(prog)s [HYP ...] -r REF [REF ...] [options]\n"
        "       %(prog)s REF [REF ...] [-i HYP [HYP ...]] [options]   (sacreBLEU's grammar)\n"
        "       %(prog)s --self-bleu FILE [options]                   (diversity of one file's lines)\n"
        "       %(prog)s                                              (the bundled example)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Corpus BLEU (Papineni et al. 2002). With no arguments and nothing on stdin, scores the "
        "bundled example (the package's cli/example/ folder).\n\n"
        "  %(prog)s HYP [HYP ...] -r REF [REF ...]   files before -r are hypotheses (metric defaults, 0-1 scale)\n"
        "  %(prog)s REF [REF ...] -i HYP [HYP ...]   sacreBLEU's grammar: files before -i are references\n"
        "  cat HYP | %(prog)s REF [REF ...]          sacreBLEU's grammar, hypotheses on stdin\n"
        "  paste A B | %(prog)s REF [REF ...]        sacreBLEU's grammar: each tab-separated column is a system\n\n"
        "sacreBLEU's grammar takes sacreBLEU's defaults (-s exp, -f json, -w 1, 0-100 scale) and prints what it prints.",
    )
    parser.add_argument("files", nargs="*", metavar="FILE",
                        help="hypothesis files with -r; reference files with -i or with hypotheses on stdin ('-': stdin)")
    parser.add_argument("-r", "--references", nargs="+", action="extend", metavar="REF",
                        help="reference files, line-aligned with the hypotheses; every file after -r is a reference")
    parser.add_argument("-i", "--input", nargs="+", action="extend", metavar="HYP",
                        help="hypothesis files (sacreBLEU's grammar: the positional files are then references)")
    parser.add_argument("-nr", "--num-refs", type=int, default=1, metavar="N",
                        help="one reference file holding N tab-separated references per line (as sacreBLEU)")
    parser.add_argument("-e", "--encoding", default="utf-8", help="the files' text encoding (default: utf-8)")
    parser.add_argument("-tok", "--tokenize", "--tokenizer", dest="tokenizer", default=AUTO,
                        type=tokenizer_argument, metavar="TOK",
                        help=f"{', '.join(TOKENIZERS)}, or a SentencePiece model file's path (default: auto, "
                        "sacreBLEU's choice for the target language: ja-mecab, ko-mecab, zh; else 13a)")
    parser.add_argument("-l", "--language-pair", dest="language_pair", default=None, metavar="SRC-TGT",
                        help="sacreBLEU's language pair, e.g. en-de; its target language picks the tokenizer when "
                        "-tok is not given")
    parser.add_argument("--target-language", default=None, metavar="LANG",
                        help="the hypotheses' language code, which picks the tokenizer when -tok is not given")
    parser.add_argument("-lc", "--lowercase", action="store_true", help="lowercase before tokenizing")
    parser.add_argument("-m", "--metrics", nargs="+", default=["bleu"], type=str.lower, choices=["bleu"],
                        help="accepted for sacreBLEU's grammar; BLEU is the only metric here")
    parser.add_argument("-s", "--smooth", "--smooth-method", dest="smooth", default=None, choices=SMOOTH_NAMES,
                        help="smoothing (default: none; exp in sacreBLEU's grammar; add-one is evaluate's legacy smooth=True)")
    parser.add_argument("-sv", "--smooth-value", type=float, default=None, help="epsilon, k or alpha of the smoothing method")
    parser.add_argument("--max-order", type=int, default=None, help="highest n-gram order (default: 4)")
    parser.add_argument("--weights", type=float, nargs="+", default=None, help="one weight per order (default: uniform)")
    parser.add_argument("--ref-length", default="closest", choices=list(REF_LENGTH_POLICIES), help="default: closest")
    parser.add_argument("-eff", "--effective-order", action="store_true", help="skip orders the text is too short for")
    parser.add_argument("--force", action="store_true",
                        help="accepted for sacreBLEU's grammar (it silences a warning there; nothing here warns)")
    parser.add_argument("--sentence-scores", action="store_true", help="also print one BLEU per segment")
    parser.add_argument("-sl", "--sentence-level", action="store_true",
                        help="one score per segment with effective order, one line each (sacreBLEU's); "
                        "in this module's grammar, the same as --sentence-scores")
    parser.add_argument("--bootstrap", type=int, default=None, metavar="N", help="95%% confidence interval from N resamples")
    parser.add_argument("-ci", "--confidence", action="store_true", help="95%% confidence interval (--confidence-n resamples)")
    parser.add_argument("-cin", "--confidence-n", type=int, default=DEFAULT_SAMPLES[BOOTSTRAP], metavar="N",
                        help=f"default: {DEFAULT_SAMPLES[BOOTSTRAP]}")
    paired = parser.add_mutually_exclusive_group()
    paired.add_argument("-pbs", "--paired-bs", action="store_true", help="paired bootstrap test of each system against the baseline")
    paired.add_argument("-par", "--paired-ar", action="store_true", help="paired approximate randomization test")
    parser.add_argument("--paired-n", type=int, default=None, metavar="N", help="resamples or trials of the paired test")
    parser.add_argument("-pbsn", "--paired-bs-n", type=int, default=None, metavar="N",
                        help=f"default: {DEFAULT_SAMPLES[BOOTSTRAP]}")
    parser.add_argument("-parn", "--paired-ar-n", type=int, default=None, metavar="N",
                        help=f"default: {DEFAULT_SAMPLES[APPROXIMATE_RANDOMIZATION]}")
    parser.add_argument("-j", "--paired-jobs", type=int, default=None, metavar="N",
                        help="sacreBLEU's worker processes: here the same as --num-workers N (0: auto)")
    parser.add_argument("--num-workers", type=num_workers_argument, default=None, metavar="N",
                        help="processes that tokenize and count: auto (default: one per core for 20,000 "
                        "segments and more), 1 (this process), or N; the numbers do not depend on it")
    parser.add_argument("--baseline", default=None, metavar="HYP", help="the baseline system's file (default: the first)")
    parser.add_argument("--count-ties", action="store_true",
                        help="count the trials that tie the observed difference as at least as extreme (the "
                        "conservative p-value); by default only larger differences count, as in sacreBLEU")
    parser.add_argument("--seed", type=seed_value, default=argparse.SUPPRESS, metavar="S",
                        help=f"resampling seed, or none for fresh randomness (default: {DEFAULT_BOOTSTRAP_SEED}; "
                        "in sacreBLEU's grammar $SACREBLEU_SEED if set, as sacreBLEU)")
    parser.add_argument("-f", "--format", default=None, choices=FORMATS,
                        help="default: text (json in sacreBLEU's grammar, where $SACREBLEU_FORMAT overrides it, as there)")
    parser.add_argument("--json", dest="format", action="store_const", const="json", help="same as --format json")
    parser.add_argument("-w", "--width", type=int, default=None,
                        help="digits after the decimal point of scores on the 0-100 scale, as sacreBLEU's -w "
                        "(default: 0-1 scores with 4 digits; 1 digit in sacreBLEU's grammar)")
    parser.add_argument("-b", "--score-only", action="store_true", help="print only the score")
    parser.add_argument("-sh", "--short", action="store_true", help="abbreviated signature keys (sacreBLEU's --short)")
    parser.add_argument("-q", "--quiet", action="store_true", help="no notes on stderr")
    parser.add_argument("-nc", "--no-color", action="store_true", help="accepted for sacreBLEU's grammar; nothing is coloured")
    parser.add_argument("-V", "--version", action="version", version=f"bleu_metric {__version__}")
    test_sets = parser.add_argument_group("sacreBLEU's test-set options (refused: nothing is downloaded here)")
    test_sets.add_argument("-t", "--test-set", default=None, help="refused: pass the test set's files instead")
    test_sets.add_argument("--download", default=None, help="refused")
    test_sets.add_argument("--echo", nargs="+", default=None, help="refused")
    test_sets.add_argument("--list", action="store_true", help="refused")
    test_sets.add_argument("--citation", "--cite", action="store_true", help="refused")
    test_sets.add_argument("-ol", "--origlang", default=None, help="refused")
    test_sets.add_argument("--subset", default=None, help="refused")
    test_sets.add_argument("-d", "--detail", action="store_true", help="refused (it splits a test set by original language)")
    diversity = parser.add_argument_group("diversity (--self-bleu)")
    diversity.add_argument("--self-bleu", metavar="FILE", default=None,
                           help="self-BLEU of FILE's lines (each against all the others) and its most similar pairs")
    diversity.add_argument("--top", type=int, default=5, metavar="K", help="with --self-bleu: pairs shown (default 5; 0: none)")
    diversity.add_argument("--convention", default="sacrebleu", choices=["sacrebleu", "nltk"],
                           help="with --self-bleu: sacreBLEU's sentence_bleu (default: exp smoothing, effective order) "
                           "or NLTK's (method1; Texygen's and fast-bleu's numbers)")
    return parser
