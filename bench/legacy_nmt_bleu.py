"""An independent, minimal implementation of the tensorflow/nmt BLEU algorithm (for timing only).

`evaluate`'s legacy `bleu` metric cannot be loaded offline, so the benchmark times this stand-in
for its algorithm instead: mteval-v13a tokenization one line at a time (sacreBLEU's tokenizer, as
the legacy metric's own copy of it), a Counter of n-gram tuples per segment, clipping by the
largest count in any one reference, the shortest reference length, and the brevity penalty
exp(1 - 1/ratio). Written here from that description; nothing is copied from `evaluate`.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Dict, List, Sequence


def _ngram_counts(tokens: Sequence[str], max_order: int) -> Counter:
    counts: Counter = Counter()
    for order in range(1, max_order + 1):
        for start in range(len(tokens) - order + 1):
            counts[tuple(tokens[start : start + order])] += 1
    return counts


def legacy_bleu(
    predictions: Sequence[str], references: Sequence[Sequence[str]], max_order: int = 4, smooth: bool = False
) -> Dict[str, object]:
    """Corpus BLEU as tensorflow/nmt computes it, on 13a tokens."""
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    tokenize = Tokenizer13a()
    matches = [0] * max_order
    possible = [0] * max_order
    translation_length = reference_length = 0
    for prediction, group in zip(predictions, references):
        hypothesis = tokenize(prediction).split()
        tokenized_refs: List[List[str]] = [tokenize(reference).split() for reference in group]
        translation_length += len(hypothesis)
        reference_length += min(len(reference) for reference in tokenized_refs)
        reference_max: Counter = Counter()
        for reference in tokenized_refs:
            reference_max |= _ngram_counts(reference, max_order)
        for ngram, count in (_ngram_counts(hypothesis, max_order) & reference_max).items():
            matches[len(ngram) - 1] += count
        for order in range(1, max_order + 1):
            possible[order - 1] += max(0, len(hypothesis) - order + 1)
    precisions = [
        (m + 1.0) / (p + 1.0) if smooth else (m / p if p > 0 else 0.0) for m, p in zip(matches, possible)
    ]
    geo_mean = math.exp(sum(math.log(p) for p in precisions) / max_order) if min(precisions) > 0 else 0.0
    ratio = translation_length / reference_length if reference_length else 0.0
    brevity_penalty = 1.0 if ratio > 1.0 else (math.exp(1 - 1.0 / ratio) if ratio > 0 else 0.0)
    return {
        "bleu": geo_mean * brevity_penalty,
        "precisions": precisions,
        "brevity_penalty": brevity_penalty,
        "length_ratio": ratio,
        "translation_length": translation_length,
        "reference_length": reference_length,
    }
