"""docs/tokenizers.md's claims: MeCab's dictionaries, sacreBLEU's ja-mecab score, the memo and the tests' sizes."""

from __future__ import annotations

import math
import re
from typing import List

from docs_numbers import REPO, Claim

from .common import constant


CLAIMS: List[Claim] = [
    Claim("docs/tokenizers.md", "by its number of entries (IPA: {}; mecab-ko-dic: {})",
          lambda code: [__import__("bleukit.tokenizers.mecab").tokenizers.mecab.TokenizerJaMecab.entries,
                        __import__("bleukit.tokenizers.mecab").tokenizers.mecab.TokenizerKoMecab.entries]),
    Claim("docs/tokenizers.md", "no 4-gram (smoothed); sacreBLEU prints {}.",
          lambda code: [__import__("sacrebleu").corpus_bleu(["東京は日本の首都です。"], [["日本の首都は東京です。"]],
                                                              tokenize="ja-mecab").score]),
    Claim("docs/tokenizers.md", "(the last {}^{} lines)", lambda code: [2, math.log2(constant("bleukit/tokenizers/memo.py", "MEMO_LINES"))]),
    Claim("docs/tokenizers.md", "on a hand-written corpus of {}\nJapanese and {} Korean segments",
          lambda code: [len(__import__("cjk_corpus").JAPANESE), len(__import__("cjk_corpus").KOREAN)]),
    Claim("docs/tokenizers.md", "on\n{} generated lines per tokenizer from the scripts' Unicode blocks (plus {} Hypothesis examples",
          lambda code: [constant("tests/tokenizers/test_language_tokenizers.py", "FUZZ_LINES"),
                        int(re.search(r"max_examples=(\d+)", (REPO / "tests/tokenizers/test_language_tokenizers.py").read_text()).group(1))]),
]
