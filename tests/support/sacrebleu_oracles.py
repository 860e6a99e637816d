"""sacreBLEU's paired tests as the oracle of compare(): its PairedTest on the same systems, answering
in our units, and the check that our result agrees with it (tests/significance/test_compare.py says
to what precision, and why)."""

from __future__ import annotations

import logging
import math


def sacrebleu_paired(named_systems, references, method, samples, confidence_samples=-1, seed=12345,
                     monkeypatch=None, **bleu_options):
    """sacreBLEU's PairedTest, answering per system: (bleu, p_value, mean, ci) in our 0..1 units.

    `references` are grouped per segment as ours are; sacreBLEU takes parallel reference streams.
    """
    from sacrebleu.metrics import BLEU
    from sacrebleu.significance import PairedTest

    logging.getLogger("sacrebleu").setLevel(logging.ERROR)
    if monkeypatch is not None:
        monkeypatch.setenv("SACREBLEU_SEED", str(seed))
    grouped = [[r] if isinstance(r, str) else list(r) for r in references]
    streams = [[group[k] for group in grouped] for k in range(len(grouped[0]))]
    metric = BLEU(references=streams, **bleu_options)
    test = PairedTest(list(named_systems), {"BLEU": metric}, None, test_type=method, n_samples=samples,
                      n_ar_confidence=confidence_samples)
    _, scores = test()
    scale = lambda v: None if v is None else v / 100  # noqa: E731
    return [(r.score / 100, r.p_value, scale(r.mean), scale(r.ci)) for r in scores["BLEU"]]


def assert_like_sacrebleu(ours, expected):
    for system, (bleu, p_value, mean, ci) in zip(ours["systems"], expected, strict=True):
        assert math.isclose(system["bleu"], bleu, rel_tol=1e-10), (system["name"], system["bleu"], bleu)
        assert system["p_value"] == p_value, (system["name"], system["p_value"], p_value)
        if mean is None:
            assert system["mean"] is None and system["ci"] is None
        else:
            assert math.isclose(system["mean"], mean, rel_tol=1e-12), (system["name"], system["mean"], mean)
            assert math.isclose(system["ci"], ci, rel_tol=1e-12), (system["name"], system["ci"], ci)
