"""docs/comparing.md's claims: compare's defaults and signature, the near ties, the WMT17 benchmark table."""

from __future__ import annotations

from typing import List

from docs_numbers import Claim

from .common import REFERENCE, WMT17_SYSTEMS, Code, card_names, compare_of, constant, signature_of_test


CLAIMS: List[Claim] = [
    Claim("docs/comparing.md", 'print(result["signature"])       # ...{*}',
          lambda code, out: [out.stdout[out.stdout.index("|version"):].strip()], line=True),
    Claim("docs/comparing.md", "(named `system {}`,\n  `system {}`, ...)",
          lambda code: [int(s["name"].split()[-1]) for s in compare_of(code, [["a"], ["b"]], ["a"])["systems"]]),
    Claim("docs/comparing.md", "`bootstrap_samples` resamples,\n  {} by default", lambda code: [compare_of(code, method="bootstrap")["samples"]]),
    Claim("docs/comparing.md", "`trials`, {} by default", lambda code: [compare_of(code, method="ar")["samples"]]),
    Claim("docs/comparing.md", "The signature is compute's plus the test: `{*}`, or\n  `{*}` with confidence resamples, and `{*}` before",
          lambda code: [signature_of_test(code, method="bootstrap"), signature_of_test(code, method="ar", confidence_samples=1000),
                        signature_of_test(code, method="ar", count_ties=True).split("|seed")[0].split("|n:10000")[1]]),
    Claim("docs/comparing.md", "smallest possible p-value is {_}/(samples + {_}) ({} with {} resamples)",
          lambda code: [compare_of(code, [list(code.lines(REFERENCE)), list(code.lines("PROMT-Rule-based.4735.de"))],
                                   list(code.lines(REFERENCE)))["systems"][1]["p_value"], compare_of(code)["samples"]]),
    Claim("docs/comparing.md", "# p_value {} ({}/{}, sacreBLEU's), ties {}",
          lambda code, out: [out.value["p_value"], 1, round(1 / out.value["p_value"]), out.value["ties"]], line=True),
    Claim("docs/comparing.md", "# p_value {}: nothing here says the two differ", lambda code, out: [out.value["p_value"]], line=True),
    Claim("docs/comparing.md", "On {} generated segments where system B is system A with {} segments rewritten\n"
          "(`tests/significance/test_compare_near_ties.py`'s `checkpoints({}, {})`), AR with {} trials gives the strict\n"
          "p-value {} with {} ties, and the conservative {}; with {} rewritten, {} and {}.",
          lambda code: near_ties(code)),
    Claim("docs/comparing.md", "With identical systems every statistic ties a difference of {}: strict 1/(samples + 1), the\n"
          "smallest p-value there is, conservative {}.",
          lambda code: [(same := compare_of(code, [["a b c d"], ["a b c d"]], ["a b c x"], method="ar"))["systems"][1]["bleu"]
                        - same["systems"][0]["bleu"],
                        compare_of(code, [["a b c d"], ["a b c d"]], ["a b c x"], method="ar", count_ties=True)["systems"][1]["p_value"]]),
    Claim("docs/comparing.md", "those within {}\n(relative) of the observed difference",
          lambda code: [constant("bleukit/significance/paired.py", "RECHECK_MARGIN")]),
    Claim("docs/comparing.md", "runs both tests on {} systems (the {} WMT17 en-de systems\nand a hybrid: the first half of SYSTRAN "
          "joined to the second half of xmu; baseline online-B;\n{} segments)",
          lambda code: [len(code.wmt17_comparison["ar"]), len(WMT17_SYSTEMS), len(code.lines(REFERENCE))]),
    *[Claim("docs/comparing.md", f"\n{name} {{}} {{}} {{}} {{}} {{}} {{}} ± {{}}\n" if name != "online-B.0.de" else
            f"\n{name} {{}} {{}} ± {{}}\n", lambda code, name=name: comparison_row(code, name))
      for name in [*WMT17_SYSTEMS, "hybrid-SYSTRAN+xmu.de"]],
    Claim("docs/comparing.md", "'method': 'ar', 'samples': {},\n#  'seed': {}, 'count_ties': False, 'signature': '...{*}'}",
          lambda code, out: [out.ns["result"]["samples"], out.ns["result"]["seed"],
                             out.ns["result"]["signature"][out.ns["result"]["signature"].index("|test"):]], line=True),
]


def near_ties(code: Code) -> list:
    """docs/comparing.md's near-identical checkpoints (tests/significance/test_compare_near_ties.py)."""
    from synthetic_systems import checkpoints

    values = []
    for changed in (6, 3):
        systems, reference = checkpoints(changed, 0)
        strict = compare_of(code, list(systems.values()), reference, method="ar")
        conservative = compare_of(code, list(systems.values()), reference, method="ar", count_ties=True)
        if changed == 6:
            values += [len(reference), changed, changed, 0, strict["samples"], strict["systems"][1]["p_value"],
                       strict["systems"][1]["ties"], conservative["systems"][1]["p_value"]]
        else:
            values += [changed, strict["systems"][1]["p_value"], conservative["systems"][1]["p_value"]]
    return values


def comparison_row(code: Code, name: str) -> list:
    """A row of docs/comparing.md's benchmark table: BLEU, the bootstrap's p-value (ours and sacreBLEU's,
    which the page says are equal), AR's, the bootstrap mean ± ci, on the 0-100 scale."""
    bs, ar = code.wmt17_comparison["bootstrap"][name], code.wmt17_comparison["ar"][name]
    if bs["p_value"] is None:
        return [100 * bs["bleu"], 100 * bs["mean"], 100 * bs["ci"]]
    return [100 * bs["bleu"], bs["p_value"], bs["p_value"], ar["p_value"], ar["p_value"], 100 * bs["mean"], 100 * bs["ci"]]


def comparing_names(code: Code) -> dict:
    """The names docs/comparing.md's blocks assume."""
    from bleukit.significance.compare import compare

    return {**card_names(code), "compare": compare, "baseline_lines": list(code.lines("online-B.0.de")),
            "new_lines": list(code.lines("uedin-nmt.4722.de")), "ensemble_lines": list(code.lines("KIT.4950.de")),
            "references": list(code.lines(REFERENCE))}
