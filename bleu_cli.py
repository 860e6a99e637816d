"""Score a hypothesis file against one or more reference files from the command line.

    python bleu_cli.py HYPOTHESES -r REFERENCES [REFERENCES ...] [options]
    python bleu_cli.py                # scores the bundled example in examples/ and says so

Files hold one segment per line (UTF-8); every reference file is line-aligned with the
hypotheses. The options are the metric's, and the numbers come from the same core
(`bleu_core.compute_bleu`) as `evaluate.load("bleu_metric.py")`.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import List, Optional, Sequence

from bleu_core import compute_bleu
from bleu_options import SMOOTH_NAMES, __version__
from bleu_stats import REF_LENGTH_POLICIES
from bleu_tokenizers import TOKENIZERS

EXAMPLE_DIR = Path(__file__).resolve().parent / "examples"
EXAMPLE_HYPOTHESES = EXAMPLE_DIR / "hypotheses.txt"
EXAMPLE_REFERENCES = [EXAMPLE_DIR / "references.1.txt", EXAMPLE_DIR / "references.2.txt"]


def read_segments(path: str | Path) -> List[str]:
    """One segment per line. Only '\\n' (or '\\r\\n') ends a line: form feeds and other
    separators that `str.splitlines` would split on stay inside their segment."""
    if str(path) == "-":
        text = sys.stdin.read()
    else:
        with open(path, encoding="utf-8", newline="") as handle:
            text = handle.read()
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="bleu_cli.py",
        description="Corpus BLEU (Papineni et al. 2002) with sacreBLEU's defaults. "
        "With no arguments, scores the bundled example in examples/.",
    )
    parser.add_argument("hypotheses", nargs="?", help="hypothesis file, one segment per line ('-' for stdin)")
    parser.add_argument("-r", "--references", nargs="+", metavar="FILE", help="one or more reference files, line-aligned")
    parser.add_argument("-t", "--tokenizer", default="13a", choices=sorted(TOKENIZERS), help="default: 13a")
    parser.add_argument("-lc", "--lowercase", action="store_true", help="lowercase before tokenizing")
    parser.add_argument("--max-order", type=int, default=None, help="highest n-gram order (default: 4)")
    parser.add_argument("--weights", type=float, nargs="+", default=None, help="one weight per order (default: uniform)")
    parser.add_argument(
        "-s", "--smooth", default="none", choices=SMOOTH_NAMES,
        help="smoothing (default: none; add-one is evaluate's legacy smooth=True)",
    )
    parser.add_argument("--smooth-value", type=float, default=None, help="epsilon, k or alpha of the smoothing method")
    parser.add_argument("--ref-length", default="closest", choices=list(REF_LENGTH_POLICIES), help="default: closest")
    parser.add_argument("-e", "--effective-order", action="store_true", help="skip orders the text is too short for")
    parser.add_argument("--sentence-scores", action="store_true", help="also print one BLEU per segment")
    parser.add_argument("--bootstrap", type=int, default=0, metavar="N", help="95%% confidence interval from N resamples")
    parser.add_argument("--seed", type=int, default=12345, help="bootstrap seed (default: 12345, as sacreBLEU)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("--version", action="version", version=f"bleu_metric {__version__}")
    return parser


def format_result(result: dict) -> str:
    """The human-readable report: score, precisions, brevity penalty, signature."""
    precisions = " / ".join(f"{p:.4f}" for p in result["precisions"])
    lines = [
        f"BLEU             {result['bleu']:.4f}  ({100 * result['bleu']:.2f} on the 0-100 scale)",
        f"precisions       {precisions}",
        f"brevity penalty  {result['brevity_penalty']:.4f}  (length ratio {result['length_ratio']:.4f}: "
        f"{result['translation_length']} hypothesis / {result['reference_length']} reference tokens)",
    ]
    if "bleu_ci_low" in result:
        lines.append(f"95% interval     [{result['bleu_ci_low']:.4f}, {result['bleu_ci_high']:.4f}] (bootstrap)")
    lines.append(f"signature        {result['signature']}")
    if "sentence_bleu" in result:
        lines.append("sentence BLEU    " + " ".join(f"{s:.4f}" for s in result["sentence_bleu"]))
    return "\n".join(lines)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.hypotheses is None and args.references is None:
        hypotheses_path, reference_paths = EXAMPLE_HYPOTHESES, EXAMPLE_REFERENCES
        if not args.json:
            print(
                f"No files given: scoring the bundled example, {hypotheses_path.relative_to(EXAMPLE_DIR.parent)} "
                f"against {len(reference_paths)} reference files in examples/.\n"
                "Score your own with: python bleu_cli.py HYPOTHESES -r REFERENCES [REFERENCES ...]\n"
            )
    elif args.hypotheses is None or not args.references:
        parser.error("give a hypothesis file and at least one reference file: HYPOTHESES -r REFERENCES ...")
    else:
        hypotheses_path, reference_paths = args.hypotheses, args.references
    try:
        hypotheses = read_segments(hypotheses_path)
        streams = [read_segments(path) for path in reference_paths]
        for path, stream in zip(reference_paths, streams):
            if len(stream) != len(hypotheses):
                raise ValueError(
                    f"{path} has {len(stream)} lines but {hypotheses_path} has {len(hypotheses)}; "
                    "reference files must be line-aligned with the hypotheses"
                )
        references = [list(group) for group in zip(*streams)]
        result = compute_bleu(
            hypotheses, references,
            tokenizer=args.tokenizer, lowercase=args.lowercase, max_order=args.max_order,
            weights=args.weights, smooth=args.smooth, smooth_value=args.smooth_value,
            ref_length=args.ref_length, effective_order=args.effective_order,
            return_sentence_scores=args.sentence_scores, bootstrap_samples=args.bootstrap, bootstrap_seed=args.seed,
        )
    except (OSError, ValueError, TypeError) as error:
        print(f"bleu_cli.py: error: {error}", file=sys.stderr)
        return 2
    print(json.dumps(result, indent=2, ensure_ascii=False) if args.json else format_result(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
