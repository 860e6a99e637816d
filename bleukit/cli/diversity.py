"""The command line's Diversity view: self-BLEU of one file's lines, and its most similar pairs.

    python -m bleukit --self-bleu generations.txt            # self-BLEU, then the 5 most similar pairs
    python -m bleukit --self-bleu generations.txt --top 20 --json
    python -m bleukit --self-bleu samples.txt --convention nltk -tok none --max-order 3   # Texygen's number

Each line is a text; each is scored against all the other lines as references (`bleukit.diversity.pairwise.
self_bleu`): the mean of those sentence BLEU scores is the self-BLEU (higher: less diverse), beside
the corpus BLEU of the same statistics and fairseq's pairwise BLEU. The scoring options are the
metric's (`-tok`, `-lc`, `--max-order`, `--weights`, `-s`, `-sv`, `--ref-length`); the defaults are
sacreBLEU's sentence_bleu (exp smoothing, effective order), or NLTK's with `--convention nltk`.
Scores print as the corpus command prints them: on 0-1 with 4 digits, or with `-w N` on sacreBLEU's
0-100 scale with N digits (`-w 2`: 54.54, never 0.55); `--json` keeps the 0-1 values.
"""

from __future__ import annotations

import argparse
import json
from typing import Any, Dict, List, Optional

from bleukit.cli.files import read_segments
from bleukit.cli.request import UsageError, display, target_language, width_and_scale
from bleukit.diversity.pairwise import PAIR_SEARCH_LIMIT, most_similar_pairs, self_bleu

SHOWN_CHARACTERS = 110  # of each text of a pair, in the text report


def check_arguments(args: argparse.Namespace) -> None:
    """--self-bleu takes one file and the scoring options; anything that names other files or a
    test belongs to the corpus-BLEU command."""
    others = {
        "hypothesis or reference files": bool(args.files or args.references or args.input),
        "--paired-bs/--paired-ar": args.paired_bs or args.paired_ar,
        "--bootstrap/-ci": args.bootstrap is not None or args.confidence,
        "--baseline": args.baseline is not None,
        "-f latex": args.format == "latex",
    }
    clashes = [name for name, given in others.items() if given]
    if clashes:
        raise UsageError(f"--self-bleu FILE scores the lines of one file against each other; drop {', '.join(clashes)}")
    if args.top < 0:
        raise UsageError(f"--top must be >= 0 (0: no pairs), not {args.top}")
    width_and_scale(args.width)  # a UsageError for a negative -w
    target_language(args)  # a malformed -l is a usage error here too


def scoring_options(args: argparse.Namespace) -> Dict[str, Any]:
    """The options given on the command line; the others keep self_bleu's defaults."""
    options: Dict[str, Any] = dict(
        tokenizer=args.tokenizer, lowercase=args.lowercase, max_order=args.max_order, weights=args.weights,
        smooth_value=args.smooth_value, ref_length=args.ref_length, convention=args.convention,
        target_language=target_language(args),
    )
    if args.smooth is not None:
        options["smooth"] = args.smooth
    if args.effective_order:
        options["effective_order"] = True
    return options


def _shown(text: str) -> str:
    return text if len(text) <= SHOWN_CHARACTERS else text[: SHOWN_CHARACTERS - 1] + "…"


def number_format(width: Optional[int]):
    """How a score prints, with the corpus command's meaning of -w (`width_and_scale`): 0-1 with 4
    digits without it, sacreBLEU's 0-100 with `width` digits with it."""
    digits, scale = width_and_scale(width)
    return lambda value: f"{scale * value:.{digits}f}"


def report(path: str, texts: List[str], result: Dict[str, Any], pairs: Optional[List[Dict[str, Any]]],
           top: int, width: Optional[int], sentence_scores: bool) -> str:
    count = len(texts)
    number = number_format(width)
    scale = "" if width is None else "on the 0-100 scale; "
    lines = [
        f"file             {display(path)} ({count:,} lines)",
        f"self-BLEU        {number(result['self_bleu'])}  ({scale}mean sentence BLEU of each line against the other "
        f"{count - 1:,}; higher means less diverse)",
        f"corpus BLEU      {number(result['corpus_bleu'])}  (the same statistics summed)",
        f"pairwise BLEU    {number(result['pairwise_bleu'])}  (fairseq's: every ordered pair of different lines)",
        f"signature        {result['signature']}",
    ]
    if sentence_scores:
        lines.append("sentence BLEU    " + " ".join(number(s) for s in result["sentence_bleu"]))
    if top == 0:
        return "\n".join(lines)
    if pairs is None:
        lines.append(f"\nmost similar pairs: not searched, {count:,} lines make {count * (count - 1) // 2:,} pairs "
                     f"(searched up to {PAIR_SEARCH_LIMIT:,} lines; in Python, bleu.most_similar_pairs has no limit)")
        return "\n".join(lines)
    lines.append("\nmost similar pairs (sentence BLEU, the higher of the two directions):")
    for pair in pairs:
        i, j = pair["i"], pair["j"]
        same = "  (identical)" if texts[i] == texts[j] else ""
        lines.append(f"  {number(pair['bleu'])}  lines {i + 1} and {j + 1}{same}")
        lines.append(f"          {i + 1}: {_shown(texts[i])}")
        lines.append(f"          {j + 1}: {_shown(texts[j])}")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> str:
    """The Diversity view's output for checked arguments; ValueError/OSError for bad input."""
    texts = read_segments(args.self_bleu, args.encoding)
    options = scoring_options(args)
    result = self_bleu(texts, **options)
    pairs = None
    if args.top and len(texts) <= PAIR_SEARCH_LIMIT:
        pairs = most_similar_pairs(texts, args.top, **options)["pairs"]
    if args.score_only:
        return number_format(args.width)(result["self_bleu"])
    if args.format == "json":
        payload = {"file": display(args.self_bleu), "texts": len(texts), **result}
        if not args.sentence_scores:
            del payload["sentence_bleu"]
        if args.top:
            payload["pairs"] = None if pairs is None else [
                {"lines": [pair["i"] + 1, pair["j"] + 1], "bleu": pair["bleu"], "bleu_ij": pair["bleu_ij"],
                 "bleu_ji": pair["bleu_ji"]} for pair in pairs]
        return json.dumps(payload, indent=2, ensure_ascii=False)
    return report(args.self_bleu, texts, result, pairs, args.top, args.width, args.sentence_scores)
