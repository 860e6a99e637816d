"""mbr against a plain loop over sacreBLEU: expected sentence BLEU of every candidate, the chosen
index (ties to the lowest), for one source and batches, with and without pseudo-references;
lists of ids, CPU tensors and the torch counting that runs on GPUs give the same numbers.
"""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
import torch

import bleukit.tensor.pairs as bleu_tensor_pairs
from bleukit.diversity.pairwise import pairwise
from bleukit.diversity.mbr import mbr
from bleukit.token_ids import TokenIdRule
from text_sets import random_texts, relative_difference


def sacrebleu_mbr(candidates, pseudo_references=None):
    """The loop MBR libraries run: sentence BLEU of each candidate against each pseudo-reference
    (the other candidates by default), the mean, the first maximum."""
    from sacrebleu.metrics import BLEU

    metric = BLEU(effective_order=True)  # sacreBLEU's sentence_bleu settings
    expected = []
    for i, candidate in enumerate(candidates):
        references = [c for j, c in enumerate(candidates) if j != i] if pseudo_references is None else pseudo_references
        expected.append(math.fsum(metric.sentence_score(candidate, [r]).score / 100 for r in references) / len(references))
    return max(range(len(expected)), key=lambda i: (expected[i], -i)), expected


@pytest.mark.parametrize("seed", range(10))
def test_batches_pick_what_the_sacrebleu_loop_picks(seed):
    rng = random.Random(seed)
    sources = [random_texts(rng, rng.randint(2, 8)) for _ in range(rng.randint(1, 4))]
    pseudo = None if seed % 2 else [random_texts(rng, rng.randint(1, 4)) for _ in sources]
    result = mbr(sources, pseudo)
    for k, candidates in enumerate(sources):
        chosen, expected = sacrebleu_mbr(candidates, None if pseudo is None else pseudo[k])
        assert max(map(relative_difference, result["expected_bleu"][k], expected)) <= 1e-12
        picked = result["chosen"][k]
        # The same index, or (never seen here) one whose oracle value is equal to 1e-12.
        assert picked == chosen or relative_difference(expected[picked], expected[chosen]) <= 1e-12
        assert result["best"][k] == candidates[picked]


def test_one_source_gives_plain_values():
    candidates = ["the cat sat on the mat", "the cat sat on a mat", "a dog barked", "the cat sat on the mat ."]
    result = mbr(candidates, return_matrix=True)
    chosen, expected = sacrebleu_mbr(candidates)
    assert result["chosen"] == chosen == 0 and result["best"] == candidates[0]
    assert result["expected_bleu"] == pytest.approx(expected, rel=1e-12, abs=0)
    assert np.array_equal(result["matrix"], pairwise(candidates)["bleu"])
    assert result["signature"] == "nrefs:1|case:mixed|eff:yes|tok:13a|smooth:exp|reflen:closest|order:4|version:bleu_metric-1.0.0"


def test_ties_go_to_the_lowest_index():
    # Duplicates get bit-identical expectations (their values are summed in sorted order).
    candidates = ["a dog", "the cat sat on the mat", "the cat sat", "the cat sat on the mat", "the cat sat"]
    result = mbr(candidates)
    assert result["expected_bleu"][1] == result["expected_bleu"][3]
    assert result["expected_bleu"][2] == result["expected_bleu"][4] == max(result["expected_bleu"])
    assert result["chosen"] == 2  # not 4, its duplicate
    assert mbr(["same text"] * 5)["chosen"] == 0
    assert mbr(["", ""])["chosen"] == 0  # nothing to match: every expectation is 0


def test_pseudo_references_and_the_matrix():
    candidates = [["a b c d", "a b c", "x y"], ["p q r s t", "p q"]]
    references = [["a b c d e", "a b"], ["p q r s"]]
    result = mbr(candidates, references, return_matrix=True)
    for k in range(2):
        matrix = pairwise(candidates[k], references[k])["bleu"]
        assert np.array_equal(result["matrix"][k], matrix)
        assert result["expected_bleu"][k] == pytest.approx(matrix.mean(axis=1).tolist(), rel=1e-15)
    assert result["chosen"] == [0, 0]


