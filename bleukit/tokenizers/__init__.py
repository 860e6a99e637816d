"""Tokenizers, one small class each with its `signature()`: `registry` (names to instances, "auto" by
language, model paths), `base` (the interface, callables, transformers tokenizers, token ids), `mteval`
(13a, none), `regex` (intl, zh, char), `memo` (library tokenizers memoised per line), `mecab`
(ja-mecab, ko-mecab), `spm` (flores101, flores200, spBLEU-1K).
"""

from bleukit._lazy import lazy_exports

_EXPORTS = {"get_tokenizer": "registry:get_tokenizer", "BaseTokenizer": "base:BaseTokenizer"}
__all__ = list(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
