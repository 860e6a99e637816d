"""The Space's API: three named endpoints that take text or files directly, for `gradio_client`.

    from gradio_client import Client, handle_file
    client = Client("http://127.0.0.1:7860/")            # or the Space's name, "user/bleu"
    client.predict(predictions="the cat sat on the mat", references="the cat sat on a mat", api_name="/score")
    client.predict(hypothesis_file=handle_file("hyp.txt"), reference_files=[handle_file("ref.txt")],
                   tokenizer="13a", bootstrap_samples=1000, api_name="/score")
    client.predict(system_files=[handle_file("a.txt"), handle_file("b.txt")],
                   reference_files=[handle_file("ref.txt")], method="bootstrap", api_name="/compare")
    client.predict(texts="the cat sat\nthe cat sat down\na dog ran", api_name="/diversity")

`/score` returns what `evaluate.load("bleu_metric.py").compute(...)` returns; `/compare` what
`bleukit.significance.compare.compare(...)` returns; `/diversity` what `bleukit.diversity.pairwise.self_bleu(...)` returns, with
the most similar pairs. None keeps anything in the session. The page's own events
(clicks, examples, paging) are private: they are not part of the API, and `api_guard` refuses any
call of them by name (Gradio's "private" only hides them from its docs and from gradio_client).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

import gradio as gr
from gradio import FileData

from bleukit.significance.compare import compare as compare_systems
from bleukit.core import DEFAULT_BOOTSTRAP_SEED, compute_bleu
from bleukit.diversity.pairwise import PAIR_SEARCH_LIMIT, most_similar_pairs, self_bleu

from .compare_view import MAX_TEST_SAMPLES, parse_systems, systems_from_files
from .diversity_view import options_of, read_texts
from .inputs import (
    INPUT_ERRORS,
    SOURCE_FILES,
    SOURCE_TEXT,
    as_file_list,
    check_pasted_size,
    check_resamples,
    corpus_from_text_or_files,
    parse_reference_sets,
    references_from_files,
    references_per_segment,
)


def _options(tokenizer, lowercase, max_order, weights, smooth, smooth_value, ref_length, effective_order) -> dict:
    options: Dict[str, Any] = {"tokenizer": tokenizer, "lowercase": lowercase, "smooth": smooth,
                               "ref_length": ref_length, "effective_order": effective_order}
    if weights:
        options["weights"] = weights
    else:
        options["max_order"] = max_order
    if smooth_value is not None:
        options["smooth_value"] = smooth_value
    return options


def score(
    predictions: str = "",
    references: str = "",
    hypothesis_file: Optional[FileData] = None,
    reference_files: Optional[List[FileData]] = None,
    tokenizer: str = "13a",
    lowercase: bool = False,
    max_order: int = 4,
    weights: Optional[List[float]] = None,
    smooth: str = "none",
    smooth_value: Optional[float] = None,
    ref_length: str = "closest",
    effective_order: bool = False,
    return_sentence_scores: bool = False,
    bootstrap_samples: int = 0,
    bootstrap_seed: Optional[int] = DEFAULT_BOOTSTRAP_SEED,
) -> Dict[str, Any]:
    """BLEU of a corpus: the metric's result dict (bleu, precisions, brevity_penalty, length_ratio,
    translation_length, reference_length, signature; sentence_bleu and the bootstrap interval when asked).

    Predictions as text (one per line) or a hypothesis file; references as text (one line per segment,
    reference sets separated by a line `---`) or one file per reference set. The options are the
    metric's (`weights` set the order; `bootstrap_seed` None draws fresh randomness); `bootstrap_samples`
    at most 10,000, as on the page."""
    try:
        check_resamples(bootstrap_samples, "bootstrap_samples", "this Space's API")
        preds, refs = corpus_from_text_or_files(predictions, references, hypothesis_file, reference_files)
        return compute_bleu(preds, refs, return_sentence_scores=return_sentence_scores,
                            bootstrap_samples=bootstrap_samples, bootstrap_seed=bootstrap_seed,
                            **_options(tokenizer, lowercase, max_order, weights, smooth, smooth_value, ref_length,
                                       effective_order))
    except INPUT_ERRORS as error:
        raise gr.Error(str(error), print_exception=False) from None


def compare(
    systems: str = "",
    references: str = "",
    system_files: Optional[List[FileData]] = None,
    reference_files: Optional[List[FileData]] = None,
    baseline: Optional[str] = None,
    method: str = "bootstrap",
    samples: Optional[int] = None,
    seed: Optional[int] = DEFAULT_BOOTSTRAP_SEED,
    tokenizer: str = "13a",
    lowercase: bool = False,
    max_order: int = 4,
    weights: Optional[List[float]] = None,
    smooth: str = "none",
    smooth_value: Optional[float] = None,
    ref_length: str = "closest",
    effective_order: bool = False,
    count_ties: bool = False,  # last, so that callers passing the others by position keep working
) -> Dict[str, Any]:
    """sacreBLEU's paired significance test of two or more systems against a baseline: bleukit.significance.compare's
    result dict (method, samples, seed, count_ties, baseline, signature, and per system bleu, p_value,
    ties, mean, ci, ...). `count_ties` True counts the resamples or trials that tie the observed
    difference in the p-value (the conservative one); False is sacreBLEU's strict p-value.

    Systems as text (one prediction per line, systems separated by a line `===`, named "system 1",
    "system 2", ...) or one file each (named by the file); references as for /score. `baseline` names
    a system (default: the first); `method` is "bootstrap" (1,000 resamples) or "ar" (10,000 trials);
    `samples` at most 100,000, as on the page."""
    try:
        check_resamples(samples, "samples", "this Space's API", MAX_TEST_SAMPLES)
        if systems and as_file_list(system_files):
            raise ValueError("give the systems as text or as system files, not both")
        if as_file_list(system_files):
            named = systems_from_files(as_file_list(system_files))
        else:
            check_pasted_size("systems", systems, "file")
            named = parse_systems(systems)
        if len(named) < 2:
            raise ValueError(f"pass two or more systems (found {len(named)}): as text separated by a line ===, "
                             "or as system_files")
        count = len(next(iter(named.values())))
        if as_file_list(reference_files):
            if references:
                raise ValueError("give the references as text or as reference files, not both")
            refs = references_from_files(reference_files, count)
        else:
            check_pasted_size("references", references, "file")
            refs = references_per_segment(parse_reference_sets(references), count)
        return compare_systems(named, refs, baseline=baseline, method=method, samples=samples, seed=seed,
                               count_ties=count_ties, **_options(tokenizer, lowercase, max_order, weights, smooth, smooth_value,
                                          ref_length, effective_order))
    except INPUT_ERRORS as error:
        raise gr.Error(str(error), print_exception=False) from None


def diversity(
    texts: str = "",
    file: Optional[FileData] = None,
    tokenizer: str = "13a",
    lowercase: bool = False,
    max_order: int = 4,
    convention: str = "sacrebleu",
    top: int = 10,
) -> Dict[str, Any]:
    """Self-BLEU of a set of texts (each against all the others): bleukit.diversity.pairwise.self_bleu's result
    (self_bleu, sentence_bleu, corpus_bleu, pairwise_bleu, signature) and `pairs`, the `top` most
    similar pairs (i, j from 0, bleu, bleu_ij, bleu_ji; searched for up to 10,000 texts, else None).

    Texts as text (one per line) or a file; `convention` "sacrebleu" (sentence_bleu's exp smoothing and
    effective order) or "nltk" (NLTK's method1: Texygen's and fast-bleu's numbers)."""
    try:
        if texts and file:
            raise ValueError("give the texts as text or as a file, not both")
        lines = read_texts(SOURCE_FILES if file else SOURCE_TEXT, texts, file)
        options = options_of(tokenizer, lowercase, max_order, convention)
        result = self_bleu(lines, **options)
        searched = len(lines) <= PAIR_SEARCH_LIMIT and top > 0
        pairs = most_similar_pairs(lines, top, **options)["pairs"] if searched else None
        return {**result, "pairs": pairs}
    except INPUT_ERRORS as error:
        raise gr.Error(str(error), print_exception=False) from None


def add_api_endpoints() -> None:
    """Register /score, /compare and /diversity on the Blocks being built.

    Each runs up to 4 calls at once (Gradio's default is 1 per endpoint: every /score waited for all
    the /score calls ahead of it, so one large corpus held up every small one; they are pure
    functions, safe on threads) and drops its caller's session when it returns (the API keeps nothing
    there; Gradio kept each call's whole input in it: `session_memory.forget_session_after`).
    Measured with bench/app_load.py (docs/demo.md, "Sessions and memory")."""
    from .session_memory import forget_session_after

    for fn, name in ((score, "score"), (compare, "compare"), (diversity, "diversity")):
        gr.api(forget_session_after(fn), api_name=name, concurrency_limit=4)

