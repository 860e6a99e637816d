"""num_workers: forked worker processes give exactly the one-process statistics and results.

The oracle of every test is the same call with num_workers=1 (this process, as the module always
counted). Explicit worker counts fork whatever the input's size, so small inputs keep the tests
fast; `auto`'s choices are checked with its threshold lowered.
"""

from __future__ import annotations

import os
from pathlib import Path
import random
import threading

import multiprocessing
import numpy as np
import pytest

import bleukit.cli.main as bleu_cli
import bleukit.core as bleu_core
import bleukit.counting.parallel as bleu_parallel
from bleukit.counting import forking
from bleukit.significance.compare import compare
from bleukit.core import compute_bleu, segment_statistics, systems_statistics
from bleukit.inputs import validate_inputs
from bleukit.options import resolve_options
from bleukit.streaming import statistics
from conftest import METRIC_PATH, wmt17_lines

pytestmark = pytest.mark.skipif(not bleu_parallel.fork_available(), reason="worker processes need fork")


def synthetic_corpus(segments: int, seed: int = 19) -> tuple:
    """Hypotheses and two references per segment, Zipf-like words with punctuation and digits:
    enough repeated n-grams that clipping matters, built here so the test never skips."""
    rng = random.Random(seed)
    words = [f"w{k}" for k in range(400)] + [",", ".", "3.5", "1,000", "(", ")", "&amp;", "Über"]
    weights = [1 / (rank + 1) for rank in range(len(words))]

    def line() -> str:
        return " ".join(rng.choices(words, weights, k=rng.randint(0, 30)))

    return [line() for _ in range(segments)], [[line(), line()] for _ in range(segments)]


@pytest.fixture(scope="module")
def corpus() -> tuple:
    return synthetic_corpus(2500)


@pytest.fixture(scope="module")
def wmt17() -> tuple:
    """Three WMT17 systems one after another (9,012 segments), each against the reference and
    a fourth system as a second reference."""
    reference = wmt17_lines("newstest2017-ende.ref.de")
    other = wmt17_lines("online-A.0.de")
    hypotheses = [line for name in ("uedin-nmt.4722.de", "KIT.4950.de", "C-3MA.4959.de") for line in wmt17_lines(name)]
    return hypotheses, [[ref, alt] for ref, alt in zip(reference, other)] * 3


def rows(predictions, references, num_workers, **options) -> np.ndarray:
    preds, refs, kind = validate_inputs(predictions, references)
    return segment_statistics(preds, refs, resolve_options(**options), kind, num_workers=num_workers)


@pytest.mark.parametrize("workers", [2, 3, 7])
def test_wmt17_rows_and_results_equal_one_process(wmt17, workers):
    hypotheses, references = wmt17
    expected = rows(hypotheses, references, 1)
    got = rows(hypotheses, references, workers)
    assert got.dtype == np.int64 and got.shape == expected.shape == (9012, 10)
    assert np.array_equal(got, expected)
    one = compute_bleu(hypotheses, references, return_sentence_scores=True, num_workers=1)
    assert compute_bleu(hypotheses, references, return_sentence_scores=True, num_workers=workers) == one
    assert one["signature"].startswith("nrefs:2|") and "workers" not in one["signature"]


@pytest.mark.parametrize("workers", [2, 3])
def test_synthetic_rows_and_results_equal_one_process(corpus, workers):
    hypotheses, references = corpus
    options = dict(smooth="exp", effective_order=True, lowercase=True, max_order=5)
    assert np.array_equal(rows(hypotheses, references, workers, **options), rows(hypotheses, references, 1, **options))
    run = dict(return_sentence_scores=True, bootstrap_samples=200, **options)
    one = compute_bleu(hypotheses, references, num_workers=1, **run)
    assert compute_bleu(hypotheses, references, num_workers=workers, **run) == one
    assert 0 < one["bleu"] < 1 and len(one["sentence_bleu"]) == 2500


