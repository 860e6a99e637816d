"""A tiny encoder-decoder and word-level tokenizer built locally, for Trainer tests: no downloads.

The task is copying a short sentence of random words, which a 1-layer BART learns in a few
hundred CPU steps, so BLEU visibly rises with training.
"""

from __future__ import annotations

import random
from typing import List

WORDS = (
    "the cat dog bird sat ran flew on under over a mat log tree red blue green big small "
    "quick slow happy sad old new"
).split()
SPECIALS = ["<pad>", "<s>", "</s>", "<unk>"]


def make_tokenizer():
    """A word-level fast tokenizer: whitespace split, `</s>` appended, pad/bos/eos/unk specials."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    vocab = {token: index for index, token in enumerate(SPECIALS + WORDS)}
    core = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    core.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    core.post_processor = processors.TemplateProcessing(
        single="$A </s>", special_tokens=[("</s>", vocab["</s>"])]
    )
    core.decoder = decoders.WordPiece(prefix="##", cleanup=False)  # joins words with one space
    return PreTrainedTokenizerFast(
        tokenizer_object=core, pad_token="<pad>", bos_token="<s>", eos_token="</s>", unk_token="<unk>"
    )


def make_model(tokenizer, seed: int = 0):
    """A 1-layer BART (d_model 64) from a config, randomly initialised with `seed`."""
    import torch
    from transformers import BartConfig, BartForConditionalGeneration

    torch.manual_seed(seed)
    config = BartConfig(
        vocab_size=len(tokenizer),
        d_model=64,
        encoder_layers=1,
        decoder_layers=1,
        encoder_attention_heads=4,
        decoder_attention_heads=4,
        encoder_ffn_dim=128,
        decoder_ffn_dim=128,
        max_position_embeddings=32,
        dropout=0.0,
        attention_dropout=0.0,
        activation_dropout=0.0,
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        decoder_start_token_id=tokenizer.eos_token_id,
        forced_bos_token_id=None,
        forced_eos_token_id=None,
    )
    model = BartForConditionalGeneration(config)
    model.generation_config.max_length = 14
    model.generation_config.num_beams = 1
    model.generation_config.do_sample = False
    return model


def copy_sentences(count: int, seed: int, min_words: int = 3, max_words: int = 8) -> List[str]:
    rng = random.Random(seed)
    return [" ".join(rng.choices(WORDS, k=rng.randint(min_words, max_words))) for _ in range(count)]


def copy_dataset(tokenizer, count: int, seed: int):
    """A tokenized copy task: the target is the source sentence."""
    from datasets import Dataset

    sentences = copy_sentences(count, seed)
    encoded = tokenizer(sentences)
    return Dataset.from_dict(
        {"input_ids": encoded["input_ids"], "attention_mask": encoded["attention_mask"],
         "labels": encoded["input_ids"]}
    )
