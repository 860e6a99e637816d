"""Paired significance tests on the command line, in both grammars.

Oracles: the real `sacrebleu` CLI on three WMT17 systems (same seed, same draws, so the same
p-values), and `bleukit.significance.compare.compare` called directly for this module's grammar.
"""

from __future__ import annotations

import json
import re

import pytest

from bleukit.significance.compare import compare
from cli_runs import HYPOTHESES, REFERENCES_1, REFERENCES_2, assert_same_paired_json, ours, sacrebleu_cli
from conftest import WMT17, WMT17_REFERENCE

WMT17_SYSTEMS = ["C-3MA.4959.de", "FBK.4870.de", "KIT.4950.de"]


def wmt17_paths() -> list:
    return [WMT17 / name for name in WMT17_SYSTEMS]


@pytest.mark.parametrize("options", [["-pbs", "--paired-bs-n", "100"], ["-par", "--paired-ar-n", "100"]],
                         ids=["bootstrap", "randomization"])
def test_wmt17_paired_tests_equal_sacrebleu_cli(options):
    """Three WMT17 systems, sacreBLEU's grammar and its default JSON: same systems, scores, p-values, CIs."""
    systems = wmt17_paths()
    mine = ours(WMT17_REFERENCE, "-i", *systems, *options)
    theirs = sacrebleu_cli(WMT17_REFERENCE, "-i", *systems, *options)
    assert mine.returncode == 0 == theirs.returncode, mine.stderr + theirs.stderr
    assert_same_paired_json(mine.stdout, theirs.stdout)


@pytest.fixture()
def three_systems(tmp_path):
    """A baseline, a system close to reference 1, and one made of reference 2's wording."""
    paths = {}
    for name, lines in (("base.txt", HYPOTHESES), ("sysA.txt", REFERENCES_1[:6] + HYPOTHESES[6:]),
                        ("sysB.txt", REFERENCES_2), ("ref.txt", REFERENCES_1)):
        paths[name] = tmp_path / name
        paths[name].write_text("\n".join(lines) + "\n", encoding="utf-8")
    return paths


def test_json_is_the_compare_result(three_systems):
    base, sys_a, sys_b, ref = (str(three_systems[name]) for name in ("base.txt", "sysA.txt", "sysB.txt", "ref.txt"))
    completed = ours(base, sys_a, sys_b, "-r", ref, "--paired-bs", "--paired-n", "200", "--seed", "7", "--json")
    assert completed.returncode == 0, completed.stderr
    expected = compare({base: HYPOTHESES, sys_a: REFERENCES_1[:6] + HYPOTHESES[6:], sys_b: REFERENCES_2},
                       [[line] for line in REFERENCES_1], method="bootstrap", samples=200, seed=7)
    assert json.loads(completed.stdout) == json.loads(json.dumps(expected))


def test_text_table_names_baseline_marks_significance_and_baseline_option(three_systems):
    base, sys_a, sys_b, ref = (str(three_systems[name]) for name in ("base.txt", "sysA.txt", "sysB.txt", "ref.txt"))
    completed = ours(base, sys_a, sys_b, "-r", ref, "--paired-ar", "--paired-n", "500", "--baseline", sys_b)
    assert completed.returncode == 0, completed.stderr
    expected = compare({base: HYPOTHESES, sys_a: REFERENCES_1[:6] + HYPOTHESES[6:], sys_b: REFERENCES_2},
                       [[line] for line in REFERENCES_1], baseline=sys_b, method="ar", samples=500)
    table = completed.stdout
    assert f"Baseline: {sys_b}" in table
    for system in expected["systems"]:
        if system["p_value"] is None:
            continue
        mark = "*" if system["p_value"] < 0.05 else ""
        assert re.search(rf"{re.escape(system['name'])} │ {system['bleu']:.4f} │ +{system['p_value']:.4f}{re.escape(mark)} +│", table)
    assert any(s["p_value"] is not None and s["p_value"] < 0.05 for s in expected["systems"])
    assert expected["signature"] in table


def test_latex_table_pastes_into_a_paper(three_systems):
    base, sys_a, ref = (str(three_systems[name]) for name in ("base.txt", "sysA.txt", "ref.txt"))
    completed = ours(base, sys_a, "-r", ref, "-pbs", "--paired-n", "100", "-s", "exp", "-w", "1", "-f", "latex")
    assert completed.returncode == 0, completed.stderr
    expected = compare({base: HYPOTHESES, sys_a: REFERENCES_1[:6] + HYPOTHESES[6:]}, [[line] for line in REFERENCES_1],
                       samples=100, smooth="exp")
    lines = completed.stdout.splitlines()
    assert lines[0] == "\\begin{tabular}{lrrr}" and "\\end{tabular}" in lines
    system = expected["systems"][1]
    row = (f"{sys_a.replace('_', chr(92) + '_')} & {100 * system['bleu']:.1f} & {100 * system['mean']:.1f} $\\pm$ "
           f"{100 * system['ci']:.1f} & {system['p_value']:.4f}{'*' if system['p_value'] < 0.05 else ''} \\\\")
    assert row in lines


