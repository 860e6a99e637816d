"""What the two `evaluate` scripts hand over to: their behaviour, beside their card text.

`bleu_metric.py` and `bleu_comparison.py` stay scripts (`evaluate.load` takes a script) that import
this installed package as a library, as evaluate's own `sacrebleu` metric imports `sacrebleu`.
Each holds its card text, its features, `_info` and a `_compute` that hands over; the classes here
add what sits between `evaluate` and the core: options given at load time become defaults, raw
inputs are checked before `evaluate` casts them, and the metric's methods beyond `compute`.

`load()` and `load_comparison()` are the one call a pip user needs: `evaluate.load` of the
installed script, which works offline (nothing is downloaded for a local script).
"""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any, Dict, Optional, Sequence

import evaluate

from bleukit.core import RUN_OPTION_NAMES, check_run_options, compute_bleu
from bleukit.resampling import DEFAULT_BOOTSTRAP_SEED
from bleukit.diversity.mbr import mbr
from bleukit.diversity.pairwise import most_similar_pairs, pairwise, self_bleu
from bleukit.inputs import TOKEN_IDS, as_list, validate_inputs
from bleukit.integrations.reward import BleuReward, make_reward_function
from bleukit.integrations.trainer import BleuComputeMetrics, make_compute_metrics
from bleukit.options import (
    OPTION_NAMES, TEXT_ONLY_OPTIONS, canonical_options, check_option_names, init_keywords, resolve_options, split_load_keywords,
    split_text_defaults,
)
from bleukit.significance.compare import COUNT_NAMES, check_compare_options, check_systems, compare
from bleukit.streaming import BleuAccumulator, score_from_statistics, statistics
from bleukit.tensor.scores import corpus_bleu as tensor_corpus_bleu
from bleukit.tensor.scores import sentence_bleu as tensor_sentence_bleu
from bleukit.tensor.scores import statistics as tensor_statistics
from bleukit.token_ids import TOKEN_ID_OPTION_NAMES, token_id_rule

TOKEN_IDS_CONFIG = "token_ids"
# The run options and their defaults, in check_run_options' order (read off it).
RUN_OPTION_DEFAULTS = {name: parameter.default for name, parameter in
                       inspect.signature(check_run_options).parameters.items()}
# The scripts, installed beside this package (as modules) or standing beside it in a clone.
SCRIPTS = Path(__file__).resolve().parent.parent


def load(**options: Any) -> evaluate.EvaluationModule:
    """The BLEU metric: `evaluate.load` of the installed `bleu_metric.py`; `options` become its defaults
    (`bleukit.load(smooth="exp")`), and evaluate's own settings (config_name, ...) pass through."""
    return evaluate.load(str(SCRIPTS / "bleu_metric.py"), **options)


def load_comparison(**options: Any) -> evaluate.EvaluationModule:
    """The paired significance test of two systems: `evaluate.load` of the installed `bleu_comparison.py`."""
    return evaluate.load(str(SCRIPTS / "bleu_comparison.py"), module_type="comparison", **options)


def _check_option_names(kwargs: Dict[str, Any]) -> None:
    check_option_names(kwargs, OPTION_NAMES + RUN_OPTION_NAMES + TOKEN_ID_OPTION_NAMES, "BLEU takes")




def _load_time_defaults(options: Dict[str, Any]) -> Dict[str, Any]:
    """`evaluate.load(path, smooth="exp", ...)`: the metric's options given at load time, checked now
    (an error names the keyword), to be its defaults. evaluate itself would drop them silently."""
    check_option_names(options, ("with_signature", *init_keywords(evaluate.EvaluationModule), *OPTION_NAMES,
                                 *RUN_OPTION_NAMES), "at load time BLEU takes evaluate's settings, and its options "
                       "(they become its defaults):", at_load_time=True)
    _check_values(options)
    return options