def test_varying_references_and_empty_lines(corpus):
    hypotheses, references = corpus
    varying = [group[: 1 + k % 2] + ([None] if k % 3 == 0 else []) for k, group in enumerate(references)]
    hypotheses = ["" if k % 7 == 0 else line for k, line in enumerate(hypotheses)]
    assert np.array_equal(rows(hypotheses, varying, 3), rows(hypotheses, varying, 1))


def test_fewer_segments_than_workers_and_one_segment():
    hypotheses, references = ["the cat sat on the mat", "a dog"], ["the cat sat on a mat", "a dog ran"]
    assert compute_bleu(hypotheses, references, num_workers=8) == compute_bleu(hypotheses, references, num_workers=1)
    assert bleu_parallel.process_count(8, 2) == 2 and bleu_parallel.process_count(8, 1) == 1
    assert compute_bleu(hypotheses[:1], references[:1], num_workers=4) == compute_bleu(hypotheses[:1], references[:1])


def test_empty_input_is_the_same_error_and_empty_rows_stay_empty():
    for workers in (1, 2):
        with pytest.raises(ValueError, match="predictions is empty"):
            compute_bleu([], [], num_workers=workers)
    empty = segment_statistics([], [], resolve_options(), num_workers=3)
    assert empty.shape == (0, 10) and empty.dtype == np.int64


def test_token_ids_rows_carry_the_same_provenance(corpus):
    hypotheses, references = corpus
    vocabulary: dict = {}

    def ids(line: str) -> list:
        return [vocabulary.setdefault(token, len(vocabulary)) for token in line.split()] + [0, -100]

    id_hyps = [ids(line) for line in hypotheses]
    id_refs = [[ids(ref) for ref in group] for group in references]
    expected = statistics(id_hyps, id_refs, per_segment=True, ignore_ids=[0], num_workers=1)
    got = statistics(id_hyps, id_refs, per_segment=True, ignore_ids=[0], num_workers=2)
    assert expected.shape == (2500, 13) and np.array_equal(got, expected)
    assert compute_bleu(id_hyps, id_refs, pad_id=0, num_workers=3) == compute_bleu(id_hyps, id_refs, pad_id=0, num_workers=1)


def test_compare_equals_one_process(corpus):
    hypotheses, references = corpus
    rng = random.Random(5)
    systems = {"base": hypotheses, "shuffled": [" ".join(rng.sample(h.split(), len(h.split()))) for h in hypotheses],
               "third": [h + " ." for h in hypotheses]}
    for counts in (dict(method="bootstrap", bootstrap_samples=100), dict(method="ar", trials=200, bootstrap_samples=50)):
        one = compare(systems, references, num_workers=1, **counts)
        assert compare(systems, references, num_workers=2, **counts) == one
        assert [system["p_value"] for system in one["systems"]][1:] != [None, None]
    preds = [validate_inputs(system, references)[0] for system in systems.values()]
    refs = validate_inputs(hypotheses, references)[1]
    expected = systems_statistics(preds, refs, resolve_options(), num_workers=1)
    for got, want in zip(systems_statistics(preds, refs, resolve_options(), num_workers=3), expected):
        assert np.array_equal(got, want)


def test_metric_compute_and_evaluate_cache_path(bleu, corpus):
    hypotheses, references = corpus
    one = bleu.compute(predictions=hypotheses, references=references, num_workers=1)
    assert bleu.compute(predictions=hypotheses, references=references, num_workers=2) == one
    bleu.add_batch(predictions=hypotheses, references=references)  # evaluate's own path (_compute)
    assert bleu.compute(num_workers=2) == one
    assert np.array_equal(bleu.statistics(hypotheses, references, num_workers=2), bleu.statistics(hypotheses, references))


