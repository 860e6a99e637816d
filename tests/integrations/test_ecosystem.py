"""Inputs as users hold them in the Hugging Face ecosystem (issue 11).

`datasets` >= 4 hands out a lazy `Column` for `ds["name"]`; Arrow, pandas and generators are other
ways a corpus arrives. Every one must score exactly as the same data in plain lists (our own text
path is the oracle), and sacreBLEU agrees with that number.
"""

from __future__ import annotations

import datasets
import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
import sacrebleu

import bleukit.streaming as bleu_streaming

PREDICTIONS = ["the cat sat on the mat", "a dog ran in the park", "it is raining today"]
REFERENCES = [["the cat sat on a mat", "a cat sat on the mat"], ["a dog ran through the park"],
              ["it rains today", "today it is raining", "it is raining"]]
SINGLE = [group[0] for group in REFERENCES]


@pytest.fixture(scope="module")
def corpus() -> datasets.Dataset:
    return datasets.Dataset.from_dict({"prediction": PREDICTIONS, "references": REFERENCES, "reference": SINGLE})


def expected(references):
    return bleu_streaming.score_from_statistics(
        bleu_streaming.statistics(PREDICTIONS, references), num_refs=[len(r) if isinstance(r, list) else 1 for r in references]
    )


def test_sacrebleu_agrees_with_the_list_oracle():
    # sacreBLEU needs the same number of references per segment: pad with the first one's copies
    # is not neutral, so compare the single-reference corpus.
    ours = expected(SINGLE)["bleu"] * 100
    assert ours == pytest.approx(sacrebleu.corpus_bleu(PREDICTIONS, [SINGLE], smooth_method="none").score, rel=1e-12)


@pytest.mark.parametrize("reference_column", ["references", "reference"])
def test_dataset_columns_score_like_lists(bleu, corpus, reference_column):
    references = corpus[reference_column]
    assert type(references).__name__ == "Column"  # datasets >= 4: not a list
    oracle = expected(REFERENCES if reference_column == "references" else SINGLE)
    assert bleu.compute(predictions=corpus["prediction"], references=references) == oracle
    bleu.add_batch(predictions=corpus["prediction"], references=references)
    assert bleu.compute() == oracle
    for prediction, reference in zip(corpus["prediction"], references):
        bleu.add(prediction=prediction, reference=reference)
    assert bleu.compute() == oracle
    assert (bleu.statistics(corpus["prediction"], references) == bleu_streaming.statistics(
        PREDICTIONS, REFERENCES if reference_column == "references" else SINGLE)).all()
    running = bleu.accumulator()
    running.add(corpus["prediction"], references)
    assert running.result() == oracle


def test_formatted_and_arrow_columns_score_like_lists(bleu, corpus):
    oracle = expected(REFERENCES)
    numpy_corpus = corpus.with_format("numpy")
    assert bleu.compute(predictions=numpy_corpus["prediction"], references=numpy_corpus["references"]) == oracle
    arrow = corpus.data  # pyarrow Table: ChunkedArray columns
    assert bleu.compute(predictions=arrow["prediction"], references=arrow["references"]) == oracle
    assert bleu.compute(predictions=pa.array(PREDICTIONS), references=pa.array(REFERENCES)) == oracle
    frame = corpus.to_pandas()
    assert bleu.compute(predictions=frame["prediction"], references=frame["references"]) == oracle


def test_generators_are_read_once(bleu):
    oracle = expected(REFERENCES)
    assert bleu.compute(predictions=(p for p in PREDICTIONS), references=iter(REFERENCES)) == oracle
    bleu.add_batch(predictions=(p for p in PREDICTIONS), references=(r for r in REFERENCES))
    assert bleu.compute() == oracle
    assert (bleu_streaming.statistics(iter(PREDICTIONS), iter(REFERENCES)) == bleu_streaming.statistics(
        PREDICTIONS, REFERENCES)).all()


@pytest.mark.parametrize(
    "predictions, words",
    [("the cat", ["single string", "['the cat']"]), (b"the cat", ["single bytes"]),
     ({"prediction": "the cat"}, ["dict", "predictions=[batch['prediction']]"]), ({"the cat"}, ["set", "no order"])],
    ids=["str", "bytes", "dict", "set"],
)
def test_non_sequences_are_still_rejected(bleu, predictions, words):
    with pytest.raises(TypeError) as raised:
        bleu.compute(predictions=predictions, references=["the cat"])
    for word in words:
        assert word in str(raised.value)


# ---------------------------------------------------------------- one kind of input per accumulator

TEXT_PREDICTIONS = ["7 3 9 4", "5 5 2"]
TEXT_REFERENCES = ["7 3 9 4 1", "5 2"]
ID_PREDICTIONS = [[7, 3, 9, 4], [5, 5, 2]]
ID_REFERENCES = [[7, 3, 9, 4, 1], [5, 2]]