def _check_values(options: Dict[str, Any]) -> None:
    """Every value of a call's (or load time's) options checked, as compute would check them, before
    any work: the scoring options (the text-only defaults among them), the token-id rule, the run
    options."""
    resolve_options(**{k: v for k, v in {**options.get("text_defaults", {}), **options}.items() if k in OPTION_NAMES})
    token_id_rule(**{k: v for k, v in options.items() if k in TOKEN_ID_OPTION_NAMES})
    check_run_options(*(options.get(name, default) for name, default in RUN_OPTION_DEFAULTS.items()))


def _materialized(predictions: Any, references: Any) -> tuple:
    """Both inputs as lists (a `datasets` Column, Arrow array or generator read once), so the
    checks and `evaluate`'s cache see the same items; a missing one stays None for the checks."""
    return tuple(None if value is None else as_list(value, name)
                 for value, name in ((predictions, "predictions"), (references, "references")))


class BleuMetricMethods:
    """The BLEU metric's behaviour, mixed into the script's `evaluate.Metric` subclass."""

    def __init__(self, *args: Any, with_signature: bool = True, **kwargs: Any) -> None:
        """`evaluate.load(path, with_signature=False)` leaves the signature string out of the result
        dict (for `evaluate.evaluator(...)`'s bootstrap, which resamples every key of the result);
        it stays readable as `metric.signature` after each compute.

        `evaluate.load(path, smooth="exp", tokenizer="intl", ...)`: the options given at load time
        become this metric's defaults (`default_options`), for compute and every method; an option
        passed to a call overrides them. An unknown keyword is an error, never dropped."""
        if not isinstance(with_signature, bool):
            raise TypeError(f"with_signature must be True or False, not {with_signature!r}")
        self.with_signature = with_signature
        self.signature: Optional[str] = None  # the signature of the last result
        settings, options = split_load_keywords(kwargs, evaluate.EvaluationModule)
        self.default_options = _load_time_defaults(options)
        super().__init__(*args, **settings)

    def _options(self, options: Dict[str, Any], token_ids: bool = False, run: bool = False) -> Dict[str, Any]:
        """A call's options over the load-time defaults, under this module's names. `run`: the
        per-call options of compute too; `token_ids`: without the text-only options."""
        defaults = {k: v for k, v in self.default_options.items()
                    if (run or k in OPTION_NAMES) and not (token_ids and k in TEXT_ONLY_OPTIONS)}
        return {**defaults, **canonical_options(options)}

    def _options_by_kind(self, options: Dict[str, Any], run: bool = False) -> Dict[str, Any]:
        """A call's options over the load-time defaults for a call whose inputs may be text or token
        ids: the text-only defaults travel apart, as `text_defaults`, so they never reach token ids."""
        defaults = {k: v for k, v in self.default_options.items() if run or k in OPTION_NAMES}
        merged, text_defaults = split_text_defaults(defaults, canonical_options(options))
        return {**merged, "text_defaults": text_defaults} if text_defaults else merged

    def _with_signature_as_asked(self, result: Optional[Dict[str, Any]]) -> Optional[Dict[str, Any]]:
        if result is None:  # the processes other than 0 in evaluate's distributed mode
            return None
        self.signature = result["signature"]
        if not self.with_signature:
            result = {key: value for key, value in result.items() if key != "signature"}
        return result

    @property
    def _input_kind(self) -> Optional[str]:
        """`token_ids` under the token_ids config; None (detect from the input) otherwise."""
        return TOKEN_IDS if self.config_name == TOKEN_IDS_CONFIG else None

    def compute(self, *, predictions=None, references=None, **kwargs) -> Optional[Dict[str, Any]]:
        """Check the inputs and options as the user gave them, then compute BLEU.

        Checking happens before `evaluate` casts the inputs to the declared features, so a
        malformed input gets an error that names it instead of a silently different score.
        """
        kwargs = self._options_by_kind(kwargs, run=True)
        _check_option_names({k: v for k, v in kwargs.items() if k != "text_defaults"})
        if predictions is not None and references is not None and self.num_process == 1 and self.writer is None:
            # All the data in this one call: score it directly. Going through evaluate's Arrow
            # cache would only copy it (docs/performance.md has the numbers);
            # streaming (add_batch) and distributed runs (num_process > 1) take evaluate's path.
            return self._with_signature_as_asked(
                compute_bleu(predictions, references, kind=self._input_kind, **kwargs)
            )
        _check_values(kwargs)
        if predictions is not None or references is not None:
            predictions, references = _materialized(predictions, references)
            validate_inputs(predictions, references, self._input_kind)
        return self._with_signature_as_asked(
            super().compute(predictions=predictions, references=references, **kwargs)
        )

    def add_batch(self, *, predictions=None, references=None, **kwargs) -> None:
        """Check one batch as the user gave it, then add it to the evaluation cache."""
        predictions, references = _materialized(predictions, references)
        validate_inputs(predictions, references, self._input_kind)
        super().add_batch(predictions=predictions, references=references, **kwargs)

    def add(self, *, prediction=None, reference=None, **kwargs) -> None:
        """Check one example as the user gave it, then add it to the evaluation cache."""
        validate_inputs([prediction], [reference], self._input_kind)
        super().add(prediction=prediction, reference=reference, **kwargs)

    def compute_from_cache(self, predictions: Any, references: Any, **kwargs: Any) -> Dict[str, Any]:
        """The script's `_compute`: BLEU of what evaluate's cache holds (add_batch, distributed)."""
        return compute_bleu(predictions, references, kind=self._input_kind, **kwargs)

    def trainer_compute_metrics(
        self,
        hf_tokenizer: Any = None,
        /,
        *,
        scale: float = 1,
        with_signature: bool = False,
        eval_examples: Optional[int] = None,
        token_ids: bool = False,
        ignore_ids: Sequence[int] = (),
        pad_id: Optional[int] = None,
        **options: Any,
    ) -> BleuComputeMetrics:
        """A `compute_metrics` for transformers' (Seq2Seq)Trainer, streaming-ready; see
        `bleukit.integrations.trainer`.

        `hf_tokenizer` decodes predictions and labels (a transformers tokenizer passed as
        `tokenizer=` alone is taken as it); `scale` is 1 (BLEU in 0..1) or 100; `with_signature`
        adds the signature string to the metrics; `eval_examples=len(eval_dataset)` drops the padding
        duplicates of a multi-process evaluation; the options are this metric's (tokenizer="13a",
        lowercase, max_order, smooth, ...). `token_ids=True` scores the generated ids against the
        label ids without decoding (the token-id rule: negative ids and `ignore_ids`, alias `pad_id`,
        dropped, the tokenizer's special ids among them; signature `tok:ids`):
        a fast in-training signal, never comparable with text BLEU.
        """
        return make_compute_metrics(
            hf_tokenizer, scale=scale, with_signature=with_signature, eval_examples=eval_examples,
            token_ids=token_ids, ignore_ids=ignore_ids, pad_id=pad_id, **self._options(options, token_ids=token_ids),
        )

    def reward_function(self, *, reference_column: str = "reference", scale: float = 1, **options: Any) -> BleuReward:
        """Sentence BLEU as a TRL reward function (`GRPOTrainer(reward_funcs=...)`); see
        `bleukit.integrations.reward`.

        References come from the dataset column `reference_column`; the options are this metric's,
        over the reward defaults smooth="exp", effective_order=True; `token_ids=True` (with
        `ignore_ids`, alias `pad_id`) scores `completion_ids` against references of token ids.
        """
        return make_reward_function(reference_column=reference_column, scale=scale,
                                    **self._options(options, token_ids=bool(options.get("token_ids"))))

    def statistics(self, predictions: Any, references: Any, per_segment: bool = False, **options: Any):
        """BLEU's additive statistics (an int64 row, or one row per segment); see `bleukit.streaming`."""
        return statistics(predictions, references, per_segment=per_segment, **self._options_by_kind(options))

    def score_from_statistics(self, totals: Any, num_refs: Any = None, **options: Any) -> Dict[str, Any]:
        """The result dict from summed (or per-segment) statistics and the same options;
        `num_refs` (an int, or one count per segment) for the signature, else `nrefs:?`."""
        return score_from_statistics(totals, num_refs=num_refs, **self._options_by_kind(options))

    def accumulator(self, **options: Any) -> BleuAccumulator:
        """Running statistics in constant memory: `.add(predictions, references)`, `.result()`."""
        return BleuAccumulator(**self._options(options))

    def compare(self, systems: Any, references: Any, **kwargs: Any) -> Dict[str, Any]:
        """Paired significance tests of systems against a baseline, as sacreBLEU runs them.

        `compare({"A": predictions_a, "B": predictions_b}, references, method="bootstrap" or "ar",
        baseline="A", bootstrap_samples=None, trials=None, seed=12345, count_ties=False, **options)`
        (the older samples= and confidence_samples= still work): one dict per
        system (bleu, p_value against the baseline, bootstrap mean and 95% half-width ci, ...),
        the baseline first. Pass smooth="exp" for sacreBLEU's numbers; see `bleukit.significance`.
        """
        return compare(systems, references, **self._options(kwargs))

    def tensor_statistics(self, predictions: Any, references: Any, *, per_segment: bool = False, **options: Any):
        """Statistics of padded torch.long id tensors, int64 on their device (all-reducible); see
        `bleukit.tensor`. Name the padding: `ignore_ids=(pad_token_id,)` (alias `pad_id=`), or
        `ignore_ids=()` when -100 is the only padding."""
        return tensor_statistics(predictions, references, per_segment=per_segment, **self._options(options, token_ids=True))

    def tensor_sentence_bleu(self, predictions: Any, references: Any, **options: Any):
        """Sentence BLEU of padded torch.long id tensors: float64 (B,) on their device; see `bleukit.tensor`."""
        return tensor_sentence_bleu(predictions, references, **self._options(options, token_ids=True))

    def tensor_corpus_bleu(self, predictions: Any, references: Any, **options: Any) -> Dict[str, Any]:
        """The result dict (signature tok:ids) of padded torch.long id tensors; see `bleukit.tensor`."""
        return tensor_corpus_bleu(predictions, references, **self._options(options, token_ids=True))

    def pairwise(self, texts_a: Any, texts_b: Any = None, **options: Any) -> Dict[str, Any]:
        """Sentence BLEU of every text of `texts_a` against every text of `texts_b` (default: `texts_a`)
        as its one reference: {"bleu": (len(a), len(b)) float64 array, "signature"}; see
        `bleukit.diversity`. Defaults are sacreBLEU's sentence_bleu (smooth="exp", effective_order=True)."""
        return pairwise(texts_a, texts_b, **self._options(options))

    def self_bleu(self, texts: Any, **options: Any) -> Dict[str, Any]:
        """Each text against all the others of its set as references: self_bleu (the mean),
        sentence_bleu, corpus_bleu, fairseq's pairwise_bleu, signature; `convention="nltk"` gives
        NLTK's (Texygen's, fast-bleu's) numbers; see `bleukit.diversity`."""
        return self_bleu(texts, **self._options(options))

    def most_similar_pairs(self, texts: Any, top: int = 10, **options: Any) -> Dict[str, Any]:
        """The `top` most similar pairs of a set by sentence BLEU (either direction); see `bleukit.diversity`."""
        return most_similar_pairs(texts, top, **self._options(options))

    def mbr(self, candidates: Any, pseudo_references: Any = None, **options: Any) -> Dict[str, Any]:
        """Minimum Bayes risk decoding with sentence BLEU: chosen, best, expected_bleu (and matrix with
        return_matrix=True) for one source or a batch, lists or torch tensors (name their padding with
        ignore_ids, alias pad_id); token ids follow compute's token-id rule; see `bleukit.diversity`."""
        return mbr(candidates, pseudo_references, **self._options(options))