def test_cli_num_workers_and_sacrebleus_jobs(tmp_path, capsys, corpus):
    hypotheses, references = corpus
    hyp, ref = tmp_path / "hyp.txt", tmp_path / "ref.txt"
    hyp.write_text("\n".join(hypotheses) + "\n", encoding="utf-8")
    ref.write_text("\n".join(group[0] for group in references) + "\n", encoding="utf-8")
    outputs = []
    for extra in (["--num-workers", "1"], ["--num-workers", "2"], ["-j", "3"], ["-j", "0"], ["--num-workers", "auto"]):
        assert bleu_cli.main([str(hyp), "-r", str(ref), "--sentence-scores", "-f", "json", *extra]) == 0
        outputs.append(capsys.readouterr().out)
    assert all(output == outputs[0] for output in outputs) and '"sentence_bleu"' in outputs[0]
    other = tmp_path / "other.txt"
    other.write_text("\n".join(group[1] for group in references) + "\n", encoding="utf-8")
    paired = [str(ref), "-i", str(hyp), str(other), "-pbs", "--paired-bs-n", "50"]
    assert bleu_cli.main([*paired, "-j", "2"]) == 0
    two = capsys.readouterr().out
    assert bleu_cli.main([*paired, "-j", "1"]) == 0
    assert capsys.readouterr().out == two and '"p_value": 0.' in two


@pytest.mark.parametrize("arguments, message", [
    (["--num-workers", "0"], "'0' is not a number of processes; pass an integer >= 1, or auto"),
    (["--num-workers", "two"], "'two' is not a number of processes"),
    (["-j", "-1"], "-j/--paired-jobs must be >= 0"),
    (["-j", "2", "--num-workers", "2"], "sacreBLEU's name of --num-workers; give one of them"),
])
def test_cli_bad_worker_counts_are_usage_errors(arguments, message, capsys):
    with pytest.raises(SystemExit) as exited:
        bleu_cli.main(arguments)
    assert exited.value.code == 2 and message in capsys.readouterr().err


@pytest.mark.parametrize("value, error, message", [
    (0, ValueError, "num_workers must be >= 1 (1: one process), or 'auto', not 0"),
    (-2, ValueError, "not -2; to use every core pass num_workers="),
    (2.5, TypeError, "num_workers must be an integer >= 1"),
    (True, TypeError, "not True"),
    ("all", TypeError, "or 'auto' (processes for large inputs only), not 'all'"),
])
def test_bad_values_say_what_to_pass(bleu, value, error, message):
    with pytest.raises(error, match=None) as raised:
        compute_bleu(["a b"], ["a b"], num_workers=value)
    assert message in str(raised.value)
    for call in (lambda: bleu.compute(predictions=["a b"], references=["a b"], num_workers=value),
                 lambda: statistics(["a b"], ["a b"], num_workers=value),
                 lambda: compare({"A": ["a b"], "B": ["a c"]}, ["a b"], num_workers=value)):
        with pytest.raises(error):
            call()


def test_load_time_default_is_checked():
    import evaluate

    with pytest.raises(ValueError, match="num_workers must be >= 1"):
        evaluate.load(str(METRIC_PATH), num_workers=0)
    metric = evaluate.load(str(METRIC_PATH), num_workers=2)
    assert metric.compute(predictions=["a b c d"], references=["a b c d"])["bleu"] == 1.0


def test_a_workers_error_is_raised_as_in_one_process(corpus):
    hypotheses, references = corpus
    poison = hypotheses[2000]

    def tokenizer(line: str) -> list:
        if line == poison:
            raise KeyError(f"cannot tokenize {line[:10]!r}")
        return line.split()

    with pytest.raises(KeyError) as one:
        compute_bleu(hypotheses, references, tokenizer=tokenizer, num_workers=1)
    with pytest.raises(KeyError) as two:
        compute_bleu(hypotheses, references, tokenizer=tokenizer, num_workers=2)
    assert str(two.value) == str(one.value)
    assert not child_processes()


def test_a_worker_that_dies_is_an_error_not_missing_rows():
    parent = os.getpid()

    def rows_of(start: int, stop: int) -> np.ndarray:
        if os.getpid() != parent:
            os._exit(3)
        threading.Event().wait(0.05)  # the parent is slow, so the child takes a block
        return np.ones((stop - start, 4), dtype=np.int64)

    with pytest.raises(RuntimeError, match="exit code 3 before writing its rows; pass num_workers=1"):
        bleu_parallel.forked_rows((64, 4), rows_of, 2)
    assert not child_processes()


