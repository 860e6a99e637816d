"""The Compare systems tab without a browser: bleukit.significance.compare's numbers, the chosen baseline, the plot's
axis, the segments that differ most, the boxes' meanings and warnings (issue 20, points 4, 5, 8).

Oracles: `bleukit.significance.compare.compare` (itself checked against sacreBLEU's paired tests) and sacreBLEU's
sentence_score.
"""

from __future__ import annotations

import html
import re

import pytest
import sacrebleu

from space import compare_tab, compare_view, inputs, layout
from conftest import wmt17_lines
from space_calls import stored, run_compare


# ------------------------------------------------------------------ Compare systems


def test_compare_tab_gives_bleu_compare_numbers_and_the_segments_that_differ_most():
    from bleukit.significance.compare import compare

    reference = wmt17_lines("newstest2017-ende.ref.de")[:200]
    first, second = wmt17_lines("uedin-nmt.4722.de")[:200], wmt17_lines("online-B.0.de")[:200]
    out = run_compare("\n".join(first) + "\n\n===\n\n" + "\n".join(second), "\n".join(reference), samples=200,
                      seed="7", baseline="system 2")
    expected = compare({"system 1": first, "system 2": second}, [[r] for r in reference], samples=200, seed=7,
                       baseline="system 2")
    assert out["status"].visible is False
    table = out["table"]
    assert table["system"].tolist() == ["system 2", "system 1"]  # the chosen baseline first
    assert table["BLEU"].tolist() == [f"{100 * row['bleu']:.2f}" for row in expected["systems"]]
    assert table["p-value"].tolist() == ["baseline", f"{expected['systems'][1]['p_value']:.4f}"]
    assert table["μ ± ci (95%)"].iloc[1] == f"{100 * expected['systems'][1]['mean']:.2f} ± {100 * expected['systems'][1]['ci']:.2f}"
    assert out["plot"].count('class="ci-row"') == 2 and expected["signature"] in out["caption"]
    # The differences: system 1 against the baseline, largest first, with the reference and both outputs.
    oracle = {name: [sacrebleu.BLEU(effective_order=True).sentence_score(h, [r]).score / 100 for h, r in zip(lines, reference)]
              for name, lines in (("system 1", first), ("system 2", second))}
    gaps = [a - b for a, b in zip(oracle["system 1"], oracle["system 2"])]
    assert out["against"].choices == [("system 1", "system 1")] and out["against"].value == "system 1"
    compared = stored(out["state"])
    frame = compare_view.differences_frame(compared, "system 1")
    top = int(frame["#"].iloc[0]) - 1
    assert abs(gaps[top]) == pytest.approx(max(abs(g) for g in gaps), abs=1e-12)
    assert frame["difference"].iloc[0] == pytest.approx(gaps[top], abs=1e-12)
    assert frame["references"].iloc[0] == [reference[top]]
    assert (frame["output system 2"].iloc[0], frame["output system 1"].iloc[0]) == (second[top], first[top])
    view = out["differences"]
    assert view.index(f"segment {top + 1:,}") < view.index(f"{gaps[top]:+.4f}") < view.index(html.escape(reference[top]))
    assert html.escape(first[top]) in view and html.escape(second[top]) in view
    assert compare_tab.show_differences(out["state"], "system 1") == view


def test_compare_tab_explains_bad_input():
    status = run_compare("a b", "a b")["status"]
    assert status.visible is True and "paste two or more systems" in status.value
    status = run_compare("a\n===\nb\nc", "a", method="ar")["status"]
    assert "Cannot compare" in status.value and "system 'system 2'" in status.value
    status = run_compare("a\n===\nb", "a", baseline="system 9")["status"]
    assert "baseline 'system 9' is not one of the systems" in status.value
    for samples, message in [(0, "samples 0 is not a whole number >= 1"), (10**6, "more than the page allows")]:
        assert message in run_compare("a\n===\nb", "a", samples=samples)["status"].value