# ---------------------------------------------------------------- the comparison module


def comparison_result(result: Dict[str, Any]) -> Dict[str, Any]:
    """compare's result for two systems in the flat shape evaluate's comparisons return."""
    first, second = result["systems"]
    return {
        "bleu1": first["bleu"],
        "bleu2": second["bleu"],
        "difference": second["bleu"] - first["bleu"],
        "p_value": second["p_value"],
        "ties": second["ties"],
        "mean1": first["mean"],
        "ci1": first["ci"],
        "mean2": second["mean"],
        "ci2": second["ci"],
        "method": result["method"],
        "samples": result["samples"],
        "seed": result["seed"],
        "count_ties": result["count_ties"],
        "signature": result["signature"],
    }


# The test's settings (beside the scoring options).
SETTINGS = ("method", "bootstrap_samples", "trials", "seed", "count_ties", "samples", "confidence_samples")


def _check_settings(kwargs: Dict[str, Any], evaluate_settings: Optional[Dict[str, Any]] = None) -> None:
    if evaluate_settings is not None:  # at load time
        check_option_names(kwargs, (*init_keywords(evaluate.EvaluationModule), *SETTINGS, *OPTION_NAMES),
                           "at load time the comparison takes evaluate's settings, and its own (they become its "
                           "defaults):", at_load_time=True)
    check_option_names(kwargs, SETTINGS + OPTION_NAMES, "the comparison takes")
    check_compare_options(
        kwargs.get("method", "bootstrap"), {name: kwargs.get(name) for name in COUNT_NAMES},
        kwargs.get("seed", DEFAULT_BOOTSTRAP_SEED), {k: v for k, v in kwargs.items() if k in OPTION_NAMES},
        kwargs.get("count_ties", False),
    )


