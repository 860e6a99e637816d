"""The Score tab's downloads (CSV, JSON, citation) for any text, and where they live.

Text cut in the middle of an emoji ("caf\\ud83d": a lone surrogate) made writing the downloads raise
UnicodeEncodeError, and the tab showed a bare "Error" badge. The rule (docs/demo.md, "Score a
system", Output): downloads are always valid UTF-8, a lone surrogate written as U+FFFD (as a browser's
TextEncoder writes it), a pair split in two as its character. The files belong to their result: the
store deletes them with it.
"""

from __future__ import annotations

import csv
import io
import json

from space import downloads, handlers, inputs, scoring, store
from space_calls import DEFAULT_FORM

CUT_EMOJI = "caf\ud83d"  # "café ☕"-like text cut inside a UTF-16 pair
SPLIT_PAIR = "tea \ud83c\udf75 time"  # a pair as two code points: one character in UTF-8


def scored_with_surrogates():
    predictions = [f"the {CUT_EMOJI} is open", SPLIT_PAIR, "plain text"]
    references = [[f"the {CUT_EMOJI} is open", "the cafe is open"], ["tea time"], ["plain text"]]
    return scoring.score_corpus(predictions, references, {}), predictions, references


def read_utf8(path) -> str:
    return path.read_bytes().decode("utf-8")  # strict: a lone surrogate's bytes would raise here


def test_downloads_of_text_with_a_lone_surrogate_are_valid_utf8_with_u_fffd():
    scored, predictions, references = scored_with_surrogates()
    paths = downloads.write_downloads(scored, predictions, references)
    segments, result, citation = (downloads.DOWNLOADS_ROOT / path for path in paths)
    rows = list(csv.DictReader(io.StringIO(read_utf8(segments))))
    assert [row["prediction"] for row in rows] == ["the caf\ufffd is open", "tea \U0001f375 time", "plain text"]
    assert rows[0]["reference_1"] == "the caf\ufffd is open" and rows[0]["reference_2"] == "the cafe is open"
    assert rows[1]["reference_2"] == "" and len(rows) == 3
    assert json.loads(read_utf8(result))["bleu"] == scored.result["bleu"]
    assert scored.signature in read_utf8(citation)
    store.STORE.discard(store.STORE.put(scored, owner="test"))


def test_the_table_sends_text_the_browser_can_take():
    scored, _, _ = scored_with_surrogates()
    frame, _ = scoring.segments_page(scored, 1, "segment")
    for column in ("prediction", "reference 1"):
        for cell in frame[column]:
            cell.encode("utf-8")
    assert frame["prediction"][0] == "the caf\ufffd is open" and frame["prediction"][1] == "tea \U0001f375 time"
    assert scored.segment(0)[0] == f"the {CUT_EMOJI} is open"  # the store keeps the text as scored
    scored.texts.delete()


def test_the_score_tab_with_a_lone_surrogate_gives_downloads_not_an_error():
    outputs = handlers.named(handlers.run_score(None, inputs.SOURCE_TEXT, f"the {CUT_EMOJI} is open\nplain text",
                                                "the cafe is open\nplain text", None, None, *DEFAULT_FORM))
    assert outputs["state"] is not None
    files = outputs["downloads"].value
    paths = [item["path"] if isinstance(item, dict) else getattr(item, "path", item) for item in files]
    text = read_utf8(downloads.DOWNLOADS_ROOT / next(path for path in map(str, paths) if path.endswith(".csv")))
    assert "\ufffd" in text or "caf" in text
    handlers.release_state(outputs["state"])


def test_the_downloads_folder_goes_with_its_result():
    scored, predictions, references = scored_with_surrogates()
    paths = downloads.write_downloads(scored, predictions, references)
    folder = scored.downloads.path
    assert folder.parent == downloads.DOWNLOADS_ROOT and all(path.startswith(str(folder)) for path in paths)
    bounded = store.ResultStore()
    key = bounded.put(scored, owner="tab")
    assert bounded.disk == store.disk_bytes(scored) > scored.texts.disk_bytes  # the downloads count too
    again = downloads.write_downloads(scored, predictions, references)  # written again: the old folder goes
    assert not folder.exists() and scored.downloads.path.exists()
    bounded.discard(key)
    assert not scored.downloads.path.exists() and not scored.texts.path.exists()
    assert not any(downloads.DOWNLOADS_ROOT.joinpath(path).exists() for path in again)


def test_gradio_serves_the_downloads_where_they_are():
    from gradio import utils

    scored, predictions, references = scored_with_surrogates()
    paths = downloads.write_downloads(scored, predictions, references)
    assert all(utils.is_static_file(path) for path in paths)  # not copied into Gradio's cache
    scored.downloads.delete()
    scored.texts.delete()