def test_compare_samples_and_seed_boxes_mean_what_they_show():
    """Issue 20, point 5: the samples box shows the number used (1,000 resamples, 10,000 trials), the seed
    box 12345 (blank is the same), `none` draws fresh randomness; as sacreBLEU's CLI."""
    from bleukit.significance.compare import compare

    assert compare_tab.default_samples("bootstrap") == 1000 and compare_tab.default_samples("ar") == 10000
    assert compare_view.parse_test_samples(None, "ar") == 10000 and compare_view.parse_test_samples("", "bootstrap") == 1000
    reference = wmt17_lines("newstest2017-ende.ref.de")[:120]
    first, second = wmt17_lines("uedin-nmt.4722.de")[:120], wmt17_lines("KIT.4950.de")[:120]
    pasted = "\n".join(first) + "\n===\n" + "\n".join(second)
    expected = compare({"system 1": first, "system 2": second}, [[r] for r in reference], method="ar")
    for seed in ("", "12345"):
        out = run_compare(pasted, "\n".join(reference), method="ar", samples=10000, seed=seed)
        assert out["table"]["p-value"].iloc[1] == f"{expected['systems'][1]['p_value']:.4f}"
        assert "approximate randomization, 10,000 trials, seed 12345" in out["caption"]
    fresh = run_compare(pasted, "\n".join(reference), samples=50, seed="none")
    assert "seed none" in fresh["caption"] and "|seed:none" in fresh["caption"]


def test_compare_tab_shows_the_ties_and_counts_them_when_asked():
    """Issue 16's ties on the page: two checkpoints that differ in 6 of 80 segments (docs/comparing.md:
    AR, 10,000 trials, strict p-value 0.068 with 1,838 ties, conservative 0.252). The table says how
    many trials tied; the Count ties box gives compare(count_ties=True)'s p-value and signature."""
    from bleukit.significance.compare import compare
    from synthetic_systems import checkpoints

    systems, reference = checkpoints(6, 0)
    pasted = "\n".join(systems["A"]) + "\n===\n" + "\n".join(systems["B"])
    renamed = {"system 1": systems["A"], "system 2": systems["B"]}
    for count_ties, p_value in ((False, "0.0679"), (True, "0.2517")):
        out = run_compare(pasted, "\n".join(reference), method="ar", count_ties=count_ties)
        expected = compare(renamed, reference, method="ar", count_ties=count_ties)
        assert expected["systems"][1]["ties"] == 1838 and f"{expected['systems'][1]['p_value']:.4f}" == p_value
        assert out["table"]["p-value"].tolist() == ["baseline", p_value]
        assert out["table"]["ties"].tolist() == ["—", "1,838"]
        assert expected["signature"] in out["caption"] and ("|ties:counted" in out["caption"]) == count_ties
        assert "**Ties:** system 2 1,838 of 10,000 trials gave exactly the observed difference" in out["caption"]
        assert ("the conservative p-value)" if count_ties else "sacreBLEU's strict p-value") in out["caption"]
    different = run_compare("\n".join(wmt17_lines("uedin-nmt.4722.de")[:100]) + "\n===\n"
                            + "\n".join(wmt17_lines("KIT.4950.de")[:100]),
                            "\n".join(wmt17_lines("newstest2017-ende.ref.de")[:100]), samples=200)
    assert different["table"]["ties"].tolist() == ["—", "0"] and "No resample tied the observed difference" in different["caption"]


def test_the_count_ties_box_is_on_the_page_and_sent_with_the_click():
    demo = layout.build_demo()
    box = next(block for block in demo.blocks.values() if getattr(block, "elem_id", None) == "compare-count-ties")
    assert box.value is False and "conservative" in box.label
    by_elem = {getattr(block, "elem_id", None): block._id for block in demo.blocks.values()}
    click = next(d for d in demo.config["dependencies"] if [by_elem["compare-button"], "click"] in [list(t) for t in d["targets"]])
    assert by_elem["compare-count-ties"] in click["inputs"]


