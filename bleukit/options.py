"""The options of a BLEU computation: checked once, named once, and written into the signature.

`resolve_options` turns the keyword arguments users pass (to the metric, the CLI, the Trainer
hook or the demo) into a frozen `BleuOptions`, or raises a ValueError/TypeError that says what was
wrong and what to pass instead. `BleuOptions.signature` is the sacreBLEU-style reproducibility
string: every option that can change the number is in it.
"""

from __future__ import annotations

import functools
import inspect
import math
import numbers
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterable, Mapping, Optional, Sequence, Tuple

import numpy as np

from bleukit.scoring import LEGACY_ADD_ONE, SMOOTHING_DEFAULTS, statistics_orders
from bleukit.counting.stats import check_ref_length
from bleukit.tokenizers.registry import BaseTokenizer, TokenizerSpec, get_tokenizer

from bleukit.version import SIGNATURE_VERSION, __version__  # noqa: F401 - __version__ re-exported

DEFAULT_MAX_ORDER = 4
SMOOTH_NAMES = sorted(SMOOTHING_DEFAULTS)


@dataclass(frozen=True)
class BleuOptions:
    tokenizer: BaseTokenizer
    lowercase: bool = False
    max_order: int = DEFAULT_MAX_ORDER
    weights: Tuple[float, ...] = (0.25, 0.25, 0.25, 0.25)
    smooth: str = "none"
    smooth_value: Optional[float] = None  # the value in force; None for methods without one
    ref_length: str = "closest"
    effective_order: bool = False

    @property
    def orders(self) -> int:
        """How many n-gram orders the statistics count (one more for method 5 and 7)."""
        return statistics_orders(self.max_order, self.smooth)

    def signature(self, num_refs: Sequence[int] | int | str | None) -> str:
        """A reproducibility string in sacreBLEU's style, e.g.
        `nrefs:1|case:mixed|eff:no|tok:13a|smooth:none|reflen:closest|order:4|version:bleu_metric-1.0.0`.
        `num_refs` is an int, one count per segment, "var", or None when unknown (`nrefs:?`). Counts
        that differ between segments sign `nrefs:var`, as sacreBLEU does: one rule whether the counts
        were seen (texts, tensors) or only recorded as varying (summed token-id statistics)."""
        if num_refs is None:  # statistics from elsewhere, their references unknown
            refs = "?"
        elif isinstance(num_refs, (int, str)):
            refs = str(num_refs)
        else:
            counts = np.asarray(num_refs)
            low, high = (int(counts.min()), int(counts.max())) if counts.size else (0, 0)
            refs = str(low) if low == high else "var"
        smooth = self.smooth
        if self.smooth_value is not None:
            smooth += f"[{self.smooth_value:g}]"
        uniform = all(math.isclose(w, 1.0 / self.max_order, rel_tol=1e-12) for w in self.weights)
        shape = f"order:{self.max_order}" if uniform else "weights:" + ",".join(f"{w:g}" for w in self.weights)
        return "|".join(
            [
                f"nrefs:{refs}",
                f"case:{'lc' if self.lowercase else 'mixed'}",
                f"eff:{'yes' if self.effective_order else 'no'}",
                f"tok:{self.tokenizer.signature()}",
                f"smooth:{smooth}",
                f"reflen:{self.ref_length}",
                shape,
                f"version:{SIGNATURE_VERSION}",
            ]
        )