def test_baseline_from_stdin(three_systems):
    base, sys_a, ref = (three_systems[name] for name in ("base.txt", "sysA.txt", "ref.txt"))
    piped = ours("-", sys_a, "-r", ref, "-pbs", "--paired-n", "100", "--json", stdin=base.read_text(encoding="utf-8"))
    named = ours(base, sys_a, "-r", ref, "-pbs", "--paired-n", "100", "--json")
    assert piped.returncode == 0, piped.stderr
    piped_systems, named_systems = json.loads(piped.stdout)["systems"], json.loads(named.stdout)["systems"]
    assert [s["p_value"] for s in piped_systems] == [s["p_value"] for s in named_systems]
    assert [s["bleu"] for s in piped_systems] == [s["bleu"] for s in named_systems]


@pytest.mark.parametrize(
    "arguments, message",
    [
        (["{sysA}", "-r", "{ref}", "{sysB}", "--paired-bs"], "Every file after -r is a reference"),
        (["{ref}", "-i", "{base}", "-pbs"], "compares two or more systems"),
        (["{base}", "{sysA}", "-r", "{ref}", "-pbs", "--baseline", "nope.txt"], "is not one of the hypothesis files"),
        (["{base}", "{short}", "-r", "{ref}", "-pbs"], "has 2 lines but"),
        (["{base}", "{sysA}", "-r", "{ref}", "-pbs", "-par"], "not allowed with argument"),
        (["{base}", "{sysA}", "-r", "{ref}", "-pbs", "-ci"], "drop -ci"),
        (["{base}", "{sysA}", "-r", "{ref}", "--paired-n", "10"], "needs --paired-bs or --paired-ar"),
        (["{base}", "{sysA}", "-r", "{ref}", "-pbs", "--paired-n", "0"], "samples must be an integer >= 1"),
        (["{ref}", "-i", "{base}", "{sysA}", "-m", "chrf"], "invalid choice: 'chrf'"),
        (["{base}", "{base}", "-r", "{ref}", "-pbs"], "is given twice"),
    ],
    ids=["system-after-r", "one-system", "bad-baseline", "lengths", "both-tests", "ci-with-bs",
         "n-without-test", "zero-samples", "unknown-metric", "same-system-twice"],
)
def test_bad_paired_input_exits_2_with_a_message(three_systems, tmp_path, arguments, message):
    short = tmp_path / "short.txt"
    short.write_text("one\ntwo\n", encoding="utf-8")
    names = {"base": three_systems["base.txt"], "sysA": three_systems["sysA.txt"], "sysB": three_systems["sysB.txt"],
             "ref": three_systems["ref.txt"], "short": short}
    completed = ours(*(argument.format(**names) for argument in arguments))
    assert completed.returncode == 2
    assert message in completed.stderr
    assert completed.stdout == ""


def test_a_near_copy_reports_its_ties_and_count_ties_counts_them(three_systems, tmp_path):
    """A copy of the baseline with one segment changed: most trials rebuild the observed split. The
    p-value is sacreBLEU's CLI's (strict count); the ties are reported, and --count-ties counts them."""
    base, ref = three_systems["base.txt"], three_systems["ref.txt"]
    near = tmp_path / "near.txt"
    near.write_text("\n".join(REFERENCES_1[:1] + HYPOTHESES[1:]) + "\n", encoding="utf-8")
    theirs = sacrebleu_cli(ref, "-i", base, near, "-par", "--paired-ar-n", "2000")
    mine = ours(ref, "-i", base, near, "-par", "--paired-ar-n", "2000")
    assert mine.returncode == 0 == theirs.returncode, mine.stderr + theirs.stderr
    assert_same_paired_json(mine.stdout, theirs.stdout)
    assert "gave exactly the observed difference; not counted" in mine.stderr

    as_json = ours(base, near, "-r", ref, "-par", "--paired-n", "2000", "-s", "exp", "--json")
    system = json.loads(as_json.stdout)["systems"][1]
    assert system["p_value"] == json.loads(theirs.stdout)[1]["BLEU"]["p_value"] and system["ties"] > 1000
    conservative = json.loads(ours(base, near, "-r", ref, "-par", "--paired-n", "2000", "-s", "exp", "--json",
                                   "--count-ties").stdout)["systems"][1]
    assert round(conservative["p_value"] * 2001) == round(system["p_value"] * 2001) + system["ties"]

    report = ours(base, near, "-r", ref, "-par", "--paired-n", "2000").stdout
    assert re.search(rf"ties: {re.escape(str(near))} [\d,]+ of 2,000 trials gave exactly the observed difference; "
                     "not counted", report)
    assert "ties:counted" in ours(base, near, "-r", ref, "-par", "--count-ties").stdout
    refused = ours(base, near, "-r", ref, "--count-ties")
    assert refused.returncode == 2 and "--count-ties needs --paired-bs or --paired-ar" in refused.stderr
