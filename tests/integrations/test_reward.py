"""The TRL reward function (`bleu.reward_function`): called as TRL calls it, checked against
sacreBLEU's sentence_score and corpus_score, on text, conversations and token ids.
The same reward in a real GRPOTrainer is in tests/test_grpo.py."""

from __future__ import annotations

import pickle
import warnings

import pytest
from sacrebleu.metrics import BLEU

from bleukit.integrations.reward import REWARD_DEFAULTS, make_reward_function

COMPLETIONS = ["the cat sat on the mat", "a dog", "", "the cat is on the mat .", "big red bird flew over a tree"]
REFERENCES = ["the cat is on the mat", "a dog ran", "x y", "the cat is on the mat.", "the big red bird flew over the tree"]
# sacreBLEU's sentence_bleu settings: smooth_method="exp" (BLEU's default) and effective_order.
SACRE_SENTENCE = BLEU(effective_order=True)


def sacre_sentence(hypotheses, references, metric=SACRE_SENTENCE):
    return [metric.sentence_score(h, r if isinstance(r, list) else [r]).score / 100 for h, r in zip(hypotheses, references)]


def trl_call(reward, completions, references, **extra):
    """Every keyword argument GRPOTrainer passes (TRL 1.x), with the references in a `reference` column."""
    logged = []
    kwargs = dict(
        prompts=["copy this"] * len(completions), completions=completions,
        completion_ids=[[3] * (i + 1) for i in range(len(completions))], reference=references,
        task=["copy"] * len(completions), trainer_state=object(), log_extra=lambda column, values: None,
        log_metric=lambda name, value: logged.append((name, value)),
    )
    kwargs.update(extra)
    return reward(**kwargs), logged


def test_rewards_are_sacrebleu_sentence_bleu_and_the_log_is_corpus_bleu(bleu):
    reward = bleu.reward_function()
    assert reward.__name__ == "bleu"
    rewards, logged = trl_call(reward, COMPLETIONS, REFERENCES)
    assert isinstance(rewards, list) and all(type(r) is float for r in rewards)
    expected = sacre_sentence(COMPLETIONS, REFERENCES)
    assert rewards == pytest.approx(expected, rel=1e-12, abs=1e-15)
    assert [round(r, 6) for r in rewards] == [0.379918, 0.606531, 0.0, 1.0, 0.5578]
    # Our own text path gives the same numbers bit for bit, and the corpus BLEU of the batch.
    ours = bleu.compute(predictions=COMPLETIONS, references=REFERENCES, return_sentence_scores=True, **REWARD_DEFAULTS)
    assert rewards == ours["sentence_bleu"]
    assert logged == [("rewards/bleu/corpus_bleu", ours["bleu"])]
    corpus = BLEU(effective_order=True).corpus_score(COMPLETIONS, [REFERENCES]).score / 100
    assert ours["bleu"] == pytest.approx(corpus, rel=1e-12)
    assert ours["bleu"] != pytest.approx(sum(rewards) / len(rewards))  # corpus BLEU is not the mean


def test_scale_100_and_options_pass_through(bleu):
    rewards, logged = trl_call(bleu.reward_function(scale=100), COMPLETIONS, REFERENCES)
    assert rewards == pytest.approx([100 * r for r in sacre_sentence(COMPLETIONS, REFERENCES)], rel=1e-12, abs=1e-13)
    assert logged[0][1] == pytest.approx(100 * BLEU(effective_order=True).corpus_score(COMPLETIONS, [REFERENCES]).score / 100)
    for options, metric in [
        (dict(smooth="floor"), BLEU(smooth_method="floor", effective_order=True)),
        (dict(smooth="add-k", smooth_value=2, lowercase=True), BLEU(smooth_method="add-k", smooth_value=2, lowercase=True, effective_order=True)),
        (dict(smooth="none", effective_order=False), BLEU(smooth_method="none")),
        (dict(tokenizer="char", max_order=2), BLEU(tokenize="char", max_ngram_order=2, effective_order=True)),
    ]:
        rewards, _ = trl_call(bleu.reward_function(**options), COMPLETIONS, REFERENCES)
        assert rewards == pytest.approx(sacre_sentence(COMPLETIONS, REFERENCES, metric), rel=1e-12, abs=1e-15), options