def test_token_id_lists_tensors_and_the_gpu_counting_agree():
    rng = random.Random(4)
    for trial in range(40):
        sources, count, length = rng.randint(1, 3), rng.randint(2, 6), rng.randint(0, 9)
        candidates = torch.randint(1, 5, (sources, count, length), generator=torch.Generator().manual_seed(trial))
        candidates[torch.rand(candidates.shape) < 0.3] = 0  # padding anywhere, as bleukit.tensor.scores reads it
        references = None
        if trial % 2:
            references = torch.randint(1, 6, (sources, rng.randint(1, 4), rng.randint(1, 7)))
            references[:, 1:][torch.rand(references[:, 1:].shape) < 0.5] = 0
        on_tensors = mbr(candidates, references, pad_id=0, return_matrix=True)
        as_lists = [[[t for t in row if t != 0] for row in source] for source in candidates.tolist()]
        reference_lists = None if references is None else [
            [[t for t in row if t != 0] for row in source if any(row)] for source in references.tolist()]
        listed = mbr(as_lists, reference_lists)
        assert on_tensors["chosen"].tolist() == listed["chosen"]
        assert on_tensors["expected_bleu"].tolist() == listed["expected_bleu"]
        assert torch.equal(on_tensors["best"], candidates[torch.arange(sources), on_tensors["chosen"]])
        checked = bleu_tensor_pairs.check_tensors(candidates, references, TokenIdRule(frozenset({0})))
        for orders in (1, 4, 5):
            numpy_way = bleu_tensor_pairs._numpy_matches(*checked[:2], orders)
            torch_way = bleu_tensor_pairs._torch_matches(*checked[:2], orders)
            assert all(np.array_equal(a, b) for a, b in zip(numpy_way, torch_way))


def test_torch_counting_in_chunks(monkeypatch):
    monkeypatch.setattr(bleu_tensor_pairs, "CHUNK_BYTES", 1)  # one source per chunk
    candidates = torch.randint(0, 4, (5, 4, 6), generator=torch.Generator().manual_seed(1))
    references = torch.randint(0, 4, (5, 3, 5), generator=torch.Generator().manual_seed(2))
    references[:, 0, 0] = 3
    for refs in (None, references):
        checked = bleu_tensor_pairs.check_tensors(candidates, refs, TokenIdRule(frozenset({0})))
        numpy_way = bleu_tensor_pairs._numpy_matches(*checked[:2], 4)
        torch_way = bleu_tensor_pairs._torch_matches(*checked[:2], 4)
        assert all(np.array_equal(a, b) for a, b in zip(numpy_way, torch_way))


def test_one_source_tensor():
    candidates = torch.tensor([[5, 6, 7, 0], [5, 6, 0, 0], [9, 9, 9, 9]])
    result = mbr(candidates, pad_id=0, return_matrix=True)
    # "5 6" against "5 6 7": every n-gram matched, brevity penalty exp(1 - 3/2); the other way
    # round a trigram without a match. The unrelated candidate adds 0 to both.
    assert result["chosen"].item() == 1 and result["best"].tolist() == [5, 6, 0, 0]
    assert result["expected_bleu"][1].item() == pytest.approx(math.exp(-0.5) / 2, rel=1e-15)
    assert result["expected_bleu"].shape == (3,) and result["matrix"].shape == (3, 3)
    assert "tok:ids" in result["signature"]


def test_a_list_of_id_tensors_is_one_source():
    as_tensors = mbr([torch.tensor([1, 2, 3]), torch.tensor([1, 2]), torch.tensor([4])])
    assert as_tensors == mbr([[1, 2, 3], [1, 2], [4]]) | {"best": as_tensors["best"]}
    assert as_tensors["chosen"] == 1 and torch.equal(as_tensors["best"], torch.tensor([1, 2]))


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_cuda_tensors_give_the_cpu_numbers():
    candidates = torch.randint(0, 50, (8, 16, 24), generator=torch.Generator().manual_seed(0))
    on_cpu = mbr(candidates, pad_id=0, return_matrix=True)
    on_gpu = mbr(candidates.cuda(), pad_id=0, return_matrix=True)
    assert on_gpu["chosen"].device.type == "cuda"
    for key in ("chosen", "expected_bleu", "matrix"):
        assert torch.equal(on_gpu[key].cpu(), on_cpu[key])


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: mbr([]), ValueError, "candidates is empty"),
        (lambda: mbr(["only one"]), ValueError, "at least 2"),
        (lambda: mbr([["a", "b"], ["c"]]), ValueError, r"candidates\[1\] has 1 texts"),
        (lambda: mbr(["a", "b"], [["c"]]), ValueError, "shape of candidates"),
        (lambda: mbr(["a", 1]), TypeError, r"candidates\[1\] is int"),
        (lambda: mbr(["a", "b"], return_matrix=1), TypeError, "return_matrix"),
        (lambda: mbr(["a", "b"], pad_id=0), ValueError, r"ignore_ids=\[0\] applies to token ids"),
        (lambda: mbr(torch.zeros(2, 3, dtype=torch.long)), TypeError, "mbr on padded tensors needs to know which ids are padding"),
        (lambda: mbr(torch.zeros(2, 3, dtype=torch.long), pad_id=0.5), TypeError, "pad_id must be an integer"),
        (lambda: mbr(torch.zeros(2, 3), pad_id=0), TypeError, "torch.long"),
        (lambda: mbr(torch.zeros(1, 3, dtype=torch.long), pad_id=0), ValueError, "at least two candidates"),
        (lambda: mbr(torch.tensor([[1, 2], [2, 3]]), torch.zeros(2, 2, dtype=torch.long), pad_id=0),
         ValueError, "source 0 has no pseudo-reference"),
    ],
)
def test_errors_say_what_to_pass(call, error, message):
    with pytest.raises(error, match=message):
        call()