def test_a_paired_test_on_few_segments_is_shown_with_a_warning():
    one = run_compare("a b c\n===\na b d", "a b c")
    assert one["status"].visible is True and "Only 1 segment" in one["status"].value
    assert "0.0010 here is only the smallest the test can report" in one["status"].value
    assert "1 segment;" in one["caption"] and "1 segments" not in one["caption"] + one["differences"]
    assert "The 1 segment where" in one["differences"]
    reference = wmt17_lines("newstest2017-ende.ref.de")[:40]
    few = run_compare("\n".join(wmt17_lines("uedin-nmt.4722.de")[:40]) + "\n===\n" + "\n".join(reference[::-1]),
                      "\n".join(reference))
    assert "Only 40 segments" in few["status"].value and "rough" in few["status"].value
    many = run_compare("\n".join(wmt17_lines("uedin-nmt.4722.de")[:100]) + "\n===\n" + "\n".join(wmt17_lines("KIT.4950.de")[:100]),
                       "\n".join(wmt17_lines("newstest2017-ende.ref.de")[:100]))
    assert many["status"].visible is False


def test_interval_plot_fits_its_axis_to_the_systems_and_has_ticks():
    """Issue 20, point 4: four systems at 26.0-26.6 were 5 px apart on a 0-based axis, their bars hidden."""
    rows = [{"name": n, "bleu": b, "mean": b, "ci": 0.0065, "p_value": None}
            for n, b in [("A", 0.2600), ("B", 0.2620), ("C", 0.2640), ("D", 0.2660)]]
    plot = compare_view.interval_html({"systems": rows})
    ticks = [float(value) for value in  # each tick on both scales: read the 0–100 one
             re.findall(r'class="ci-tick" style="left:[\d.]+%">.*?<span class="scale-percent">([\d.]+)<', plot)]
    assert len(ticks) >= 3 and ticks[0] > 20 and ticks[-1] < 30  # not 0 to 100
    dots = [float(x) for x in re.findall(r'class="ci-dot" style="left:([\d.]+)%"', plot)]
    assert dots == sorted(dots) and min(b - a for a, b in zip(dots, dots[1:])) > 8  # 0.2 apart: 8% of the track
    assert all(0 <= x <= 100 for x in dots)
    assert compare_view.nice_ticks(25.2, 27.4) == [25.5, 26.0, 26.5, 27.0]


def test_baseline_menu_follows_the_systems_in_the_form(tmp_path):
    menu = compare_tab.baseline_choices(inputs.SOURCE_TEXT, "a\n===\nb\n===\nc", None, None)
    assert [value for _, value in menu.choices] == ["system 1", "system 2", "system 3"] and menu.value == "system 1"
    assert compare_tab.baseline_choices(inputs.SOURCE_TEXT, "a\n===\nb\n===\nc", None, "system 3").value == "system 3"
    files = []
    for name in ("uedin.txt", "kit.txt"):
        (tmp_path / name).write_text("x\n", encoding="utf-8")
        files.append(str(tmp_path / name))
    menu = compare_tab.baseline_choices(inputs.SOURCE_FILES, "", files, "system 3")
    assert [value for _, value in menu.choices] == ["uedin.txt", "kit.txt"] and menu.value == "uedin.txt"


def test_a_new_upload_replaces_the_files_in_the_browser_without_a_request():
    """Issue 20, point 4: Gradio appends a second upload to a multiple-file field (5 systems, not 3). The
    replacement runs in the browser (a JS-only event), so Score right after an upload does not wait for
    the server; the browser tests upload twice."""
    from space.uploads import KEEP_LATEST_JS

    demo = layout.build_demo()
    by_elem = {getattr(block, "elem_id", None): block._id for block in demo.blocks.values()}
    for field in ("reference-files", "compare-system-files", "compare-reference-files"):
        uploads = [d for d in demo.config["dependencies"] if [by_elem[field], "upload"] in [list(x) for x in d["targets"]]]
        assert len(uploads) == 1 and uploads[0]["backend_fn"] is False and "list.slice(before.length)" in uploads[0]["js"]
    assert "FIELD" in KEEP_LATEST_JS
