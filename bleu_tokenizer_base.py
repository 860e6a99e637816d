"""The tokenizer interface every BLEU tokenizer implements, and the two that wrap what users pass.

A tokenizer turns one segment into a list of token strings (`__call__`) and a whole batch into
every token in one flat list plus each segment's token count (`tokenize_flat`), or straight into
dense token ids (`encode_flat`), which is what the n-gram statistics consume. `signature()` is the
name that goes into the score's reproducibility signature, as in sacreBLEU.
"""

from __future__ import annotations

from itertools import chain
from typing import Callable, List, Sequence, Tuple

import numpy as np

try:  # inside the package `evaluate.load` builds
    from .bleu_stats import encode_tokens
except ImportError:  # imported from the repository root (CLI, demo, tests)
    from bleu_stats import encode_tokens

# One flat list of tokens plus the token count of each segment, in segment order.
FlatTokens = Tuple[List[str], np.ndarray]


def token_counts(token_lists: Sequence[Sequence[str]]) -> np.ndarray:
    """The number of tokens of each list, as int64 (the counts half of `FlatTokens`)."""
    return np.fromiter(map(len, token_lists), dtype=np.int64, count=len(token_lists))


class BaseTokenizer:
    """A tokenizer maps one segment (str) to a list of token strings."""

    name = "base"
    # Whether `encode_flat` spends its time in NumPy and Arrow calls (which release the GIL), so
    # that chunks can be tokenized on several threads at once.
    releases_gil = False

    def signature(self) -> str:
        return self.name

    def __call__(self, line: str) -> List[str]:
        raise NotImplementedError

    def tokenize_flat(self, lines: Sequence[str]) -> FlatTokens:
        """Tokenize many segments: all tokens in one list, and each segment's token count."""
        token_lists = [self(line) for line in lines]
        return list(chain.from_iterable(token_lists)), token_counts(token_lists)

    def encode_flat(self, lines: Sequence[str]) -> Tuple[np.ndarray, np.ndarray]:
        """Tokenize many segments straight to dense token ids (equal tokens, equal ids) and counts."""
        tokens, counts = self.tokenize_flat(lines)
        return encode_tokens(tokens), counts

    def encode_flat_rstripped(self, lines: Sequence[str]) -> Tuple[np.ndarray, np.ndarray]:
        """`encode_flat` of the lines with trailing whitespace stripped (as sacreBLEU's BLEU does)."""
        return self.encode_flat([line.rstrip() for line in lines])

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class CallableTokenizer(BaseTokenizer):
    """Wraps a user function from a string to a list of token strings, checking what it returns."""

    def __init__(self, function: Callable[[str], List[str]]) -> None:
        self.function = function
        self.name = getattr(function, "__name__", type(function).__name__)

    def signature(self) -> str:
        return f"custom:{self.name}"

    def __call__(self, line: str) -> List[str]:
        tokens = self.function(line)
        if not isinstance(tokens, list) or not all(isinstance(t, str) for t in tokens):
            raise TypeError(
                f"the tokenizer {self.name!r} must return a list of token strings, but for {line!r} "
                f"it returned {type(tokens).__name__} {tokens!r:.80}; wrap it, e.g. "
                f"tokenizer=lambda s: list(map(str, {self.name}(s)))"
            )
        return tokens

    def __repr__(self) -> str:
        return f"CallableTokenizer({self.name})"


class TokenIds(BaseTokenizer):
    """Stands for "no tokenizer" when the inputs are token ids: they are the tokens already.

    Scores on ids compare only with scores made from the same tokenizer's ids (signature `tok:ids`).
    """

    name = "ids"

    def __call__(self, line: str) -> List[str]:
        raise TypeError("token ids are scored as given; there is no text to tokenize")