def test_the_first_batch_fixes_the_kind():
    text_first = bleu_streaming.BleuAccumulator(tokenizer="none")
    text_first.add(TEXT_PREDICTIONS, TEXT_REFERENCES)
    held = text_first.result()
    with pytest.raises(ValueError, match="holds statistics of text, but this batch is token ids"):
        text_first.add(ID_PREDICTIONS, ID_REFERENCES)
    assert text_first.result() == held  # nothing mixed in
    assert "tok:none" in held["signature"]

    ids_first = bleu_streaming.BleuAccumulator()
    ids_first.add(ID_PREDICTIONS, ID_REFERENCES)
    with pytest.raises(ValueError, match="holds statistics of token ids, but this batch is text"):
        ids_first.add(TEXT_PREDICTIONS, TEXT_REFERENCES)
    # The same tokens as ids and as whitespace-split text: the text path is the oracle.
    assert ids_first.result()["bleu"] == held["bleu"]
    assert "tok:ids" in ids_first.result()["signature"]
    # reset() forgets the kind and the options the ids implied: text scores with 13a again.
    ids_first.reset()
    ids_first.add(TEXT_PREDICTIONS, TEXT_REFERENCES)
    assert "tok:13a" in ids_first.result()["signature"]
    assert ids_first.result()["bleu"] == pytest.approx(
        sacrebleu.corpus_bleu(TEXT_PREDICTIONS, [TEXT_REFERENCES], smooth_method="none").score / 100, rel=1e-12)


def test_statistics_alone_do_not_claim_a_number_of_references():
    totals = bleu_streaming.statistics(PREDICTIONS, REFERENCES)
    assert bleu_streaming.score_from_statistics(totals)["signature"].startswith("nrefs:?|")
    assert bleu_streaming.score_from_statistics(totals, num_refs=2)["signature"].startswith("nrefs:2|")
    assert bleu_streaming.score_from_statistics(totals, num_refs=[2, 1, 3])["signature"].startswith("nrefs:var|")
    running = bleu_streaming.BleuAccumulator()
    running.add_statistics(totals)
    assert running.result()["signature"].startswith("nrefs:?|")
    told = bleu_streaming.BleuAccumulator()
    told.add_statistics(totals, num_refs=2)
    assert told.result()["signature"].startswith("nrefs:2|")
    assert running.result()["bleu"] == told.result()["bleu"] == expected(REFERENCES)["bleu"]


# ---------------------------------------------------------------- the Trainer hook's arguments and signature

HOOK_PREDICTIONS = ["the cat sat on the mat", "a dog ran", "big red bird flew over the tree"]
HOOK_REFERENCES = ["the cat sat on a mat", "a quick dog ran", "big red bird flew over a tree"]


@pytest.fixture(scope="module")
def hf_tokenizer():
    pytest.importorskip("transformers")
    from tiny_seq2seq import make_tokenizer

    return make_tokenizer()


def hook_batch(tok):
    def padded(sentences):
        rows = tok(sentences)["input_ids"]
        return np.array([row + [-100] * (10 - len(row)) for row in rows], dtype=np.int64)

    return padded(HOOK_PREDICTIONS), padded(HOOK_REFERENCES)


def test_a_transformers_tokenizer_passed_as_tokenizer_is_the_decoder(bleu, hf_tokenizer):
    expected = bleu.compute(predictions=HOOK_PREDICTIONS, references=HOOK_REFERENCES)
    # sacreBLEU, the independent oracle for the number the hook must log.
    assert expected["bleu"] == pytest.approx(
        sacrebleu.corpus_bleu(HOOK_PREDICTIONS, [HOOK_REFERENCES], smooth_method="none").score / 100, rel=1e-12)
    by_keyword = bleu.trainer_compute_metrics(tokenizer=hf_tokenizer, scale=100)
    assert by_keyword(hook_batch(hf_tokenizer))["bleu"] == expected["bleu"] * 100
    assert by_keyword.signature == expected["signature"]  # BLEU's own tokenizer stays 13a
    positional = bleu.trainer_compute_metrics(hf_tokenizer, tokenizer="none")
    assert "tok:none" in positional.signature
    with pytest.raises(TypeError, match="pass the transformers tokenizer once, as the first argument"):
        bleu.trainer_compute_metrics(hf_tokenizer, tokenizer=hf_tokenizer)
    with pytest.raises(TypeError, match="no transformers tokenizer to decode with"):
        bleu.trainer_compute_metrics(tokenizer="13a")


def test_the_signature_reaches_the_trainer_log_when_asked(bleu, hf_tokenizer, tmp_path):
    from tiny_seq2seq import copy_dataset, make_model
    from transformers import DataCollatorForSeq2Seq, Seq2SeqTrainer, Seq2SeqTrainingArguments

    model = make_model(hf_tokenizer, seed=0)
    evaluation = copy_dataset(hf_tokenizer, 20, seed=2)
    hook = bleu.trainer_compute_metrics(hf_tokenizer, with_signature=True)
    args = Seq2SeqTrainingArguments(str(tmp_path), predict_with_generate=True, per_device_eval_batch_size=8,
                                    report_to="none", use_cpu=True, disable_tqdm=True)
    trainer = Seq2SeqTrainer(model=model, args=args, eval_dataset=evaluation, processing_class=hf_tokenizer,
                             data_collator=DataCollatorForSeq2Seq(hf_tokenizer, model=model), compute_metrics=hook)
    metrics = trainer.evaluate()
    signature = "nrefs:1|case:mixed|eff:no|tok:13a|smooth:none|reflen:closest|order:4|version:bleu_metric-1.0.0"
    assert metrics["eval_signature"] == hook.signature == signature
    assert trainer.state.log_history[-1]["eval_signature"] == signature
    assert isinstance(metrics["eval_bleu"], float)
    without = bleu.trainer_compute_metrics(hf_tokenizer)(hook_batch(hf_tokenizer))
    assert "signature" not in without and all(type(v) is float for v in without.values())