def _two_systems(predictions1: Any, predictions2: Any) -> Dict[str, Any]:
    return {"predictions1": predictions1, "predictions2": predictions2}


class BleuComparisonMethods:
    """The comparison module's behaviour, mixed into the script's `evaluate.Comparison` subclass."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """`evaluate.load(path, module_type="comparison", method="ar", smooth="exp", ...)`: the test's
        settings and scoring options given at load time become its defaults (`default_options`),
        checked now; an unknown keyword is an error, never dropped."""
        settings, defaults = split_load_keywords(kwargs, evaluate.EvaluationModule)
        _check_settings(defaults, evaluate_settings=settings)
        self.default_options = defaults
        super().__init__(*args, **settings)

    def compute(self, *, predictions1=None, predictions2=None, references=None, **kwargs) -> Optional[Dict[str, Any]]:
        """Check the inputs and options as the user gave them, then run the test.

        Checking happens before `evaluate` casts the inputs to the declared features, so a
        malformed input gets an error that names it instead of a silently different result.
        """
        kwargs = {**self.default_options, **canonical_options(kwargs)}
        _check_settings(kwargs)
        given = (predictions1, predictions2, references)
        if all(value is not None for value in given) and self.num_process == 1 and self.writer is None:
            # All the data in this call: test it directly (evaluate's Arrow cache would only copy it).
            return self.compare_from_cache(predictions1, predictions2, references, **kwargs)
        if any(value is not None for value in given):
            check_systems(_two_systems(predictions1, predictions2), references)
        return super().compute(predictions1=predictions1, predictions2=predictions2, references=references, **kwargs)

    def add_batch(self, *, predictions1=None, predictions2=None, references=None, **kwargs) -> None:
        """Check one batch as the user gave it, then add it to the evaluation cache."""
        check_systems(_two_systems(predictions1, predictions2), references)
        super().add_batch(predictions1=predictions1, predictions2=predictions2, references=references, **kwargs)

    def compare_from_cache(self, predictions1: Any, predictions2: Any, references: Any, **kwargs: Any) -> Dict[str, Any]:
        """The script's `_compute`: the test of two systems, in evaluate's flat shape."""
        return comparison_result(compare(_two_systems(predictions1, predictions2), references, **kwargs))
