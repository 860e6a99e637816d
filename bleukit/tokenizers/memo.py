"""Tokenizers that call a library once per line (MeCab, SentencePiece): memoised, then split in bulk.

sacreBLEU's ja-mecab, ko-mecab and SentencePiece tokenizers turn one line into its tokens joined by
spaces, and its BLEU splits that string on whitespace. The library call is most of the cost of
scoring (tens of microseconds a line), so, as sacreBLEU memoises these tokenizers (the last 2**16
lines), a line is tokenized once while it stays in the memo: a reference shared by several systems,
references scored again at every evaluation of a training run, a line repeated in the corpus. Within
a batch, each distinct line that is not memoised goes to the library once.

The joined strings are split back into tokens by the `none` tokenizer's one-pass batch split, which
splits exactly where `str.split()` does, and gives the dense token ids the statistics count.
"""

from __future__ import annotations

import threading
from itertools import islice
from typing import Dict, List, Sequence, Tuple

import numpy as np

from bleukit.tokenizers.mteval import TokenizerNone
from bleukit.tokenizers.base import BaseTokenizer, FlatTokens

# sacreBLEU's memo size for these tokenizers (functools.lru_cache(maxsize=2**16)).
MEMO_LINES = 2**16


class MemoizedTokenizer(BaseTokenizer):
    """A tokenizer whose library maps a line to its tokens joined by spaces, memoised per line.

    Subclasses implement `_tokenize_distinct` (the library call on lines that are distinct and not
    memoised) and `_init_args` (what rebuilds them: library objects do not pickle, the arguments do).
    """

    memo_lines = MEMO_LINES

    def __init__(self) -> None:
        self._memo: Dict[str, str] = {}
        # The libraries' taggers and processors are not documented as thread-safe: one call at a time.
        self._lock = threading.Lock()
        self._split = TokenizerNone()

    def _tokenize_distinct(self, lines: List[str]) -> List[str]:
        """Each line's tokens joined by spaces (sacreBLEU's tokenizer output for that line)."""
        raise NotImplementedError

    def _init_args(self) -> tuple:
        return ()

    def __reduce__(self) -> tuple:
        return (type(self), self._init_args())

    def tokenized_lines(self, lines: Sequence[str]) -> List[str]:
        """sacreBLEU's tokenizer output (tokens joined by spaces) for every line, in order."""
        memo = self._memo
        found = {line: memo.get(line) for line in lines}
        missing = [line for line, text in found.items() if text is None]
        if missing:
            with self._lock:
                texts = self._tokenize_distinct(missing)
            found.update(zip(missing, texts))
            self._remember(missing, texts)
        return [found[line] for line in lines]

    def _remember(self, lines: List[str], texts: List[str]) -> None:
        """Keep the newest `memo_lines` lines (first in, first out)."""
        keep = min(len(lines), self.memo_lines)
        with self._lock:
            memo = self._memo
            memo.update(zip(lines[len(lines) - keep :], texts[len(texts) - keep :]))
            excess = len(memo) - self.memo_lines
            if excess > 0:
                for line in list(islice(memo, excess)):
                    del memo[line]

    def __call__(self, line: str) -> List[str]:
        return self.tokenized_lines([line])[0].split()

    def tokenize_flat(self, lines: Sequence[str]) -> FlatTokens:
        return self._split.tokenize_flat(self.tokenized_lines(lines))

    def encode_flat(self, lines: Sequence[str]) -> Tuple[np.ndarray, np.ndarray]:
        return self._split.encode_flat(self.tokenized_lines(lines))