# ---------------------------------------------------------------- evaluate's evaluator and its bootstrap

EVAL_PREDICTIONS = ["the cat sat on the mat", "a dog ran", "it rains today", "big red bird", "old log on a tree",
                    "the quick dog", "small blue cat sat", "a new mat"]
EVAL_REFERENCES = ["the cat sat on a mat", "a quick dog ran", "it is raining today", "big red bird flew",
                   "an old log on a tree", "the quick dog", "a small blue cat sat", "a new red mat"]


def translation_evaluator():
    """evaluate's TranslationEvaluator without its pipeline (which transformers 5 removed), so its
    own `compute_metric` (metric, then scipy's bootstrap on every key of the result) runs as is."""
    pytest.importorskip("scipy")
    from evaluate.evaluator import TranslationEvaluator

    return TranslationEvaluator.__new__(TranslationEvaluator)


def test_evaluators_bootstrap_needs_the_signature_out_of_the_dict(bleu):
    evaluator = translation_evaluator()
    ds = datasets.Dataset.from_dict({"prediction": EVAL_PREDICTIONS, "reference": EVAL_REFERENCES})
    inputs = {"predictions": ds["prediction"], "references": ds["reference"]}  # Columns, as the evaluator passes
    # The default result carries the signature string, which scipy cannot resample.
    with pytest.raises(TypeError):
        evaluator.compute_metric(bleu, inputs, strategy="bootstrap", n_resamples=20, random_state=0)


def test_evaluators_bootstrap_runs_with_with_signature_false():
    import evaluate

    from conftest import REPO

    metric = evaluate.load(str(REPO / "bleu_metric.py"), with_signature=False)
    evaluator = translation_evaluator()
    ds = datasets.Dataset.from_dict({"prediction": EVAL_PREDICTIONS, "reference": EVAL_REFERENCES})
    inputs = {"predictions": ds["prediction"], "references": ds["reference"]}
    simple = evaluator.compute_metric(metric, inputs)
    assert "signature" not in simple
    assert metric.signature == "nrefs:1|case:mixed|eff:no|tok:13a|smooth:none|reflen:closest|order:4|version:bleu_metric-1.0.0"
    sacre = sacrebleu.corpus_bleu(EVAL_PREDICTIONS, [EVAL_REFERENCES], smooth_method="none").score / 100
    assert simple["bleu"] == pytest.approx(sacre, rel=1e-12)
    with np.errstate(all="ignore"), pytest.warns(Warning):  # scipy: BCa is degenerate for the lengths
        booted = evaluator.compute_metric(metric, inputs, strategy="bootstrap", n_resamples=30, random_state=0)
    assert set(booted) == set(simple)
    assert booted["bleu"]["score"] == simple["bleu"]
    low, high = booted["bleu"]["confidence_interval"]
    assert 0 <= low <= high <= 1 and booted["bleu"]["standard_error"] > 0
    assert len(booted["precisions"]["confidence_interval"][0]) == 4
    # Our own interval (sacreBLEU's draws, one pass over the statistics) comes with compute.
    ours = metric.compute(predictions=EVAL_PREDICTIONS, references=EVAL_REFERENCES, bootstrap_samples=1000)
    assert ours["bleu_ci_low"] <= ours["bleu"] <= ours["bleu_ci_high"] and "signature" not in ours


# ---------------------------------------------------------------- loading by folder


def test_loading_a_folder_needs_it_named_bleu_metric(tmp_path):
    """evaluate looks for <folder name>.py in a folder; the README says so where loading is explained."""
    import shutil

    import evaluate

    from conftest import REPO

    for name in ("bleu_metric", "my_clone"):
        (tmp_path / name).mkdir()
        for module in REPO.glob("bleu_*.py"):
            shutil.copy(module, tmp_path / name / module.name)
    loaded = evaluate.load(str(tmp_path / "bleu_metric"))
    assert loaded.compute(predictions=["a b c d"], references=["a b c d"])["bleu"] == 1.0  # sacreBLEU: 100.0
    with pytest.raises(FileNotFoundError, match="my_clone.py"):
        evaluate.load(str(tmp_path / "my_clone"))
    readme = " ".join((REPO / "README.md").read_text(encoding="utf-8").split())
    assert "only when the folder is named `bleu_metric`" in readme and "`<folder name>.py`" in readme
    # The file-path form comes first, where loading is explained.
    assert readme.index('evaluate.load("path/to/bleu_metric.py")') < readme.index('evaluate.load("path/to/folder")')
