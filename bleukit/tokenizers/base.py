"""The tokenizer interface every BLEU tokenizer implements, and those that wrap what users pass.

A tokenizer turns one segment into a list of token strings (`__call__`) and a whole batch into
every token in one flat list plus each segment's token count (`tokenize_flat`), or straight into
dense token ids (`encode_flat`), which is what the n-gram statistics consume. `signature()` is the
name that goes into the score's reproducibility signature, as in sacreBLEU.
"""

from __future__ import annotations

import types
from collections.abc import Iterable, Mapping
from itertools import chain
from typing import Any, Callable, List, Sequence, Tuple

import numpy as np

from bleukit.counting.stats import encode_tokens

# One flat list of tokens plus the token count of each segment, in segment order.
FlatTokens = Tuple[List[str], np.ndarray]


def token_counts(token_lists: Sequence[Sequence[str]]) -> np.ndarray:
    """The number of tokens of each list, as int64 (the counts half of `FlatTokens`)."""
    return np.fromiter(map(len, token_lists), dtype=np.int64, count=len(token_lists))


class TokenizerSetupError(RuntimeError):
    """An optional tokenizer's installation is not the one sacreBLEU pins (e.g. another dictionary)."""


class BaseTokenizer:
    """A tokenizer maps one segment (str) to a list of token strings."""

    name = "base"
    # Whether `encode_flat` spends its time in NumPy and Arrow calls (which release the GIL), so
    # that chunks can be tokenized on several threads at once.
    releases_gil = False
    # Whether it runs the user's code (a callable, a transformers tokenizer), which
    # num_workers="auto" never runs in forked processes (see `bleukit.counting.parallel`).
    runs_user_code = False

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


def _call_in_hint(function: Callable) -> Tuple[str, str]:
    """How a pasted hint calls the user's function: by its name where that name is a module-level
    function's (`my_split(s)`), else as `f(s)` with a note saying what `f` stands for."""
    name = getattr(function, "__name__", "")
    if isinstance(function, types.FunctionType) and name.isidentifier() and function.__qualname__ == name:
        return f"{name}(s)", ""
    return "f(s)", ", where f is what you passed as tokenizer"


class CallableTokenizer(BaseTokenizer):
    """Wraps a user function from a string to a list of token strings, checking what it returns."""

    runs_user_code = True

    def __init__(self, function: Callable[[str], List[str]]) -> None:
        self.function = function
        self.name = getattr(function, "__name__", type(function).__name__)

    def signature(self) -> str:
        return f"custom:{self.name}"

    def __call__(self, line: str) -> List[str]:
        tokens = self.function(line)
        if not isinstance(tokens, list) or not all(isinstance(t, str) for t in tokens):
            raise TypeError(self._wrong_output(line, tokens))
        return tokens

    def _wrong_output(self, line: str, tokens: Any) -> str:
        """What was wrong with the function's output, and a fix that works when pasted."""
        call, where = _call_in_hint(self.function)
        said = (
            f"the tokenizer {self.name!r} must return a list of token strings, but for {line!r:.60} it "
            f"returned {type(tokens).__name__} {tokens!r:.80}"
        )
        if isinstance(tokens, str):  # e.g. sacreBLEU's tokenizers, which return the tokens joined by spaces
            return f"{said}; split it into tokens: tokenizer=lambda s: {call}.split(){where}"
        if isinstance(tokens, Mapping):  # e.g. a transformers tokenizer's BatchEncoding
            fix = "pass a function that returns the tokens"
            if "input_ids" in tokens:
                fix = "pass the transformers tokenizer itself as tokenizer= (its tokenize() gives the tokens)"
            return f"{said}, a mapping with keys {list(tokens)[:4]}, not tokens; {fix}"
        owner = getattr(self.function, "__self__", None)
        if is_transformers_tokenizer(owner):  # tok.encode, tok.__call__: ids with the special tokens (</s>)
            return (f"{said}: ids, with the special tokens the model adds, which would count as words; pass the "
                    f"transformers tokenizer itself, tokenizer={type(owner).__name__} object (its tokenize() gives "
                    "the subword tokens without special tokens), or token ids as predictions and references")
        if isinstance(tokens, Iterable) and not isinstance(tokens, (bytes, bytearray)):
            return f"{said}; make each token a string: tokenizer=lambda s: [str(t) for t in {call}]{where}"
        return f"{said}; pass a function from a string to a list of token strings"

    def __repr__(self) -> str:
        return f"CallableTokenizer({self.name})"


def is_transformers_tokenizer(value: Any) -> bool:
    """A transformers tokenizer (slow or fast), recognised without importing transformers."""
    return callable(getattr(value, "tokenize", None)) and callable(getattr(value, "convert_tokens_to_ids", None))


class TransformersTokenizer(BaseTokenizer):
    """A transformers tokenizer as BLEU's tokenizer: the tokens are its `tokenize(line)`, the model's
    subword pieces without special tokens. Calling the tokenizer itself would give a BatchEncoding
    (ids and attention mask), not tokens. Such scores compare only within one tokenizer."""

    runs_user_code = True

    def __init__(self, tokenizer: Any) -> None:
        self.tokenizer = tokenizer
        self.name = getattr(tokenizer, "name_or_path", "") or type(tokenizer).__name__

    def signature(self) -> str:
        return f"custom:transformers:{self.name}"

    def __call__(self, line: str) -> List[str]:
        return list(self.tokenizer.tokenize(line))

    def __repr__(self) -> str:
        return f"TransformersTokenizer({self.name})"


class TokenIds(BaseTokenizer):
    """Stands for "no tokenizer" when the inputs are token ids: they are the tokens already.

    Scores on ids compare only with scores made from the same tokenizer's ids (signature `tok:ids`).
    """

    name = "ids"

    def __call__(self, line: str) -> List[str]:
        raise TypeError("token ids are scored as given; there is no text to tokenize")