def test_the_caller_forks_two_workers_and_they_fork_the_rest(corpus, monkeypatch):
    """Issue 28: each fork costs the caller the copy of its page tables (5-12 ms at 480,640
    segments here), so 15 workers forked by the caller would be 15 of those in its serial part.
    Workers form a binary tree: the caller forks 2, worker k forks 2k+1 and 2k+2."""
    parent, forked_by = os.getpid(), []
    real_fork = os.fork

    def recording_fork() -> int:
        who = os.getpid()
        pid = real_fork()
        if pid and who == parent:
            forked_by.append(pid)
        return pid

    monkeypatch.setattr(os, "fork", recording_fork)
    hypotheses, references = corpus
    one = compute_bleu(hypotheses, references, return_sentence_scores=True, num_workers=1)
    assert compute_bleu(hypotheses, references, return_sentence_scores=True, num_workers=7) == one
    assert len(forked_by) == 2

    def pids(start: int, stop: int) -> np.ndarray:
        threading.Event().wait(0.03)  # slow blocks (28 of them), so that the later workers get some
        return np.full((stop - start, 1), os.getpid())

    del forked_by[:]
    seen = bleu_parallel.forked_rows((2048, 1), pids, 7)
    assert len(forked_by) == 2 and set(seen.ravel().tolist()) - {parent, *forked_by}  # a worker's worker counted
    assert not child_processes()


def test_a_grandchild_worker_s_error_and_death_reach_the_caller():
    parent = os.getpid()

    def rows_of(start: int, stop: int) -> np.ndarray:
        if os.getpid() != parent and os.getppid() != parent:  # a worker forked by a worker
            raise KeyError(f"segment {start} cannot be counted")
        threading.Event().wait(0.02)  # the others are slow, so the grandchildren take blocks
        return np.ones((stop - start, 4), dtype=np.int64)

    with pytest.raises(KeyError, match="cannot be counted"):
        bleu_parallel.forked_rows((256, 4), rows_of, 6)
    assert not child_processes()

    def dying(start: int, stop: int) -> np.ndarray:
        if os.getpid() != parent and os.getppid() != parent:
            os._exit(5)
        threading.Event().wait(0.02)
        return np.ones((stop - start, 4), dtype=np.int64)

    with pytest.raises(RuntimeError, match="ended before writing its rows; pass num_workers=1"):
        bleu_parallel.forked_rows((256, 4), dying, 6)
    assert not child_processes()


def child_processes() -> list:
    """The processes whose parent is this one, alive or not yet reaped, read from Linux's /proc
    (the workers are forked with os.fork, which multiprocessing.active_children does not see),
    once the workers of calls that went well have been reaped."""
    forking.wait_for_exits()
    children = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # gone meanwhile
            continue
        if int(fields[1]) == os.getpid():
            children.append(int(stat.parent.name))
    return children


@pytest.fixture
def forks(monkeypatch) -> list:
    """A low threshold for auto, two usable cores, and a record of each fork's process count."""
    monkeypatch.setattr(bleu_parallel, "PROCESS_MIN_SEGMENTS", 1000)
    monkeypatch.setattr(bleu_parallel, "usable_cores", lambda: 2)
    calls: list = []
    original, original_rows = bleu_parallel.forked_columns, bleu_core.forked_rows

    def recording(outputs, columns_of, processes, *private):
        calls.append(processes)
        return original(outputs, columns_of, processes, *private)

    def recording_rows(shape, rows_of, processes, *dtype):
        calls.append(("second fork", processes))
        return original_rows(shape, rows_of, processes, *dtype)

    monkeypatch.setattr(bleu_parallel, "forked_columns", recording)  # counting (and what comes with it)
    monkeypatch.setattr(bleu_core, "forked_rows", recording_rows)  # sentence scores of rows given
    return calls


