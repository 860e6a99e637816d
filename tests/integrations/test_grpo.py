"""The BLEU reward in a real TRL GRPOTrainer: a tiny causal LM built from a config with a
word-level tokenizer (no downloads), a few CPU steps, and the rewards TRL logged checked against
sentence BLEU of the completions it generated (this module's text path and sacreBLEU)."""

from __future__ import annotations

import math
import random

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")
trl = pytest.importorskip("trl")

from tiny_seq2seq import WORDS, make_tokenizer  # noqa: E402

NUM_GENERATIONS = 4
STEPS = 2
# The chat template of a model that only needs to tell turns apart: each message's content, then </s>.
CHAT_TEMPLATE = (
    "{% for message in messages %}{{ message['content'] }} </s> {% endfor %}"
    "{% if add_generation_prompt %}{% endif %}"
)


class Recorder:
    """Delegates to the reward and keeps what TRL passed and what it returned; keeps the name."""

    def __init__(self, reward):
        self.reward = reward
        self.__name__ = reward.__name__
        self.calls = []

    def __call__(self, **kwargs):
        rewards = self.reward(**kwargs)
        self.calls.append((kwargs, rewards))
        return rewards


def tiny_causal_lm(tokenizer, seed: int = 0):
    """A 1-layer Llama (hidden size 32) from a config, randomly initialised with `seed`."""
    torch.manual_seed(seed)
    config = transformers.LlamaConfig(
        vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=1,
        num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=64,
        pad_token_id=tokenizer.pad_token_id, bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id, tie_word_embeddings=True,
    )
    return transformers.LlamaForCausalLM(config)


def dataset(tokenizer, conversational: bool):
    from datasets import Dataset

    rng = random.Random(7)
    sentences = [" ".join(rng.choices(WORDS[:8], k=5)) for _ in range(4)]
    prompts = [[{"role": "user", "content": s}] for s in sentences] if conversational else sentences
    # Few distinct words, so random completions share some with the reference and rewards vary.
    return Dataset.from_dict({"prompt": prompts, "reference": sentences, "topic": ["copy"] * 4,
                              "reference_ids": tokenizer(sentences)["input_ids"]})


def train(bleu, tmp_path, conversational: bool, **reward_options):
    tokenizer = make_tokenizer()
    tokenizer.chat_template = CHAT_TEMPLATE
    recorder = Recorder(bleu.reward_function(**reward_options))
    args = trl.GRPOConfig(
        output_dir=str(tmp_path), use_cpu=True, report_to="none", logging_steps=1, max_steps=STEPS,
        per_device_train_batch_size=NUM_GENERATIONS, num_generations=NUM_GENERATIONS,
        max_completion_length=8, temperature=1.0, seed=0, save_strategy="no", bf16=False,
        dataloader_num_workers=0,
    )
    trainer = trl.GRPOTrainer(
        model=tiny_causal_lm(tokenizer), reward_funcs=recorder, args=args,
        train_dataset=dataset(tokenizer, conversational), processing_class=tokenizer,
    )
    trainer.train()
    return trainer, recorder, tokenizer


def step_logs(trainer):
    return [entry for entry in trainer.state.log_history if "rewards/bleu/mean" in entry]


@pytest.mark.parametrize("conversational", [False, True], ids=["plain", "conversational"])
def test_grpo_logs_sentence_bleu_of_its_completions(bleu, tmp_path, conversational):
    from sacrebleu.metrics import BLEU

    trainer, recorder, _ = train(bleu, tmp_path, conversational)
    logs = step_logs(trainer)
    assert len(logs) == STEPS and len(recorder.calls) == STEPS
    oracle = BLEU(effective_order=True)  # sacreBLEU's sentence_bleu settings, the reward's defaults
    all_rewards = []
    for (kwargs, rewards), log in zip(recorder.calls, logs):
        completions = kwargs["completions"]
        assert len(completions) == NUM_GENERATIONS and kwargs["topic"] == ["copy"] * NUM_GENERATIONS
        assert "trainer_state" in kwargs and callable(kwargs["log_metric"])
        texts = [c[-1]["content"] for c in completions] if conversational else completions
        references = kwargs["reference"]
        ours = bleu.compute(predictions=texts, references=references, smooth="exp", effective_order=True,
                            return_sentence_scores=True)
        assert rewards == ours["sentence_bleu"]
        for reward, text, reference in zip(rewards, texts, references):
            assert reward == pytest.approx(oracle.sentence_score(text, [reference]).score / 100, rel=1e-12, abs=1e-15)
        # TRL keeps rewards, and sums what log_metric gets, in float32: equal to float32 precision.
        assert log["rewards/bleu/mean"] == pytest.approx(sum(rewards) / len(rewards), rel=1e-6, abs=1e-7)
        assert log["rewards/bleu/corpus_bleu"] == pytest.approx(ours["bleu"], rel=1e-6, abs=1e-7)
        assert ours["bleu"] == pytest.approx(oracle.corpus_score(texts, [references]).score / 100, rel=1e-12)
        all_rewards.extend(rewards)
    assert all(0.0 <= r <= 1.0 for r in all_rewards) and not math.isnan(sum(all_rewards))
    assert len(set(all_rewards)) > 1, "rewards all equal: the test would not tell scores apart"


