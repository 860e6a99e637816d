"""The command line's options: one argparse parser for both grammars.

sacreBLEU's option names are aliases of this module's, so a sacreBLEU command reads as it is;
which grammar a command uses (and so its defaults) is decided later, in `bleu_cli_request`.
"""

from __future__ import annotations

import argparse

from bleu_compare import APPROXIMATE_RANDOMIZATION, BOOTSTRAP, DEFAULT_SAMPLES
from bleu_core import DEFAULT_BOOTSTRAP_SEED
from bleu_options import SMOOTH_NAMES, __version__
from bleu_stats import REF_LENGTH_POLICIES
from bleu_tokenizers import TOKENIZERS

PROG = "bleu_cli.py"


def build_parser() -> argparse.ArgumentParser:
    """One parser for both grammars: sacreBLEU's option names are aliases of this module's."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        allow_abbrev=False,  # `-tok` is the tokenizer option, never `-t ok`
        usage="%(prog)s [HYP ...] -r REF [REF ...] [options]\n"
        "       %(prog)s REF [REF ...] [-i HYP [HYP ...]] [options]   (sacreBLEU's grammar)\n"
        "       %(prog)s                                              (the bundled example)",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Corpus BLEU (Papineni et al. 2002). With no arguments, scores the bundled example in examples/.\n\n"
        "  bleu_cli.py HYP [HYP ...] -r REF [REF ...]   files before -r are hypotheses (metric defaults, 0-1 scale)\n"
        "  bleu_cli.py REF [REF ...] -i HYP [HYP ...]   sacreBLEU's grammar: files before -i are references\n"
        "  cat HYP | bleu_cli.py REF [REF ...]          sacreBLEU's grammar, hypotheses on stdin\n\n"
        "sacreBLEU's grammar takes sacreBLEU's defaults (-s exp, -f json, -w 1, 0-100 scale) and prints what it prints.",
    )
    parser.add_argument("files", nargs="*", metavar="FILE",
                        help="hypothesis files with -r; reference files with -i or with hypotheses on stdin ('-': stdin)")
    parser.add_argument("-r", "--references", nargs="+", action="extend", metavar="REF",
                        help="reference files, line-aligned with the hypotheses; every file after -r is a reference")
    parser.add_argument("-i", "--input", nargs="+", action="extend", metavar="HYP",
                        help="hypothesis files (sacreBLEU's grammar: the positional files are then references)")
    parser.add_argument("-t", "-tok", "--tokenize", "--tokenizer", dest="tokenizer", default="13a",
                        choices=sorted(TOKENIZERS), help="default: 13a")
    parser.add_argument("-lc", "--lowercase", action="store_true", help="lowercase before tokenizing")
    parser.add_argument("-m", "--metrics", nargs="+", default=["bleu"], type=str.lower, choices=["bleu"],
                        help="accepted for sacreBLEU's grammar; BLEU is the only metric here")
    parser.add_argument("-s", "--smooth", "--smooth-method", dest="smooth", default=None, choices=SMOOTH_NAMES,
                        help="smoothing (default: none; exp in sacreBLEU's grammar; add-one is evaluate's legacy smooth=True)")
    parser.add_argument("-sv", "--smooth-value", type=float, default=None, help="epsilon, k or alpha of the smoothing method")
    parser.add_argument("--max-order", type=int, default=None, help="highest n-gram order (default: 4)")
    parser.add_argument("--weights", type=float, nargs="+", default=None, help="one weight per order (default: uniform)")
    parser.add_argument("--ref-length", default="closest", choices=list(REF_LENGTH_POLICIES), help="default: closest")
    parser.add_argument("-e", "--effective-order", action="store_true", help="skip orders the text is too short for")
    parser.add_argument("--sentence-scores", action="store_true", help="also print one BLEU per segment")
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
    parser.add_argument("--baseline", default=None, metavar="HYP", help="the baseline system's file (default: the first)")
    parser.add_argument("--seed", type=int, default=DEFAULT_BOOTSTRAP_SEED,
                        help=f"resampling seed (default: {DEFAULT_BOOTSTRAP_SEED}, as sacreBLEU)")
    parser.add_argument("-f", "--format", default=None, choices=["json", "text", "latex"],
                        help="default: text (json in sacreBLEU's grammar)")
    parser.add_argument("--json", dest="format", action="store_const", const="json", help="same as --format json")
    parser.add_argument("-w", "--width", type=int, default=None, help="digits after the decimal point (default: 4; 1 in sacreBLEU's grammar)")
    parser.add_argument("-b", "--score-only", action="store_true", help="print only the score")
    parser.add_argument("-sh", "--short", action="store_true", help="abbreviated signature keys (sacreBLEU's --short)")
    parser.add_argument("--version", action="version", version=f"bleu_metric {__version__}")
    return parser