def _check_bool(name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be True or False, not {value!r}")
    return value


def _resolve_smooth(smooth: Any) -> str:
    if smooth is False or smooth is None:
        return "none"
    if smooth is True:
        return LEGACY_ADD_ONE
    if isinstance(smooth, str):
        name = "none" if smooth == "method0" else smooth
        if name in SMOOTHING_DEFAULTS:
            return name
    raise ValueError(
        f"unknown smooth {smooth!r}; pass False (no smoothing), True (evaluate's legacy add-one), "
        f"or one of {SMOOTH_NAMES}"
    )


def _resolve_weights(weights: Any, max_order: Optional[int]) -> Tuple[int, Tuple[float, ...]]:
    if max_order is not None:
        if isinstance(max_order, bool) or not isinstance(max_order, numbers.Integral):
            raise TypeError(f"max_order must be an integer >= 1, not {max_order!r}")
        if max_order < 1:
            raise ValueError(f"max_order must be an integer >= 1, not {max_order}")
        max_order = int(max_order)
    if weights is None:
        order = DEFAULT_MAX_ORDER if max_order is None else max_order
        return order, tuple([1.0 / order] * order)
    if isinstance(weights, (str, bytes)) or not hasattr(weights, "__len__"):
        raise TypeError(f"weights must be a sequence of non-negative numbers, one per order, not {weights!r}")
    values = list(weights)
    if not values:
        raise ValueError("weights is empty; pass one non-negative number per n-gram order, e.g. (0.5, 0.5)")
    for position, w in enumerate(values):
        if isinstance(w, bool) or not isinstance(w, numbers.Real) or not math.isfinite(w) or w < 0:
            raise ValueError(f"weights[{position}] is {w!r}; every weight must be a finite number >= 0")
    if not any(w > 0 for w in values):
        raise ValueError("all weights are 0; at least one order needs a positive weight")
    if max_order is not None and len(values) != max_order:
        raise ValueError(
            f"weights has {len(values)} entries but max_order is {max_order}; pass one weight per "
            "order, or leave max_order out and the length of weights sets it"
        )
    return len(values), tuple(float(w) for w in values)


# sacreBLEU's (and `evaluate`'s `sacrebleu` metric's) names for this module's options: accepted
# wherever options are, and mapped onto these. (lowercase, smooth_value and effective_order are
# the same in both.)
SACREBLEU_OPTION_NAMES = {
    "tokenize": "tokenizer",
    "smooth_method": "smooth",
    "max_ngram_order": "max_order",
    "use_effective_order": "effective_order",
    "trg_lang": "target_language",
}
# sacreBLEU keywords that change nothing here, accepted as it accepts them (`force` only silences
# its warning about tokenized input).
NO_EFFECT_OPTIONS = ("force",)


def canonical_options(options: Mapping[str, Any]) -> Dict[str, Any]:
    """`options` under this module's names: sacreBLEU's names mapped (tokenize= is tokenizer=, ...),
    `force` dropped (it changes no number), anything else left as it is for the caller to check.
    A name given both ways is a TypeError that says what to pass."""
    canonical: Dict[str, Any] = {}
    for name, value in options.items():
        if name in NO_EFFECT_OPTIONS:
            _check_bool(name, value)
            continue
        ours = SACREBLEU_OPTION_NAMES.get(name, name)
        if ours != name:
            if ours in options:
                raise TypeError(f"{name}= is sacreBLEU's name for {ours}=; pass one of them, not both")
            if name == "tokenize" and value is None:  # sacreBLEU's None: pick by trg_lang, as our "auto"
                continue
        canonical[ours] = value
    return canonical


# Options that mean something for text only: load-time defaults of these never reach token-id inputs
# (an option of the call itself that cannot apply to ids is still an error).
TEXT_ONLY_OPTIONS = ("tokenizer", "lowercase", "target_language")


def split_text_defaults(defaults: Mapping[str, Any], given: Mapping[str, Any]) -> Tuple[Dict[str, Any], Dict[str, Any]]:
    """Load-time `defaults` under a call's `given` options: (the options for any input, the text-only
    defaults the call did not override, which apply only where the inputs turn out to be text)."""
    text_defaults = {k: v for k, v in defaults.items() if k in TEXT_ONLY_OPTIONS and k not in given}
    return {**{k: v for k, v in defaults.items() if k not in text_defaults}, **given}, text_defaults


def resolve_by_kind(options: Mapping[str, Any], text_defaults: Optional[Mapping[str, Any]] = None
                    ) -> Tuple["BleuOptions", "BleuOptions"]:
    """(the options for text, the options for token ids): a call's `options`, over the text-only
    load-time `text_defaults` for text only; one object for both where there are none."""
    for_ids = resolve_options(**options)
    return (resolve_options(**{**text_defaults, **options}) if text_defaults else for_ids), for_ids


def init_keywords(module_class: type) -> Tuple[str, ...]:
    """The named keywords of a class's `__init__`: for evaluate's module class, its own settings
    (config_name, cache_dir, ...)."""
    return tuple(
        name for name, parameter in inspect.signature(module_class.__init__).parameters.items()
        if name != "self" and parameter.kind is not inspect.Parameter.VAR_KEYWORD
    )


def split_load_keywords(kwargs: Mapping[str, Any], module_class: type) -> Tuple[Dict[str, Any], Dict[str, Any]]:
    """`evaluate.load(path, ...)`'s keywords, split into the module class's own `__init__`
    keywords (evaluate's settings) and the rest, the options that evaluate would otherwise drop
    silently, under this module's names."""
    named = init_keywords(module_class)
    settings = {name: value for name, value in kwargs.items() if name in named}
    return settings, canonical_options({name: value for name, value in kwargs.items() if name not in named})


def check_option_names(options: Iterable[str], accepted: Sequence[str], who: str = "the scoring options are",
                       *, at_load_time: bool = False) -> None:
    """The one place an unknown option is reported. `accepted`: every name the caller takes (its own
    settings, then BLEU's); `who` says whose they are ("the Trainer hook takes", ...). At load time
    the keyword went to `evaluate.load`, and the message says so."""
    unknown = sorted(set(options) - set(accepted))
    if unknown:
        what = "evaluate.load(...) got unknown keyword(s)" if at_load_time else "unknown option(s)"
        raise TypeError(f"{what} {unknown}; {who} {list(accepted)} "
                        f"(sacreBLEU's names {sorted(SACREBLEU_OPTION_NAMES)} work too)")


def _accepting_sacrebleu_names(resolve: Callable[..., BleuOptions]) -> Callable[..., BleuOptions]:
    """`resolve` taking sacreBLEU's option names too (mapped by `canonical_options`), and naming
    an unknown option with the list of known ones. Its signature (and so OPTION_NAMES and the
    documented defaults) stays `resolve`'s."""

    @functools.wraps(resolve)
    def resolve_with_any_names(**options: Any) -> BleuOptions:
        options = canonical_options(options)
        check_option_names(options, OPTION_NAMES)
        return resolve(**options)

    return resolve_with_any_names


@_accepting_sacrebleu_names
def resolve_options(
    tokenizer: TokenizerSpec = "auto",
    lowercase: bool = False,
    max_order: Optional[int] = None,
    weights: Optional[Sequence[float]] = None,
    smooth: Any = False,
    smooth_value: Optional[float] = None,
    ref_length: str = "closest",
    effective_order: bool = False,
    target_language: Optional[str] = None,
) -> BleuOptions:
    """Check every option and return them resolved; see the card's Inputs table (README.md). sacreBLEU's
    names (`SACREBLEU_OPTION_NAMES`) work too.

    `tokenizer="auto"` is sacreBLEU's recommended tokenizer for `target_language` (ja-mecab, ko-mecab,
    zh; 13a for other languages or none given); the signature names the tokenizer picked."""
    order, resolved_weights = _resolve_weights(weights, max_order)
    method = _resolve_smooth(smooth)
    default_value = SMOOTHING_DEFAULTS[method]
    if smooth_value is not None:
        if default_value is None:
            takes = sorted(k for k, v in SMOOTHING_DEFAULTS.items() if v is not None)
            raise ValueError(f"smooth={smooth!r} takes no smooth_value; smooth_value applies to {takes}")
        if isinstance(smooth_value, bool) or not isinstance(smooth_value, numbers.Real) or not (
            math.isfinite(smooth_value) and smooth_value > 0
        ):
            raise ValueError(f"smooth_value must be a finite number > 0, not {smooth_value!r}")
    check_ref_length(ref_length)
    return BleuOptions(
        tokenizer=get_tokenizer(tokenizer, target_language),
        lowercase=_check_bool("lowercase", lowercase),
        max_order=order,
        weights=resolved_weights,
        smooth=method,
        smooth_value=None if default_value is None else float(smooth_value if smooth_value is not None else default_value),
        ref_length=ref_length,
        effective_order=_check_bool("effective_order", effective_order),
    )


# The option names, read off the function that checks them, so no list of them can drift.
OPTION_NAMES = tuple(inspect.signature(resolve_options).parameters)
