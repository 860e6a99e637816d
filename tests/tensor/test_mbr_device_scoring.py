"""mbr's device scoring (`bleukit.tensor.pair_scores`), forced on CPU tensors, against the host
(NumPy) scoring of the same tensors: every pair's BLEU within 2 ulp (in fact equal), the same
expected BLEU and chosen index, duplicates tying the same way, and the fallback of a device
without float64."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import bleukit.tensor.scores as tensor_scores
from bleukit.diversity.mbr import mbr
from bleukit.tensor import pair_scores

SMOOTHING = ["exp", "none", "floor", "add-k", "method1", "method2", "method3", "method4", "method5",
             "method6", "method7", "add-one"]
SHAPES = [(1, 2, 5), (3, 7, 16), (2, 20, 33), (1, 140, 9)]  # 140 > NumPy's pairwise block of 128


def _random_batch(seed: int, shape, references: bool):
    generator = torch.Generator().manual_seed(seed)
    sources, count, length = shape
    candidates = torch.randint(1, 4 + seed % 9, shape, generator=generator)
    candidates[torch.rand(shape, generator=generator) < 0.25] = 0  # padding anywhere
    candidates[torch.rand(shape, generator=generator) < 0.05] = 7  # an id in ignore_ids
    candidates[:, 0, length // 2 :] = -100
    if count > 2:
        candidates[:, 2] = candidates[:, 1]  # an exact duplicate
    refs = None
    if references:
        refs = torch.randint(1, 6, (sources, 4, length + 3), generator=generator)
        refs[torch.rand(refs.shape, generator=generator) < 0.3] = 0
        refs[:, 3] = 0  # an absent pseudo-reference
    return candidates, refs


def _assert_within_2_ulp(device_values: torch.Tensor, host_values: torch.Tensor):
    on_device, on_host = device_values.numpy(), host_values.numpy()
    assert np.array_equal(np.isnan(on_device), np.isnan(on_host))
    kept = ~np.isnan(on_host)
    np.testing.assert_array_max_ulp(on_device[kept], on_host[kept], maxulp=2)


@pytest.mark.parametrize("smooth", SMOOTHING)
@pytest.mark.parametrize("shape", SHAPES)
def test_device_scoring_equals_the_host(smooth, shape):
    for seed, references in ((0, False), (1, True), (2, False)):
        candidates, refs = _random_batch(seed + 10 * len(smooth), shape, references)
        options = dict(ignore_ids=(0, 7), return_matrix=True, smooth=smooth, effective_order=seed != 2)
        host = mbr(candidates, refs, device_scoring=False, **options)
        device = mbr(candidates, refs, device_scoring=True, **options)
        _assert_within_2_ulp(device["matrix"], host["matrix"])
        _assert_within_2_ulp(device["expected_bleu"], host["expected_bleu"])
        assert torch.equal(device["chosen"], host["chosen"])
        assert torch.equal(device["best"], host["best"])
        # in fact bit for bit: the same arithmetic and the C library's log and exp
        assert torch.equal(device["expected_bleu"], host["expected_bleu"])
        assert torch.equal(device["matrix"].nan_to_num(-1.0), host["matrix"].nan_to_num(-1.0))
        assert device["signature"] == host["signature"]


@pytest.mark.parametrize("options", [dict(convention="nltk"), dict(weights=(0.5, 0.3, 0.2)),
                                     dict(max_order=2, smooth="method5"), dict(ref_length="shortest")])
def test_other_options(options):
    candidates, refs = _random_batch(3, (3, 9, 14), False)
    host = mbr(candidates, refs, pad_id=0, device_scoring=False, return_matrix=True, **options)
    device = mbr(candidates, refs, pad_id=0, device_scoring=True, return_matrix=True, **options)
    for key in ("chosen", "expected_bleu", "matrix"):
        assert torch.equal(device[key], host[key])


def test_default_is_the_host_on_the_cpu(monkeypatch):
    called = []
    monkeypatch.setattr(pair_scores, "score_on_device", lambda *args: called.append(1))
    candidates, _ = _random_batch(4, (2, 5, 8), False)
    mbr(candidates, pad_id=0)
    assert not called
    assert pair_scores.default_device_scoring(torch.device("cpu")) is False


def test_duplicates_and_near_duplicates_tie_the_same_way():
    base = [5, 6, 7, 8, 9, 10, 11]
    candidates = torch.tensor([
        [1, 2, 3, 4, 0, 0, 0],
        base,
        [7, 8, 9, 10, 11, 5, 6],  # a rotation: the same n-grams but one per order
        base,  # a duplicate of 1
        [5, 6, 7, 8, 9, 10, 12],  # a near duplicate
        base[:6] + [0],
        base,
    ])
    for references in (None, torch.tensor([base, base[::-1], [5, 6, 7, 0, 0, 0, 0]])):
        for smooth in ("exp", "floor", "method4", "add-one"):
            host = mbr(candidates, references, pad_id=0, smooth=smooth, device_scoring=False, return_matrix=True)
            device = mbr(candidates, references, pad_id=0, smooth=smooth, device_scoring=True, return_matrix=True)
            assert device["chosen"].item() == host["chosen"].item()
            assert torch.equal(device["expected_bleu"], host["expected_bleu"])
            assert torch.equal(device["matrix"], host["matrix"])
            expected = device["expected_bleu"]
            assert expected[1] == expected[3] == expected[6]  # duplicates tie bit for bit
            if references is None:
                assert device["chosen"].item() == 1  # the first of the tied ones


def test_a_batch_of_exact_ties():
    row = torch.tensor([3, 4, 5, 6, 0])
    candidates = torch.stack([row, row, row, row])[None].repeat(3, 1, 1)
    candidates[1, 0] = torch.tensor([9, 9, 9, 9, 9])
    device = mbr(candidates, pad_id=0, device_scoring=True)
    host = mbr(candidates, pad_id=0, device_scoring=False)
    assert device["chosen"].tolist() == host["chosen"].tolist() == [0, 1, 0]


def test_pairwise_sum_is_numpys():
    rng = np.random.default_rng(0)
    for width in (1, 3, 8, 9, 100, 128, 129, 255, 300, 1023, 1024, 2049):
        values = np.sort(rng.random((5, width)) * 10.0 ** rng.integers(-8, 3, (5, width)), axis=1)
        assert np.array_equal(pair_scores.pairwise_sum(torch.from_numpy(values)).numpy(), values.sum(axis=1))


def test_near_ties_go_to_the_host(monkeypatch):
    candidates, _ = _random_batch(5, (4, 6, 10), False)
    host = mbr(candidates, pad_id=0, device_scoring=False, return_matrix=True)
    # every source flagged: the host rescores them all, and the answer is the host's
    monkeypatch.setattr(pair_scores, "near_ties", lambda expected, width: torch.ones(expected.shape[0], dtype=torch.bool))
    device = mbr(candidates, pad_id=0, device_scoring=True, return_matrix=True)
    for key in ("chosen", "expected_bleu", "matrix"):
        assert torch.equal(device[key], host[key])
    expected = torch.tensor([[1.0, 1.0 - 2.0 ** -52, 0.5], [1.0, 0.9, 1.0]], dtype=torch.float64)
    monkeypatch.undo()
    assert pair_scores.near_ties(expected, 3).tolist() == [True, False]


def test_without_float64_the_host_scores(monkeypatch):
    candidates, refs = _random_batch(6, (3, 8, 12), True)
    host = mbr(candidates, refs, pad_id=0, device_scoring=False, return_matrix=True)
    monkeypatch.setattr(tensor_scores, "has_float64", lambda device: False)
    called = []
    monkeypatch.setattr(pair_scores, "score_on_device", lambda *args: called.append(1))
    for device_scoring in (None, True):
        fallback = mbr(candidates, refs, pad_id=0, device_scoring=device_scoring, return_matrix=True)
        assert not called
        assert torch.equal(fallback["chosen"], host["chosen"])
        assert fallback["expected_bleu"].dtype == torch.float32 and fallback["matrix"].dtype == torch.float32
        assert torch.equal(fallback["expected_bleu"], host["expected_bleu"].float())
        assert torch.equal(fallback["matrix"].nan_to_num(-1), host["matrix"].float().nan_to_num(-1))


def test_counting_in_float32_is_exact(monkeypatch):
    import bleukit.tensor.pairs as tensor_pairs
    from bleukit.token_ids import TokenIdRule

    candidates, refs = _random_batch(7, (2, 6, 20), True)
    checked = tensor_pairs.check_tensors(candidates, refs, TokenIdRule(frozenset({0})))
    in_float64 = tensor_pairs._torch_matches(*checked[:2], 4)
    monkeypatch.setattr(tensor_scores, "has_float64", lambda device: False)
    in_float32 = tensor_pairs._torch_matches(*checked[:2], 4)
    assert all(np.array_equal(a, b) for a, b in zip(in_float64, in_float32))


def test_errors_on_the_device_path():
    with pytest.raises(ValueError, match="source 0 has no pseudo-reference"):
        mbr(torch.tensor([[1, 2], [2, 3]]), torch.zeros(2, 2, dtype=torch.long), pad_id=0, device_scoring=True)
    with pytest.raises(ValueError, match="beyond the largest float"):
        mbr(torch.tensor([[1, 2, 3, 4, 5, 6], [1, 2, 3, 4, 5, 6]]), pad_id=0, device_scoring=True,
            smooth="method5", weights=[2000] * 4)
    with pytest.raises(TypeError, match="device_scoring"):
        mbr(torch.tensor([[1, 2], [2, 3]]), pad_id=0, device_scoring="yes")


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_cuda_device_scoring_equals_the_host():
    candidates, refs = _random_batch(8, (8, 32, 40), False)
    host = mbr(candidates, pad_id=0, return_matrix=True, smooth="floor")
    device = mbr(candidates.cuda(), pad_id=0, return_matrix=True, smooth="floor")
    for key in ("chosen", "expected_bleu", "matrix"):
        assert torch.equal(device[key].cpu(), host[key])


def test_mbr_and_pairwise_run_on_a_device_without_float64():
    """Issue 27: under the stand-in for Apple's MPS, mbr raised MPS's float64 TypeError. Now every
    tensor entry point of the diversity API answers there: mbr's scores come back as float32 rounded
    once from the host's float64, the choice is the host's, and pairwise / self-BLEU / most similar
    pairs (scored on the host from the ids) equal their float64 answers exactly."""
    from devices import DeviceWithoutFloat64

    from bleukit import most_similar_pairs, pairwise, self_bleu

    candidates, refs = _random_batch(5, (2, 6, 12), True)
    texts = candidates[0]
    calls = {
        "mbr": lambda: mbr(candidates, refs, ignore_ids=[0, 7], return_matrix=True),
        "pairwise": lambda: pairwise(texts, candidates[1], ignore_ids=[0, 7]),
        "self_bleu": lambda: self_bleu(texts, ignore_ids=[0, 7]),
        "most_similar_pairs": lambda: most_similar_pairs(texts, top=5, ignore_ids=[0, 7]),
    }
    expected = {name: call() for name, call in calls.items()}
    with DeviceWithoutFloat64():
        assert not tensor_scores.has_float64(candidates.device)
        answers = {name: call() for name, call in calls.items()}
    host, fallback = expected.pop("mbr"), answers.pop("mbr")
    assert torch.equal(fallback["chosen"], host["chosen"]) and torch.equal(fallback["best"], host["best"])
    assert fallback["expected_bleu"].dtype == torch.float32
    assert torch.equal(fallback["expected_bleu"], host["expected_bleu"].float())
    assert torch.equal(fallback["matrix"].nan_to_num(-1), host["matrix"].float().nan_to_num(-1))
    assert fallback["signature"] == host["signature"]
    assert np.array_equal(answers["pairwise"].pop("bleu"), expected["pairwise"].pop("bleu"))
    assert answers == expected
    assert 0 < expected["self_bleu"]["self_bleu"] < 1 and len(expected["most_similar_pairs"]["pairs"]) == 5