def test_why_the_reward_smooths_by_default(bleu):
    """Unsmoothed sentence BLEU ties every near miss at 0, leaving GRPO no advantage to learn from."""
    group = ["the cat sat", "a cat sat on a mat", "a cat", "the dog sat on the log"]
    references = ["the cat sat on the mat"] * 4
    plain, _ = trl_call(bleu.reward_function(smooth="none", effective_order=False), group, references)
    assert plain == [0.0, 0.0, 0.0, 0.0]
    smoothed, _ = trl_call(bleu.reward_function(), group, references)
    assert min(smoothed) > 0 and len(set(smoothed)) == 3 and smoothed == pytest.approx(sacre_sentence(group, references), rel=1e-12)


def test_several_references_per_completion(bleu):
    references = [["the cat is on the mat", "a cat sat on the mat"], ["a dog ran", "the dog"]]
    rewards, _ = trl_call(bleu.reward_function(), COMPLETIONS[:2], references)
    assert rewards == pytest.approx(sacre_sentence(COMPLETIONS[:2], references), rel=1e-12)
    assert rewards[1] == pytest.approx(1.0)  # "a dog" is shorter than "a dog ran" but equals "the dog"'s length


def test_conversational_completions_score_the_last_assistant_message(bleu):
    conversations = [
        [{"role": "assistant", "content": "draft"}, {"role": "user", "content": "again"},
         {"role": "assistant", "content": text}, {"role": "tool", "content": "ignored"}]
        for text in COMPLETIONS
    ]
    blocks = [[{"role": "assistant", "content": [{"type": "text", "text": text}]}] for text in COMPLETIONS]
    reward = bleu.reward_function()
    plain, _ = trl_call(reward, COMPLETIONS, REFERENCES)
    assert trl_call(reward, conversations, REFERENCES)[0] == plain
    assert trl_call(reward, blocks, REFERENCES)[0] == plain


def test_other_columns_and_trainer_arguments_are_ignored(bleu):
    reward = bleu.reward_function(reference_column="target")
    rewards = reward(completions=COMPLETIONS[:2], target=REFERENCES[:2])  # no log_metric: nothing logged
    assert rewards == pytest.approx(sacre_sentence(COMPLETIONS[:2], REFERENCES[:2]), rel=1e-12)
    with_extras, logged = trl_call(reward, COMPLETIONS[:2], ["unused", "unused"], target=REFERENCES[:2],
                                   environments=[None, None], images=None)
    assert with_extras == rewards and len(logged) == 1


def test_token_ids_score_completion_ids_like_the_id_path_of_compute(bleu):
    completion_ids = [[5, 6, 7, 8, 2], [9, 10, 2], [5, 6, 7, 11, 12, 2]]
    reference_ids = [[5, 6, 7, 8, 2], [9, 10, 13, 2], [5, 6, 7, 11, 12, 14]]
    reward = bleu.reward_function(reference_column="reference_ids", token_ids=True, ignore_ids=(0, 2))
    rewards, logged = trl_call(reward, ["ignored"] * 3, [], completion_ids=completion_ids, reference_ids=reference_ids,
                               reference=["unused"] * 3)
    strip = [[i for i in ids if i != 2] for ids in completion_ids], [[i for i in ids if i != 2] for ids in reference_ids]
    ours = bleu.compute(predictions=strip[0], references=strip[1], return_sentence_scores=True, **REWARD_DEFAULTS)
    assert rewards == ours["sentence_bleu"] and logged == [("rewards/bleu/corpus_bleu", ours["bleu"])]
    # The ids as text through sacreBLEU (tokenizer "none": one word per id) give the same scores.
    as_text = [" ".join(map(str, ids)) for ids in strip[0]], [" ".join(map(str, ids)) for ids in strip[1]]
    assert rewards == pytest.approx(sacre_sentence(*as_text, BLEU(tokenize="none", effective_order=True)), rel=1e-12)
    assert rewards[0] == 1.0 and 0 < rewards[1] < 1