def test_auto_forks_large_inputs_only(forks, corpus):
    hypotheses, references = corpus
    if not bleu_parallel.sys.platform.startswith("linux"):
        pytest.skip("auto forks only on Linux")
    expected = compute_bleu(hypotheses, references, num_workers=1)
    assert compute_bleu(hypotheses, references) == expected and forks == [2]
    compute_bleu(hypotheses[:999], references[:999], return_sentence_scores=True)
    assert forks == [2]  # below the threshold: this process
    assert compute_bleu(hypotheses, references, return_sentence_scores=True) == compute_bleu(
        hypotheses, references, return_sentence_scores=True, num_workers=1)
    assert forks == [2, 2]  # the sentence scores made by the workers that count, in the same fork
    del forks[1:]
    compute_bleu(hypotheses, references, tokenizer=str.split)
    assert forks == [2]  # a user's callable: never forked by auto
    compute_bleu(hypotheses, references, tokenizer=str.split, num_workers=2)
    assert forks == [2, 2]  # ... but when asked
    preds = [validate_inputs(hypotheses[:600], references[:600])[0]] * 2
    systems_statistics(preds, validate_inputs(hypotheses[:600], references[:600])[1], resolve_options(), num_workers="auto")
    assert forks == [2, 2, 2]  # 600 segments of 3 lines each (2 systems and a reference group)


def test_auto_stays_in_one_process_in_a_thread(forks, corpus):
    """A server scoring in request threads: auto never forks there (num_workers=n still does)."""
    hypotheses, references = corpus
    seen: list = []

    def request() -> None:
        seen.append(bleu_parallel.process_count("auto", 10**6))
        seen.append(compute_bleu(hypotheses, references))

    thread = threading.Thread(target=request)
    thread.start()
    thread.join()
    assert seen == [1, compute_bleu(hypotheses, references, num_workers=1)] and forks == []
    assert bleu_parallel.process_count("auto", 999) == 1 and bleu_parallel.process_count(None, 999) == 1


def _compute_in_a_pool_worker(args):
    hypotheses, references, num_workers = args
    try:
        return compute_bleu(hypotheses, references, return_sentence_scores=True, num_workers=num_workers)
    except ValueError as error:
        return str(error)


def test_a_daemonic_pool_worker_counts_alone(forks, corpus):
    """A multiprocessing Pool's workers (and DataLoader's, datasets.map(num_proc)'s) are daemonic and
    may not have children: auto counts there in the worker itself, with the same numbers, and an
    explicit n says why it cannot, instead of multiprocessing's bare AssertionError."""
    hypotheses, references = corpus
    if not bleu_parallel.sys.platform.startswith("linux"):
        pytest.skip("auto forks only on Linux")
    expected = compute_bleu(hypotheses, references, return_sentence_scores=True, num_workers=1)
    with multiprocessing.get_context("fork").Pool(1) as pool:
        in_worker = pool.map(_compute_in_a_pool_worker, [(hypotheses, references, "auto"),
                                                         (hypotheses, references, 2)])
    assert in_worker[0] == expected
    assert "this is a daemonic worker process" in in_worker[1] and "pass num_workers=1" in in_worker[1]
    assert not bleu_parallel.in_daemon_process()


BAD_INPUTS = [  # (what is wrong, where, the message validate_inputs gives for the whole input)
    ("prediction", 1700, "predictions[1700] is int 7; every prediction must be a string"),
    ("reference", 2300, "references mixes shapes: references[0] is a string but references[2300] is list"),
    ("group", 2300, "references mixes shapes: references[2300] is a bare string but references[0] is a list"),
    ("padding", 900, "prediction 900 has no references (references[900] holds only None)"),
]