def test_grpo_token_id_rewards_score_completion_ids(bleu, tmp_path):
    """token_ids=True: TRL's completion_ids against a column of reference ids, special ids (padding,
    <s>, </s>, <unk>) ignored. The word-level tokenizer maps words to ids one to one, so the text
    path on the decoded completions (tokenizer "none") is an oracle."""
    special_ids = make_tokenizer().all_special_ids
    trainer, recorder, tokenizer = train(
        bleu, tmp_path, conversational=False, reference_column="reference_ids", token_ids=True,
        ignore_ids=special_ids,
    )
    logs = step_logs(trainer)
    assert len(logs) == STEPS
    for (kwargs, rewards), log in zip(recorder.calls, logs):
        texts = kwargs["completions"]
        assert tokenizer.batch_decode(kwargs["completion_ids"], skip_special_tokens=True) == texts
        text_path = bleu.compute(predictions=texts, references=kwargs["reference"], tokenizer="none", smooth="exp",
                                 effective_order=True, return_sentence_scores=True)
        assert rewards == text_path["sentence_bleu"]
        assert log["rewards/bleu/mean"] == pytest.approx(sum(rewards) / len(rewards), rel=1e-6, abs=1e-7)
        assert log["rewards/bleu/corpus_bleu"] == pytest.approx(text_path["bleu"], rel=1e-6, abs=1e-7)


def test_grpo_trains_on_when_a_row_cannot_be_scored_and_leaves_it_out_of_its_means(bleu, tmp_path):
    """A dataset row with an empty list of references: its completions get None (TRL's convention),
    one warning is given, training goes on, and what TRL logs is over the other completions only:
    `rewards/bleu/mean` their mean, `rewards/bleu/corpus_bleu` their corpus BLEU (TRL averages what
    log_metric gets over processes and the generation batches of a logging step; one each here)."""
    import warnings

    from datasets import Dataset

    tokenizer = make_tokenizer()
    rng = random.Random(7)
    sentences = [" ".join(rng.choices(WORDS[:8], k=5)) for _ in range(4)]
    references = [[s] for s in sentences]
    references[2] = []  # the bad row
    train_set = Dataset.from_dict({"prompt": sentences, "reference": references})
    recorder = Recorder(bleu.reward_function())
    args = trl.GRPOConfig(
        output_dir=str(tmp_path), use_cpu=True, report_to="none", logging_steps=1, max_steps=STEPS,
        per_device_train_batch_size=2 * NUM_GENERATIONS, num_generations=NUM_GENERATIONS,  # two prompts a step
        max_completion_length=8, temperature=1.0, seed=0, save_strategy="no", bf16=False, dataloader_num_workers=0,
    )
    trainer = trl.GRPOTrainer(model=tiny_causal_lm(tokenizer), reward_funcs=recorder, args=args,
                              train_dataset=train_set, processing_class=tokenizer)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        trainer.train()
    ours = [w for w in caught if "cannot be scored" in str(w.message)]
    assert len(ours) == 1 and "4 of 8 completions cannot be scored" in str(ours[0].message)
    logs = step_logs(trainer)
    assert len(logs) == STEPS == len(recorder.calls)  # both steps ran; each of the 4 prompts came once
    bad_steps = 0
    for (kwargs, rewards), log in zip(recorder.calls, logs):
        good = [i for i, reference in enumerate(kwargs["reference"]) if reference]
        assert [i for i, reward in enumerate(rewards) if reward is None] == sorted(set(range(8)) - set(good))
        bad_steps += len(good) < 8
        texts = [kwargs["completions"][i] for i in good]
        ours = bleu.compute(predictions=texts, references=[kwargs["reference"][i] for i in good],
                            return_sentence_scores=True, smooth="exp", effective_order=True)
        assert [rewards[i] for i in good] == ours["sentence_bleu"]
        assert log["rewards/bleu/mean"] == pytest.approx(sum(ours["sentence_bleu"]) / len(good), rel=1e-6, abs=1e-7)
        assert log["rewards/bleu/corpus_bleu"] == pytest.approx(ours["bleu"], rel=1e-6, abs=1e-7)
        assert not math.isnan(log["loss"])
    assert bad_steps == 1
