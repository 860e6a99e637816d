"""bleukit.engines.spark on a real local[2] SparkSession: every number equals one-process compute exactly.

One SparkSession for the module (starting the JVM takes seconds); a few thousand WMT17 rows split
into partitions by `parallelize`, which keeps the rows' order (contiguous slices), so the oracle is
`compute_bleu` of the same lists. Partitions that are empty or hold one row are made on purpose.
"""

from __future__ import annotations

import os
import shutil

import pytest

pyspark = pytest.importorskip("pyspark", reason="pyspark is a test dependency (requirements-test.txt)")
if not (shutil.which("java") or os.environ.get("JAVA_HOME")):
    pytest.skip("pyspark needs a Java runtime (17+); tests/install.sh installs one", allow_module_level=True)

import bleukit.engines.spark as bleu_spark  # noqa: E402
from bleukit.core import compute_bleu  # noqa: E402
from engine_data import id_pairs, wmt17_pairs, without_bootstrap  # noqa: E402

TEXT_SCHEMA = "prediction string, references array<string>"
pytestmark = pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas:FutureWarning")


@pytest.fixture(scope="module")
def spark():
    from pyspark.sql import SparkSession

    session = (SparkSession.builder.master("local[2]").appName("bleu-tests")
               .config("spark.ui.enabled", "false").config("spark.sql.shuffle.partitions", "2")
               .config("spark.driver.memory", "1g").getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def frame(spark, predictions, references, partitions, schema=TEXT_SCHEMA):
    rdd = spark.sparkContext.parallelize(list(zip(predictions, references)), partitions)
    return spark.createDataFrame(rdd, schema)


@pytest.fixture(scope="module")
def corpus(spark):
    predictions, references = wmt17_pairs()
    return predictions, references, frame(spark, predictions, references, 7)


@pytest.mark.parametrize("options", [{}, {"tokenizer": "intl", "smooth": "exp", "lowercase": True}])
def test_corpus_bleu_equals_compute(corpus, options):
    predictions, references, df = corpus
    expected = compute_bleu(predictions, references, **options)
    assert expected["signature"].startswith("nrefs:var|")
    assert bleu_spark.corpus_bleu(df, **options) == expected


def test_bootstrap_interval_equals_compute(corpus):
    predictions, references, df = corpus
    expected = compute_bleu(predictions, references, bootstrap_samples=300, bootstrap_seed=7)
    assert bleu_spark.corpus_bleu(df, bootstrap_samples=300, bootstrap_seed=7) == expected


def test_sentence_bleu_column_equals_compute_and_filters(corpus):
    predictions, references, df = corpus
    expected = compute_bleu(predictions, references, smooth="exp", effective_order=True,
                            return_sentence_scores=True)["sentence_bleu"]
    scored = bleu_spark.sentence_bleu_column(df, smooth="exp", effective_order=True).toArrow()
    assert scored.column("sentence_bleu").to_pylist() == expected
    assert scored.column("prediction").to_pylist() == predictions
    kept = bleu_spark.sentence_bleu_column(df, smooth="exp", effective_order=True).filter("sentence_bleu >= 0.3")
    assert kept.count() == sum(score >= 0.3 for score in expected) > 0


def test_empty_and_one_row_partitions(spark):
    """3 rows in 5 partitions: two are empty, three hold one row each."""
    predictions, references = wmt17_pairs(3)
    df = frame(spark, predictions, references, 5)
    assert sorted(df.rdd.glom().map(len).collect()) == [0, 0, 1, 1, 1]
    assert bleu_spark.corpus_bleu(df) == compute_bleu(predictions, references)
    assert (bleu_spark.corpus_bleu(df, bootstrap_samples=50)
            == compute_bleu(predictions, references, bootstrap_samples=50))
    scores = bleu_spark.sentence_bleu_column(df).toArrow().column("sentence_bleu").to_pylist()
    assert scores == compute_bleu(predictions, references, return_sentence_scores=True)["sentence_bleu"]


def test_single_reference_string_column_and_token_ids(spark):
    predictions, references = wmt17_pairs(200)
    single = [group[0] for group in references]
    df = frame(spark, predictions, single, 3, "prediction string, references string")
    assert bleu_spark.corpus_bleu(df) == compute_bleu(predictions, single)
    id_predictions, id_references = id_pairs()
    ids = frame(spark, id_predictions, id_references, 4, "prediction array<bigint>, references array<array<bigint>>")
    expected = compute_bleu(id_predictions, id_references, bootstrap_samples=40)
    assert "tok:ids" in expected["signature"]
    assert bleu_spark.corpus_bleu(ids, bootstrap_samples=40) == expected


def test_options_are_checked_on_the_driver_before_any_job(corpus, spark):
    predictions, references, df = corpus
    with pytest.raises(ValueError) as expected:
        compute_bleu(predictions[:2], references[:2], tokenizer="no-such")
    context = spark.sparkContext
    context.setJobGroup("bad-options", "a bad tokenizer must not start a job")
    try:
        for call in (bleu_spark.corpus_bleu, bleu_spark.sentence_bleu_column):
            with pytest.raises(ValueError) as raised:
                call(df, tokenizer="no-such")
            assert str(raised.value) == str(expected.value)
        with pytest.raises(ValueError, match="no column 'hypothesis'"):
            bleu_spark.corpus_bleu(df, prediction="hypothesis")
        with pytest.raises(TypeError, match=r"unknown option\(s\) \['smoothing'\]"):
            bleu_spark.corpus_bleu(df, smoothing="exp")
        assert context.statusTracker().getJobIdsForGroup("bad-options") == []
    finally:
        context.setJobGroup("", "")


def test_an_empty_frame_is_the_same_error_as_compute(spark):
    with pytest.raises(ValueError, match="predictions is empty"):
        compute_bleu([], [])
    with pytest.raises(ValueError, match="predictions is empty"):
        bleu_spark.corpus_bleu(spark.createDataFrame([], TEXT_SCHEMA))


def test_sacrebleu_option_names_work_as_in_compute(corpus):
    predictions, references, df = corpus
    assert (without_bootstrap(bleu_spark.corpus_bleu(df, tokenize="char", smooth_method="floor"))
            == compute_bleu(predictions, references, tokenizer="char", smooth="floor"))