@pytest.mark.parametrize("what, where, message", BAD_INPUTS, ids=[case[0] for case in BAD_INPUTS])
@pytest.mark.parametrize("workers", [1, 2])
def test_item_checks_made_by_the_workers_name_the_first_item_at_fault(corpus, what, where, message, workers):
    """Issue 28: each worker checks the items of the chunks it counts (the parent checks only the
    containers, counts and first items). A chunk that fails has the whole input checked in the
    parent, so the message is validate_inputs' and names the FIRST bad item, whichever chunk or
    process met one (a second bad item sits in an earlier-counted block of another process)."""
    hypotheses, references = list(corpus[0]), [list(group) for group in corpus[1]]  # groups of 1 or 2
    if what == "reference":
        references = [group[0] for group in references]  # one string each
    bad = {"prediction": (hypotheses, 7), "reference": (references, ["a list"]), "group": (references, "bare"),
           "padding": (references, [None])}
    target, value = bad[what]
    target[where] = value
    target[-5] = value  # a second one, counted by another worker
    with pytest.raises((TypeError, ValueError)) as expected:
        validate_inputs(hypotheses, references)
    assert str(expected.value).startswith(message)
    with pytest.raises(type(expected.value)) as raised:
        compute_bleu(hypotheses, references, num_workers=workers, return_sentence_scores=True)
    assert str(raised.value) == str(expected.value)
    assert not child_processes()


def test_a_chunk_of_another_shape_is_caught_though_it_checks_alone(corpus):
    """A chunk whose items are all well formed but of another shape than the first chunk's
    (references as lists from segment 1280 on, where the first are strings) passes its own
    checks: the shape decided from the whole input's first reference catches it."""
    hypotheses, references = corpus
    mixed = [group[0] for group in references[:1280]] + list(references[1280:])
    with pytest.raises(ValueError, match=r"references\[0\] is a string but references\[1280\] is list"):
        compute_bleu(hypotheses, mixed, num_workers=2)


def test_counting_leaves_the_callers_lists_alone(corpus):
    hypotheses, references = corpus
    groups = [[group[0], None] for group in references]
    before = [list(group) for group in groups]
    compute_bleu(hypotheses, groups, num_workers=2)
    assert groups == before


@pytest.mark.parametrize("segments, lines, expected", [
    (19_999, 1, 1),        # below PROCESS_MIN_SEGMENTS: this process
    (20_000, 1, 7),        # sqrt(20,000 x 9 us / 3.2 ms) = 7.5
    (48_064, 1, 11),       # the 16-core table's best: 10-12 processes (0.103 s; 4 gave 0.157 s)
    (480_640, 1, 16),      # every core
    (3_004, 17, 11),       # a comparison of 16 systems: 17 lines a segment
])
def test_auto_weighs_the_work_against_each_process_cost(monkeypatch, segments, lines, expected):
    monkeypatch.setattr(bleu_parallel, "usable_cores", lambda: 16)
    if not bleu_parallel._auto_may_fork():
        pytest.skip("auto forks only on Linux, from the main thread")
    assert bleu_parallel.process_count("auto", segments, lines=lines) == expected
    monkeypatch.setattr(bleu_parallel, "usable_cores", lambda: 2)
    assert bleu_parallel.process_count("auto", segments, lines=lines) == min(2, expected)


def test_several_systems_are_counted_in_one_pass_of_the_same_workers(forks, corpus):
    """Issue 28: the CLI's several systems without a paired test (`bleu REF -i A B C`) scored each
    system by its own compute_bleu: the references checked and tokenized once per system, and a
    round of forks per system. compute_systems counts them all in one pass, the same numbers."""
    from bleukit.core import compute_systems

    hypotheses, references = corpus
    systems = {"a": hypotheses, "b": hypotheses[::-1], "c": [line.upper() for line in hypotheses]}
    expected = {name: compute_bleu(lines, references, num_workers=1, smooth="floor") for name, lines in systems.items()}
    assert compute_systems(systems, references, num_workers=2, smooth="floor") == expected
    assert forks == [2]
    ids = {name: [[len(word) for word in line.split()] for line in lines] for name, lines in systems.items()}
    id_refs = [[[len(word) for word in reference.split()] for reference in group] for group in references]
    assert compute_systems(ids, id_refs, num_workers=1) == {
        name: compute_bleu(lines, id_refs, num_workers=1) for name, lines in ids.items()}
    with pytest.raises(TypeError, match=r"system 'b': predictions\[3\] is int"):
        compute_systems({"a": hypotheses, "b": hypotheses[:3] + [4] + hypotheses[4:]}, references)
