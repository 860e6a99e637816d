"""bleukit: BLEU (Papineni et al. 2002) as sacreBLEU computes it, for the Hugging Face ecosystem.

    import bleukit
    bleukit.compute(predictions, references)["bleu"]   # the metric's result dict, without evaluate
    bleu = bleukit.load()                               # the evaluate metric (evaluate.load of its script)

The layers, one subpackage each (docs/development.md draws the tree and one call's path):
`options` (the one parser), `inputs` and `token_ids` (what callers pass), `tokenizers`, `counting`
(n-gram statistics, the additive spine), `scoring` (the formulas), `core` and `streaming` (results
from statistics), then the features built on them: `significance`, `diversity`, `tensor`,
`integrations` (Trainer, TRL), `engines` (Arrow, Spark, Ray) and `cli`.
"""

from __future__ import annotations

from bleukit._lazy import lazy_exports
from bleukit.version import SIGNATURE_VERSION, __version__

_EXPORTS = {
    "compute": "core:compute_bleu",
    "statistics": "streaming:statistics",
    "score_from_statistics": "streaming:score_from_statistics",
    "BleuAccumulator": "streaming:BleuAccumulator",
    "BleuOptions": "options:BleuOptions",
    "resolve_options": "options:resolve_options",
    "get_tokenizer": "tokenizers.registry:get_tokenizer",
    "BaseTokenizer": "tokenizers.base:BaseTokenizer",
    "compare": "significance.compare:compare",
    "pairwise": "diversity.pairwise:pairwise",
    "self_bleu": "diversity.pairwise:self_bleu",
    "most_similar_pairs": "diversity.pairwise:most_similar_pairs",
    "mbr": "diversity.mbr:mbr",
    "trainer_compute_metrics": "integrations.trainer:make_compute_metrics",
    "reward_function": "integrations.reward:make_reward_function",
    "load": "evaluate_module:load",
    "load_comparison": "evaluate_module:load_comparison",
}

__all__ = ["SIGNATURE_VERSION", "__version__", *_EXPORTS]
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
