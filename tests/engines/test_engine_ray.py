"""bleukit.engines.ray on a real local Ray cluster (2 CPUs): every number equals one-process compute exactly.

One `ray.init` for the module. The datasets are made of Arrow tables, one block each, in order
(`ray.data.from_arrow` of a list), so the oracle is `compute_bleu` of the same lists; empty blocks
and one-row blocks are made on purpose.
"""

from __future__ import annotations

import pytest

ray = pytest.importorskip("ray", reason="ray[data] is a test dependency (requirements-test.txt)")

import pyarrow as pa  # noqa: E402

import bleukit.engines.ray as bleu_ray  # noqa: E402
from bleukit.core import compute_bleu  # noqa: E402
from engine_data import id_pairs, wmt17_pairs  # noqa: E402


@pytest.fixture(scope="module")
def cluster():
    import ray.data

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    ray.data.DataContext.get_current().enable_progress_bars = False
    yield ray
    ray.shutdown()


def dataset(predictions, references, sizes):
    """A Ray Dataset with one block per size (0 for an empty block), in the lists' order."""
    import ray.data

    tables, start = [], 0
    for size in sizes:
        tables.append(pa.table({"prediction": predictions[start:start + size],
                                "references": references[start:start + size]}))
        start += size
    assert start == len(predictions)
    return ray.data.from_arrow(tables)


@pytest.fixture(scope="module")
def corpus(cluster):
    predictions, references = wmt17_pairs()
    return predictions, references, dataset(predictions, references, [700, 0, 1, 600, 699])


@pytest.mark.parametrize("options", [{}, {"tokenizer": "intl", "smooth": "exp", "lowercase": True},
                                     {"target_language": "zh"}])
def test_corpus_bleu_equals_compute(corpus, options):
    """target_language with tokenizer="auto": each worker picks what the driver picks (zh here)."""
    predictions, references, ds = corpus
    expected = compute_bleu(predictions, references, **options)
    assert expected["signature"].startswith("nrefs:var|")
    assert ("tok:zh" in expected["signature"]) == ("target_language" in options)
    assert bleu_ray.corpus_bleu(ds, **options) == expected
    assert bleu_ray.corpus_bleu(ds, batch_size=256, **options) == expected


def test_bootstrap_interval_equals_compute(corpus):
    predictions, references, ds = corpus
    expected = compute_bleu(predictions, references, bootstrap_samples=300, bootstrap_seed=7)
    assert bleu_ray.corpus_bleu(ds, bootstrap_samples=300, bootstrap_seed=7, batch_size=128) == expected
    assert ray.data.DataContext.get_current().execution_options.preserve_order is False  # restored


def test_sentence_bleu_column_equals_compute_and_filters(corpus):
    predictions, references, ds = corpus
    expected = compute_bleu(predictions, references, smooth="exp", effective_order=True,
                            return_sentence_scores=True)["sentence_bleu"]
    scored = bleu_ray.sentence_bleu_column(ds, smooth="exp", effective_order=True)
    rows = sorted((row["prediction"], tuple(row["references"]), row["sentence_bleu"]) for row in scored.take_all())
    assert rows == sorted(zip(predictions, map(tuple, references), expected))  # every row, in any block order
    assert scored.filter(expr="sentence_bleu >= 0.3").count() == sum(score >= 0.3 for score in expected) > 0


def test_empty_and_one_row_blocks(cluster):
    predictions, references = wmt17_pairs(3)
    ds = dataset(predictions, references, [0, 1, 0, 1, 1])
    assert bleu_ray.corpus_bleu(ds) == compute_bleu(predictions, references)
    assert (bleu_ray.corpus_bleu(ds, bootstrap_samples=50)
            == compute_bleu(predictions, references, bootstrap_samples=50))


def test_single_reference_string_column_and_token_ids(cluster):
    predictions, references = wmt17_pairs(200)
    single = [group[0] for group in references]
    assert bleu_ray.corpus_bleu(dataset(predictions, single, [150, 50])) == compute_bleu(predictions, single)
    id_predictions, id_references = id_pairs()
    expected = compute_bleu(id_predictions, id_references, bootstrap_samples=40)
    assert "tok:ids" in expected["signature"]
    ids = dataset(id_predictions, id_references, [100, 0, 200])
    assert bleu_ray.corpus_bleu(ids, bootstrap_samples=40) == expected


def test_options_are_checked_on_the_driver(corpus):
    predictions, references, ds = corpus
    with pytest.raises(ValueError) as expected:
        compute_bleu(predictions[:2], references[:2], tokenizer="no-such")
    for call in (bleu_ray.corpus_bleu, bleu_ray.sentence_bleu_column):
        with pytest.raises(ValueError) as raised:  # a ValueError here, not a RayTaskError from a worker
            call(ds, tokenizer="no-such")
        assert str(raised.value) == str(expected.value)
    with pytest.raises(ValueError, match="no column 'hypothesis'"):
        bleu_ray.corpus_bleu(ds, prediction="hypothesis")
    with pytest.raises(ValueError, match="return_sentence_scores=True would collect"):
        bleu_ray.corpus_bleu(ds, return_sentence_scores=True)