def test_token_id_tensors_go_through_bleu_tensor_with_the_same_numbers(bleu):
    torch = pytest.importorskip("torch")
    completion_ids = [[5, 6, 7, 8, 2], [9, 10, 2], [5, 6, 7, 11, 12, 2]]
    reference_ids = [[5, 6, 7, 8, 2], [9, 10, 13, 2], [5, 6, 7, 11, 12, 14]]
    reward = bleu.reward_function(reference_column="reference_ids", token_ids=True, ignore_ids=(0, 2))
    from_lists = reward(completion_ids=completion_ids, reference_ids=reference_ids)

    def padded(rows, width, left=False):
        return torch.tensor([[0] * (width - len(r)) + r if left else r + [0] * (width - len(r)) for r in rows])

    for left in (False, True):
        rewards = reward(completion_ids=padded(completion_ids, 7, left), reference_ids=padded(reference_ids, 8, left))
        assert rewards == from_lists
    grouped = torch.stack([padded(reference_ids, 8), padded([[1], [9, 10], [1]], 8)], dim=1)  # (B, 2, L2)
    assert reward(completion_ids=padded(completion_ids, 7), reference_ids=grouped) == pytest.approx(
        reward(completion_ids=completion_ids, reference_ids=[[r, s] for r, s in zip(reference_ids, [[1], [9, 10], [1]])]),
        rel=1e-15)
    with pytest.raises(TypeError, match="pass the references as a padded torch.long tensor too"):
        reward(completion_ids=padded(completion_ids, 7), reference_ids=reference_ids)
    no_pad = bleu.reward_function(reference_column="reference_ids", token_ids=True)
    with pytest.raises(ValueError, match=r"ignore_ids=\(tokenizer.pad_token_id"):
        no_pad(completion_ids=padded(completion_ids, 7), reference_ids=padded(reference_ids, 8))


def test_token_id_tensors_on_cuda_score_as_lists_do(bleu):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    completion_ids = torch.tensor([[5, 6, 7, 8, 2, 0], [9, 10, 2, 0, 0, 0]], device="cuda")
    reference_ids = torch.tensor([[5, 6, 7, 8, 2], [9, 10, 13, 2, 0]], device="cuda")
    reward = bleu.reward_function(reference_column="reference_ids", token_ids=True, ignore_ids=(0, 2))
    logged = []
    rewards = reward(completion_ids=completion_ids, reference_ids=reference_ids, log_metric=lambda n, v: logged.append(v))
    expected = bleu.compute(predictions=[[5, 6, 7, 8], [9, 10]], references=[[5, 6, 7, 8], [9, 10, 13]],
                            return_sentence_scores=True, **REWARD_DEFAULTS)
    assert rewards == expected["sentence_bleu"] and logged == [expected["bleu"]]


def test_missing_column_and_length_mismatch_say_what_arrived(bleu):
    reward = bleu.reward_function(reference_column="target")
    with pytest.raises(ValueError, match=r"from the column 'target', but got the columns \['reference', 'task'\]"):
        trl_call(reward, COMPLETIONS, REFERENCES)
    with pytest.raises(ValueError, match=r"got 5 completions but 4 entries in the reference column 'reference'"):
        trl_call(bleu.reward_function(), COMPLETIONS, REFERENCES[:4])
    with pytest.raises(ValueError, match=r"got 3 completions but 2 entries"):
        bleu.reward_function(token_ids=True)(completion_ids=[[1], [2], [3]], reference=[[1], [2]])


