"""BLEU of padded token-id tensors on their own device (a GPU, or the CPU): statistics rows,
sentence and corpus scores (`scores`), and the clipped matches of every pair of a group (`pairs`,
for MBR and pairwise BLEU). torch is imported only when a function runs."""

from bleukit._lazy import lazy_exports

_EXPORTS = {
    "statistics": "scores:statistics",
    "sentence_bleu": "scores:sentence_bleu",
    "corpus_bleu": "scores:corpus_bleu",
}
__all__ = list(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
