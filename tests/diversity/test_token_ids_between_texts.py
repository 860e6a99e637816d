"""The one token-id rule (bleukit.token_ids) at the entry points that score texts against each other:
`pairwise`, `self_bleu`, `most_similar_pairs`, `mbr` (id lists and padded tensors) and the
metric's methods that forward to them. Every negative id (-100 padding) and every id in
`ignore_ids` (alias `pad_id`) is dropped before counting, as `compute` drops them.

Oracles: `compute` on the same raw ids with the same `ignore_ids` (one pair, or one text against
the others, at a time), and sacreBLEU's sentence_bleu on texts where each kept id is a word and
the dropped ids were removed by hand. Large ids (up to 2**63 - 1) give the numbers of the same
texts written with small ids.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from sacrebleu.metrics import BLEU

from bleukit.core import compute_bleu
from bleukit.diversity.pairwise import most_similar_pairs, pairwise, self_bleu
from bleukit.diversity.mbr import mbr

torch = pytest.importorskip("torch")

# <pad> 0, <s> 1, </s> 2; words from 4. Padding on either side and inside, -100 label padding,
# a duplicate (rows 0 and 4 after stripping), and a row that is specials only (empty).
SPECIALS = [0, 1, 2]
RAW = [
    [1, 4, 5, 6, 7, 8, 2, -100, -100],
    [0, 0, 4, 5, 6, 9, 8, 2],
    [1, 10, 5, 0, 6, 7, 2, -100],
    [4, 4, 5, 11, 2],
    [-100, 1, 4, 5, 6, 7, 8, 2],
    [1, 2, -100, -100],
    [12, 13, 4, 5, 6, 2, 0, 0],
]
STRIPPED = [[t for t in row if t >= 0 and t not in SPECIALS] for row in RAW]
SENTENCE = {"smooth": "exp", "effective_order": True}  # the many-text calls' defaults, for compute


def words(rows):
    return [" ".join(f"w{t}" for t in row) for row in rows]


def compute_sentence(hypothesis, references, **rule):
    """The oracle through compute: one hypothesis against its references, the same raw ids."""
    return compute_bleu([hypothesis], [references], **SENTENCE, **rule)["bleu"]


def sacrebleu_sentence(hypothesis, references):
    return BLEU(effective_order=True, tokenize="none").sentence_score(hypothesis, references).score / 100


def test_the_stripped_rows():
    assert STRIPPED[0] == STRIPPED[4] == [4, 5, 6, 7, 8] and STRIPPED[5] == [] and STRIPPED[2] == [10, 5, 6, 7]


def test_pairwise_of_raw_ids_is_compute_and_sacrebleu_per_pair():
    matrix = pairwise(RAW, ignore_ids=SPECIALS)["bleu"]
    by_compute = np.array([[compute_sentence(a, [b], ignore_ids=SPECIALS) for b in RAW] for a in RAW])
    texts = words(STRIPPED)
    by_sacrebleu = np.array([[sacrebleu_sentence(a, [b]) for b in texts] for a in texts])
    assert np.array_equal(matrix, by_compute)
    np.testing.assert_allclose(matrix, by_sacrebleu, rtol=1e-12, atol=0)
    assert matrix[0, 4] == 1.0 and matrix[5].tolist() == [0.0] * len(RAW)
    assert np.array_equal(pairwise(RAW, ignore_ids=[1, 2], pad_id=0)["bleu"], matrix)  # the alias joins
    # Two sides: raw against stripped gives the same matrix.
    assert np.array_equal(pairwise(RAW[:3], STRIPPED, ignore_ids=SPECIALS)["bleu"], matrix[:3])


def test_only_negative_ids_are_dropped_without_ignore_ids():
    """-100 is always padding; the special ids then count as tokens, as in compute."""
    matrix = pairwise(RAW)["bleu"]
    assert np.array_equal(matrix, np.array([[compute_sentence(a, [b]) for b in RAW] for a in RAW]))
    kept = words([[t for t in row if t >= 0] for row in RAW])
    np.testing.assert_allclose(matrix, [[sacrebleu_sentence(a, [b]) for b in kept] for a in kept], rtol=1e-12, atol=0)
    assert matrix[0, 4] == 1.0  # the same ids but for the -100 padding
    assert matrix[5, 0] > 0 and not np.array_equal(matrix, pairwise(RAW, ignore_ids=SPECIALS)["bleu"])  # <s> </s> count


def test_self_bleu_of_raw_ids_is_the_mean_of_compute_against_the_others():
    result = self_bleu(RAW, ignore_ids=SPECIALS)
    others = [RAW[:i] + RAW[i + 1 :] for i in range(len(RAW))]
    by_compute = [compute_sentence(text, rest, ignore_ids=SPECIALS) for text, rest in zip(RAW, others)]
    texts = words(STRIPPED)
    by_sacrebleu = [sacrebleu_sentence(t, texts[:i] + texts[i + 1 :]) for i, t in enumerate(texts)]
    assert result["sentence_bleu"] == by_compute
    assert result["sentence_bleu"] == pytest.approx(by_sacrebleu, rel=1e-12)
    assert result["self_bleu"] == pytest.approx(math.fsum(by_compute) / len(RAW), rel=1e-15)
    assert result["sentence_bleu"][0] == result["sentence_bleu"][4] == 1.0  # the duplicate
    # Corpus and fairseq's pairwise BLEU from the same statistics: compute on the same ids.
    assert result["corpus_bleu"] == compute_bleu(RAW, others, ignore_ids=SPECIALS, **SENTENCE)["bleu"]
    ordered = [(a, [b]) for i, a in enumerate(RAW) for j, b in enumerate(RAW) if i != j]
    assert result["pairwise_bleu"] == pytest.approx(compute_bleu(
        [a for a, _ in ordered], [b for _, b in ordered], ignore_ids=SPECIALS, **SENTENCE)["bleu"], rel=1e-15)
    assert self_bleu(STRIPPED) == result and self_bleu(RAW, pad_id=0, ignore_ids=[1, 2]) == result
    assert "|tok:ids|" in result["signature"]


def test_self_bleu_of_sets_of_raw_ids():
    sets = [RAW[:4], RAW[4:]]
    result = self_bleu(sets, ignore_ids=SPECIALS)
    assert result["sentence_bleu"] == [self_bleu(group, ignore_ids=SPECIALS)["sentence_bleu"] for group in sets]
    assert result == self_bleu([STRIPPED[:4], STRIPPED[4:]])


def test_most_similar_pairs_of_raw_ids():
    result = most_similar_pairs(RAW, 3, ignore_ids=SPECIALS)
    assert result == most_similar_pairs(STRIPPED, 3)
    matrix = pairwise(RAW, ignore_ids=SPECIALS)["bleu"]
    for pair in result["pairs"]:
        assert (pair["bleu_ij"], pair["bleu_ji"]) == (matrix[pair["i"], pair["j"]], matrix[pair["j"], pair["i"]])
    assert (result["pairs"][0]["i"], result["pairs"][0]["j"], result["pairs"][0]["bleu"]) == (0, 4, 1.0)


def sacrebleu_expected(candidates, pseudo_references=None):
    expected = []
    for i, candidate in enumerate(candidates):
        references = [c for j, c in enumerate(candidates) if j != i] if pseudo_references is None else pseudo_references
        expected.append(math.fsum(sacrebleu_sentence(candidate, [r]) for r in references) / len(references))
    return expected


def test_mbr_of_raw_id_lists():
    result = mbr(RAW, ignore_ids=SPECIALS, return_matrix=True)
    stripped = mbr(STRIPPED, return_matrix=True)
    assert result["expected_bleu"] == stripped["expected_bleu"] and result["chosen"] == stripped["chosen"]
    assert np.array_equal(result["matrix"], stripped["matrix"])
    assert result["best"] == RAW[result["chosen"]]  # the candidate as given
    assert result["expected_bleu"] == pytest.approx(sacrebleu_expected(words(STRIPPED)), rel=1e-12)
    assert result["expected_bleu"][2] == pytest.approx(
        math.fsum(compute_sentence(RAW[2], [r], ignore_ids=SPECIALS) for j, r in enumerate(RAW) if j != 2) / 6, rel=1e-15)
    assert mbr(RAW, pad_id=0, ignore_ids=[1, 2]) == mbr(RAW, ignore_ids=SPECIALS)
    # A batch, with pseudo-references that carry padding too.
    batch = mbr([RAW[:4], RAW[3:]], [RAW[4:], RAW[:2]], ignore_ids=SPECIALS)
    assert batch["expected_bleu"] == mbr([STRIPPED[:4], STRIPPED[3:]], [STRIPPED[4:], STRIPPED[:2]])["expected_bleu"]
    assert batch["expected_bleu"][0] == pytest.approx(
        sacrebleu_expected(words(STRIPPED[:4]), words(STRIPPED[4:])), rel=1e-12)


def padded(rows, width, value):
    return torch.tensor([row + [value] * (width - len(row)) for row in rows])


def test_mbr_of_padded_tensors_follows_the_same_rule():
    """-100 and the named ids dropped wherever they stand; numbers of the stripped lists."""
    candidates = padded(RAW, 10, -100)
    result = mbr(candidates, ignore_ids=SPECIALS, return_matrix=True)
    listed = mbr(STRIPPED, return_matrix=True)
    assert result["chosen"].item() == listed["chosen"]
    assert result["expected_bleu"].tolist() == listed["expected_bleu"]
    assert torch.equal(result["best"], candidates[listed["chosen"]])  # the row as given
    assert mbr(candidates, pad_id=0, ignore_ids=[1, 2])["expected_bleu"].tolist() == listed["expected_bleu"]
    # Only -100 as padding: ignore_ids=() names it, and the specials count as in compute.
    only_negative = mbr(padded(STRIPPED, 6, -100), ignore_ids=())
    assert only_negative["expected_bleu"].tolist() == listed["expected_bleu"]
    # Pseudo-references: a row that is all padding (here all specials and -100) is absent.
    references = padded([RAW[5], RAW[0], RAW[6]], 9, -100)
    with_refs = mbr(candidates[:3], references, ignore_ids=SPECIALS)
    assert with_refs["expected_bleu"].tolist() == mbr(STRIPPED[:3], [STRIPPED[0], STRIPPED[6]])["expected_bleu"]


@pytest.mark.parametrize("offset", [0, 2**63 - 1 - 20])
def test_mbr_tensors_counted_the_torch_way_too(offset):
    """The torch counting (a GPU's, run here on the CPU) drops what the rule drops, and packs no id:
    ids near 2**63 count as small ones."""
    import bleukit.tensor.pairs as bleu_tensor_pairs
    from bleukit.token_ids import TokenIdRule

    candidates = padded([[t + offset if t > 2 else t for t in row] for row in RAW], 10, -100).view(1, len(RAW), 10)
    checked = bleu_tensor_pairs.check_tensors(candidates, None, TokenIdRule(frozenset(SPECIALS)))
    numpy_way = bleu_tensor_pairs._numpy_matches(checked[0], None, 4)
    torch_way = bleu_tensor_pairs._torch_matches(checked[0], None, 4)
    assert all(np.array_equal(a, b) for a, b in zip(numpy_way, torch_way))
    assert numpy_way[1].tolist() == [len(row) for row in STRIPPED]


@pytest.mark.parametrize("offset", [2**40, 2**62, 2**63 - 1 - 20])
def test_large_ids_give_the_numbers_of_small_ones(offset):
    """Ids are renumbered before any packing (INT64_KEY_BOUND), on every path; the rule still
    drops the negative ones and the named ones."""
    big = [[t + offset if t > 2 else t for t in row] for row in RAW]
    assert max(max(row) for row in big) <= 2**63 - 1
    assert np.array_equal(pairwise(big, ignore_ids=SPECIALS)["bleu"], pairwise(RAW, ignore_ids=SPECIALS)["bleu"])
    assert self_bleu(big, ignore_ids=SPECIALS) == self_bleu(RAW, ignore_ids=SPECIALS)
    assert most_similar_pairs(big, 3, ignore_ids=SPECIALS) == most_similar_pairs(RAW, 3, ignore_ids=SPECIALS)
    assert mbr(big, ignore_ids=SPECIALS)["expected_bleu"] == mbr(RAW, ignore_ids=SPECIALS)["expected_bleu"]
    tensors = mbr(padded(big, 10, -100), ignore_ids=SPECIALS)["expected_bleu"].tolist()
    assert tensors == mbr(RAW, ignore_ids=SPECIALS)["expected_bleu"]
    assert compute_sentence(big[2], big[:2], ignore_ids=SPECIALS) == compute_sentence(RAW[2], RAW[:2], ignore_ids=SPECIALS)


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: pairwise([[1, 2**63]]), ValueError, r"texts_a\[0\] holds an id outside 64-bit integers"),
        (lambda: self_bleu([[1], np.array([2**63], dtype=np.uint64)]), ValueError, r"texts\[1\] holds 9223372036854775808"),
        (lambda: compute_bleu([[1, 2**64]], [[1]]), ValueError, "token ids must be below 2"),
        (lambda: pairwise(["a b"], ignore_ids=[2]), ValueError, r"ignore_ids=\[2\] applies to token ids"),
        (lambda: self_bleu(["a b", "c"], pad_id=0), ValueError, r"ignore_ids=\[0\] applies to token ids"),
        (lambda: most_similar_pairs(["a b", "c"], ignore_ids=[0]), ValueError, "applies to token ids"),
        (lambda: mbr(["a b", "c"], ignore_ids=[0]), ValueError, "applies to token ids"),
        (lambda: self_bleu([[1], [2]], ignore_ids=5), TypeError, "ignore_ids must be a collection"),
        (lambda: mbr(torch.tensor([[1, 2], [3, 4]])), TypeError, "ignore_ids=\\(\\) when the only padding"),
    ],
)
def test_errors_say_what_to_pass(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_the_metric_methods_forward_the_rule(bleu):
    assert np.array_equal(bleu.pairwise(RAW, ignore_ids=SPECIALS)["bleu"], pairwise(STRIPPED)["bleu"])
    assert bleu.self_bleu(RAW, pad_id=0, ignore_ids=[1, 2]) == self_bleu(STRIPPED)
    assert bleu.most_similar_pairs(RAW, 2, ignore_ids=SPECIALS) == most_similar_pairs(STRIPPED, 2)
    assert bleu.mbr(RAW, ignore_ids=SPECIALS)["expected_bleu"] == mbr(STRIPPED)["expected_bleu"]
    assert bleu.mbr(padded(RAW, 10, -100), pad_id=0, ignore_ids=[1, 2])["chosen"].item() == mbr(STRIPPED)["chosen"]
