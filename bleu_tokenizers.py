"""Tokenizers for BLEU by name: the registry that turns what users pass into a tokenizer object.

Each tokenizer lives in a module of its own job: `bleu_tokenizer_base` (the interface, user
callables, token ids), `bleu_tokenizer_13a` (13a and none, a whole batch in one pass over its
bytes), `bleu_tokenizer_regex` (intl, zh, char, one line at a time). The names and the tokens are
sacreBLEU's, which the tests check token for token.
"""

from __future__ import annotations

from typing import Callable, List, Union

try:  # inside the package `evaluate.load` builds
    from .bleu_tokenizer_13a import Tokenizer13a, TokenizerNone
    from .bleu_tokenizer_base import BaseTokenizer, CallableTokenizer, FlatTokens, TokenIds
    from .bleu_tokenizer_regex import TokenizerChar, TokenizerIntl, TokenizerZh
except ImportError:  # imported from the repository root (CLI, demo, tests)
    from bleu_tokenizer_13a import Tokenizer13a, TokenizerNone
    from bleu_tokenizer_base import BaseTokenizer, CallableTokenizer, FlatTokens, TokenIds
    from bleu_tokenizer_regex import TokenizerChar, TokenizerIntl, TokenizerZh

__all__ = [
    "BaseTokenizer", "CallableTokenizer", "FlatTokens", "TokenIds", "Tokenizer13a", "TokenizerNone",
    "TokenizerIntl", "TokenizerZh", "TokenizerChar", "TOKENIZERS", "TokenizerSpec", "get_tokenizer",
]

TOKENIZERS = {
    "13a": Tokenizer13a,
    "none": TokenizerNone,
    "intl": TokenizerIntl,
    "zh": TokenizerZh,
    "char": TokenizerChar,
}

TokenizerSpec = Union[str, Callable[[str], List[str]], BaseTokenizer]


def get_tokenizer(spec: TokenizerSpec) -> BaseTokenizer:
    """Resolve a tokenizer name, a tokenizer instance, or a callable into a tokenizer object."""
    if isinstance(spec, BaseTokenizer):
        return spec
    if isinstance(spec, str):
        if spec not in TOKENIZERS:
            raise ValueError(
                f"unknown tokenizer {spec!r}; pass one of {sorted(TOKENIZERS)} "
                "or a callable from a string to a list of token strings"
            )
        return TOKENIZERS[spec]()
    if callable(spec):
        return CallableTokenizer(spec)
    raise TypeError(
        f"tokenizer must be a name ({', '.join(sorted(TOKENIZERS))}) or a callable from a string "
        f"to a list of token strings, not {type(spec).__name__}"
    )
