"""SentencePiece tokenizers for spBLEU: sacreBLEU's `flores101` (alias `spm`), `flores200`, `spBLEU-1K`.

FLORES-101/200 results (NLLB and most multilingual translation papers) are BLEU over the pieces of
one SentencePiece model shared by every language. The tokens are the model's pieces (sacreBLEU joins
`EncodeAsPieces(line)` with spaces, and its BLEU splits them again); the signature names the model as
sacreBLEU does (`flores101`, `flores200`, `spBLEU-1K`).

The models are files, never downloaded here: they are looked for where sacreBLEU keeps them after
its first download (`$SACREBLEU/models/`, `~/.sacrebleu/models/` when SACREBLEU is unset), under the
same file names, so a machine that ever ran sacreBLEU's tokenizer has them. A model file can also be
given by path. `sentencepiece` is an optional dependency, imported when a tokenizer is made.
"""

from __future__ import annotations

import os
from typing import List, NamedTuple, Optional

from bleukit.extras import pip_line
from bleukit.tokenizers.memo import MemoizedTokenizer

SPM_PIP_LINE = pip_line("spm")


class SpmModel(NamedTuple):
    signature: str  # the tokenizer's name in the signature
    file_name: str  # the model's file name in sacreBLEU's cache
    url: str  # where sacreBLEU downloads it from


_FLORES101 = SpmModel(
    "flores101",
    "sacrebleu_tokenizer_spm.model",
    "https://dl.fbaipublicfiles.com/fairseq/models/flores/sacrebleu_tokenizer_spm.model",
)
# sacreBLEU 2.6's SentencePiece tokenizers. The file name is the last part of the URL, as sacreBLEU
# stores it (flores200's URL is a short link, so its file has no extension).
SPM_MODELS = {
    "spm": _FLORES101,  # sacreBLEU's old name for flores101 (it warns, and signs flores101)
    "flores101": _FLORES101,
    "flores200": SpmModel("flores200", "flores200sacrebleuspm", "https://tinyurl.com/flores200sacrebleuspm"),
    "spBLEU-1K": SpmModel(
        "spBLEU-1K", "spbleu-1k_tokenizer_spm.model", "https://www.dlnlp.ai/spBLEU-1K/spbleu-1k_tokenizer_spm.model"
    ),
}


def models_folder() -> str:
    """Where sacreBLEU keeps its models: `$SACREBLEU/models`, `~/.sacrebleu/models` by default."""
    return os.path.join(os.environ.get("SACREBLEU", os.path.join(os.path.expanduser("~"), ".sacrebleu")), "models")


def model_name_for_file(path: str) -> Optional[str]:
    """The tokenizer name whose model file this is, by file name (flores101 for its shared file)."""
    base = os.path.basename(path)
    return next((name for name, model in SPM_MODELS.items() if model.file_name == base and name != "spm"), None)


def default_model_path(name: str) -> str:
    """Where tokenizer `name`'s model is in sacreBLEU's models folder, if it is there."""
    return os.path.join(models_folder(), SPM_MODELS[name].file_name)


def find_model(name: str) -> str:
    """The path of tokenizer `name`'s model in sacreBLEU's models folder, or an error saying how to get it."""
    model = SPM_MODELS[name]
    folder = models_folder()
    path = default_model_path(name)
    if not os.path.isfile(path):
        raise FileNotFoundError(
            f"tokenizer={name!r} needs sacreBLEU's SentencePiece model {model.file_name!r}, which is not at "
            f"{path} (sacreBLEU's models folder: $SACREBLEU/models, ~/.sacrebleu/models when SACREBLEU is "
            f"unset). This module never downloads at run time. The model comes from {model.url} (sacreBLEU "
            f"downloads it from there on first use): fetch it once, e.g.\n"
            f"    mkdir -p {folder} && curl -L -o {path} {model.url}\n"
            f"or pass the model file's path instead of the name: tokenizer='/path/to/{model.file_name}' "
            f"(on the command line: -tok /path/to/{model.file_name})"
        )
    return path


def _usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


class TokenizerSPM(MemoizedTokenizer):
    """The pieces of one of sacreBLEU's SentencePiece models (`flores101` unless `name` says otherwise).

    `model_file` is the model's path; by default sacreBLEU's models folder (see `find_model`). "spm" is
    sacreBLEU's old name for flores101 (the registry warns, as sacreBLEU does).
    """

    def __init__(self, name: str = "flores101", model_file: Optional[str] = None) -> None:
        if name not in SPM_MODELS:
            raise ValueError(f"unknown SentencePiece tokenizer {name!r}; pass one of {sorted(SPM_MODELS)}")
        super().__init__()
        try:
            import sentencepiece
        except ImportError as error:
            raise ImportError(
                f"tokenizer={name!r} needs sentencepiece, an optional dependency that is not installed "
                f"here ({error}); install it with:\n    {SPM_PIP_LINE}"
            ) from error
        self.name = name
        self.model_file = find_model(name) if model_file is None else os.fspath(model_file)
        if not os.path.isfile(self.model_file):
            raise FileNotFoundError(
                f"tokenizer={name!r}: the SentencePiece model {self.model_file} does not exist; it comes "
                f"from {SPM_MODELS[name].url}"
            )
        self._processor = sentencepiece.SentencePieceProcessor()
        try:
            self._processor.LoadFromFile(self.model_file)
        except (OSError, RuntimeError) as error:
            raise ValueError(
                f"tokenizer={name!r}: {self.model_file} is not a SentencePiece model ({error}); the model "
                f"comes from {SPM_MODELS[name].url}"
            ) from error
        self._threads = _usable_cores()

    def signature(self) -> str:
        return SPM_MODELS[self.name].signature

    def _init_args(self) -> tuple:
        return (self.name, self.model_file)

    def _tokenize_distinct(self, lines: List[str]) -> List[str]:
        # One batch call: the library encodes the lines on its own threads, outside the GIL. Each
        # line's pieces are the same as `EncodeAsPieces(line)` gives alone (tests check it).
        pieces = self._processor.encode(lines, out_type=str, num_threads=min(self._threads, len(lines)))
        return [" ".join(line_pieces) for line_pieces in pieces]

    def __repr__(self) -> str:
        return f"TokenizerSPM({self.name!r}, model_file={self.model_file!r})"