def test_a_bad_row_gets_none_and_one_warning_and_the_others_their_scores(bleu):
    """TRL's convention: a reward function returns None for a completion it cannot score, and TRL
    leaves it out of its means (tests/test_grpo.py runs that in a real GRPOTrainer). One bad row
    never stops the run: the others get their sentence BLEU, the log the corpus BLEU of the others."""
    completions = ["the cat sat on the mat", [{"role": "user", "content": "no answer"}], "a dog", 3, "x y"]
    references = [["the cat is on the mat"], ["unused"], [], ["a"], ["x y"]]
    reward = bleu.reward_function()
    with pytest.warns(UserWarning) as caught:
        rewards, logged = trl_call(reward, completions, references)
    good = [0, 4]
    expected = bleu.compute(predictions=[completions[i] for i in good], references=[references[i] for i in good],
                            return_sentence_scores=True, **REWARD_DEFAULTS)
    assert rewards == [expected["sentence_bleu"][0], None, None, None, expected["sentence_bleu"][1]]
    assert rewards[0] == pytest.approx(sacre_sentence(["the cat sat on the mat"], ["the cat is on the mat"])[0], rel=1e-12)
    assert logged == [("rewards/bleu/corpus_bleu", expected["bleu"])]
    messages = [str(w.message) for w in caught if "cannot be scored" in str(w.message)]
    assert messages == [
        "BLEU reward (references from 'reference'): 3 of 5 completions cannot be scored and get None, which TRL "
        "leaves out of its reward means and of their group's baseline (their advantage is 0). The first, "
        "completion 1: completions[1] is a conversation with no assistant message (roles ['user']); pass "
        "plain-text completions, or messages like [{'role': 'assistant', 'content': '...'}]. This warning is "
        "given once per reward function."
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # warned once: the next bad batch is quiet
        again, _ = trl_call(reward, ["a dog", "a dog"], [[], "a dog"])
    assert again == [None, 1.0]
    with pytest.warns(UserWarning, match=r"completion 0: prediction 0 has no references \(references\[0\] is empty\)"):
        trl_call(bleu.reward_function(), ["a dog"], [[]])
    with pytest.warns(UserWarning, match=r"completion 1: references\[1\] is int; pass a string or a list of strings"):
        assert trl_call(bleu.reward_function(), ["a", "b"], ["a", 3])[0] == [1.0, None]
    # A batch with no row to score logs nothing (TRL then has no value to average for the step).
    with pytest.warns(UserWarning, match="1 of 1 completions"):
        assert trl_call(bleu.reward_function(), ["a"], [[]]) == ([None], [])


def test_an_id_past_64_bits_costs_its_row_not_the_training_step(bleu):
    """One completion with an id of 2**63 raised for the whole batch and stopped training (previous
    main); now it gets None with the one warning, and the other rows their scores."""
    reward = make_reward_function(token_ids=True)
    ids = [[5, 6, 7, 8], [5, 2**63, 7], [5, 6, 9, 8]]
    references = [[5, 6, 7, 8], [5, 6, 7], [5, 6, 7, 8]]
    with pytest.warns(UserWarning, match="1 of 3 completions cannot be scored"):
        rewards = reward(completion_ids=ids, reference=references)
    alone = reward(completion_ids=[ids[0], ids[2]], reference=[references[0], references[2]])
    assert rewards == [alone[0], None, alone[1]] and rewards[0] == 1.0


def test_token_id_rows_without_a_reference_get_none_on_lists_and_tensors(bleu):
    torch = pytest.importorskip("torch")
    reward = bleu.reward_function(reference_column="reference_ids", token_ids=True, ignore_ids=(0, 2))
    completion_ids = [[5, 6, 7, 8, 2], [9, 10, 2], [5, 6, 7, 11, 12, 2]]
    with pytest.warns(UserWarning, match=r"1 of 3 completions cannot be scored .* completion 1: prediction 1 has no list of references"):
        on_lists = reward(completion_ids=completion_ids, reference_ids=[[[5, 6, 7, 8]], [], [[5, 6, 7, 11, 12, 14]]])
    expected = bleu.compute(predictions=[[5, 6, 7, 8], [5, 6, 7, 11, 12]], references=[[5, 6, 7, 8], [5, 6, 7, 11, 12, 14]],
                            return_sentence_scores=True, **REWARD_DEFAULTS)["sentence_bleu"]
    assert on_lists == [expected[0], None, expected[1]]
    padded = torch.tensor([[5, 6, 7, 8, 2, 0], [9, 10, 2, 0, 0, 0], [5, 6, 7, 11, 12, 2]])
    references = torch.tensor([[[5, 6, 7, 8, 0, 0], [0, 0, 0, 0, 0, 0]],
                               [[2, 0, 0, 0, 0, 0], [-100, 0, 0, 0, 0, 0]],  # only </s> and padding: no reference
                               [[5, 6, 7, 11, 12, 14], [0, 0, 0, 0, 0, 0]]])
    fresh = bleu.reward_function(reference_column="reference_ids", token_ids=True, ignore_ids=(0, 2))  # warns once each
    with pytest.warns(UserWarning, match=r"completion 1: references\[1\] has no reference row with a token"):
        assert fresh(completion_ids=padded, reference_ids=references) == on_lists


def test_what_is_not_one_row_still_raises(bleu):
    """A missing column, a column that is one string, or a missing input is the set-up, not a row."""
    reward = bleu.reward_function()
    with pytest.raises(TypeError, match="column 'reference' is str"):
        reward(completions=["a"], reference="a")
    with pytest.raises(TypeError, match="completions is missing"):
        reward(reference=["a"])
    with pytest.raises(TypeError, match="token_ids=True scores completion_ids, but none were passed"):
        bleu.reward_function(token_ids=True)(completions=["a"], reference=[[1]])


@pytest.mark.parametrize(
    "options, error, message",
    [
        (dict(smoth="exp"), TypeError, r"unknown option\(s\) \['smoth'\]"),
        (dict(smooth="expo"), ValueError, "unknown smooth 'expo'"),
        (dict(max_order=0), ValueError, "max_order must be an integer >= 1"),
        (dict(return_sentence_scores=True), TypeError, r"unknown option\(s\) \['return_sentence_scores'\]"),
        (dict(scale=10), ValueError, "scale must be 1 .* or 100"),
        (dict(reference_column=3), TypeError, "reference_column must be the name of a dataset column"),
        (dict(token_ids="yes"), TypeError, "token_ids must be True or False"),
        (dict(ignore_ids=(0,)), ValueError, r"ignore_ids=\[0\] applies to token ids, but the reward scores text"),
        (dict(token_ids=True, ignore_ids=0), TypeError, "ignore_ids must be a collection"),
        (dict(token_ids=True, tokenizer="intl"), ValueError, "no tokenizer applies"),
        (dict(token_ids=True, lowercase=True), ValueError, "lowercase=True applies to text"),
    ],
)
def test_options_are_checked_when_the_function_is_built(bleu, options, error, message):
    with pytest.raises(error, match=message):
        bleu.reward_function(**options)


def test_the_reward_pickles_for_trl_async_workers(bleu):
    """TRL's async GRPO pickles reward functions for a spawned process; a closure would fail here."""
    for reward in (make_reward_function(reference_column="target", scale=100, smooth="floor"),
                   bleu.reward_function(reference_column="target", scale=100, smooth="floor")):
        copy = pickle.loads(pickle.dumps(reward))
        assert copy.__name__ == "bleu" and "smooth:floor[0.1]" in repr(copy)
        assert copy(completions=COMPLETIONS, target=REFERENCES) == reward(completions=COMPLETIONS, target=REFERENCES)

