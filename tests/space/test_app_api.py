"""Issue 20, point 6: the Space's API through `gradio_client`, as the card documents it.

`/score`, `/compare` and `/diversity` take text or files directly (no hidden `/lambda_N` to call first) and answer
what `bleukit.core.compute_bleu` and `bleukit.significance.compare.compare` answer; the page's own events are not
endpoints; bad input comes back as the page's message. Oracles: the metric's path and
`bleukit.significance.compare.compare` (itself checked against sacreBLEU's paired tests).
"""

from __future__ import annotations

import re

import pytest

from bleukit.core import compute_bleu
from conftest import REPO, WMT17, WMT17_REFERENCE, wmt17_lines

client_module = pytest.importorskip("gradio_client", reason="gradio_client is not installed")


@pytest.fixture(scope="module")
def client(app_url):
    return client_module.Client(app_url, verbose=False)


def test_only_the_named_endpoints_are_public(client):
    api = client.view_api(return_format="dict", print_info=False)
    assert sorted(api["named_endpoints"]) == ["/compare", "/diversity", "/score"] and api["unnamed_endpoints"] == {}
    parameters = [p["parameter_name"] for p in api["named_endpoints"]["/score"]["parameters"]]
    assert parameters[:4] == ["predictions", "references", "hypothesis_file", "reference_files"]


def test_score_takes_text_directly(client):
    result = client.predict(predictions="the cat the cat on the mat\nyou are ready ?",
                            references="the cat is on the mat\nare you ready ?\n---\nthere is a cat on the mat\nyou are ready",
                            tokenizer="none", api_name="/score")
    expected = compute_bleu(["the cat the cat on the mat", "you are ready ?"],
                            [["the cat is on the mat", "there is a cat on the mat"], ["are you ready ?", "you are ready"]],
                            tokenizer="none")
    assert result == expected


def test_score_takes_files_directly_with_every_option(client):
    hypothesis, reference = wmt17_lines("uedin-nmt.4722.de"), wmt17_lines("newstest2017-ende.ref.de")
    handle_file = client_module.handle_file
    result = client.predict(hypothesis_file=handle_file(str(WMT17 / "uedin-nmt.4722.de")),
                            reference_files=[handle_file(str(WMT17_REFERENCE))], lowercase=True, weights=[0.5, 0.5],
                            return_sentence_scores=True, bootstrap_samples=200, api_name="/score")
    expected = compute_bleu(hypothesis, reference, lowercase=True, weights=[0.5, 0.5], return_sentence_scores=True,
                            bootstrap_samples=200)
    assert result == expected and round(result["bleu"], 4) == 0.4609


def test_the_cards_gradio_client_call_runs_as_written(app_url):
    """The README's block, with the Space's name replaced by this server's address."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```python\n(from gradio_client import .*?)```", readme, flags=re.S).group(1)
    namespace = {}
    code = re.sub(r'Client\("[^"]+"\)', f"Client({app_url!r}, verbose=False)", block)
    code = code.replace('handle_file("hyp.txt")', f"handle_file({str(REPO / 'bleukit' / 'cli' / 'example' / 'hypotheses.txt')!r})")
    code = code.replace('handle_file("ref.txt")', f"handle_file({str(REPO / 'bleukit' / 'cli' / 'example' / 'references.1.txt')!r})")
    exec(code, namespace)
    hypotheses = (REPO / "bleukit" / "cli" / "example" / "hypotheses.txt").read_text(encoding="utf-8").splitlines()
    references = (REPO / "bleukit" / "cli" / "example" / "references.1.txt").read_text(encoding="utf-8").splitlines()
    assert namespace["result"] == compute_bleu(hypotheses, references)


def test_compare_takes_files_and_a_baseline(client):
    from bleukit.significance.compare import compare

    names = ["uedin-nmt.4722.de", "online-B.0.de", "KIT.4950.de"]
    systems = {name: wmt17_lines(name) for name in names}
    reference = wmt17_lines("newstest2017-ende.ref.de")
    handle_file = client_module.handle_file
    result = client.predict(system_files=[handle_file(str(WMT17 / name)) for name in names],
                            reference_files=[handle_file(str(WMT17_REFERENCE))], baseline="online-B.0.de",
                            method="ar", samples=2000, api_name="/compare")
    assert result == compare(systems, reference, baseline="online-B.0.de", method="ar", samples=2000)


def test_compare_takes_pasted_systems(client):
    from bleukit.significance.compare import compare

    result = client.predict(systems="a b c d\ne f g\n===\na b c x\ne f g", references="a b c d\ne f g h",
                            samples=100, seed=3, api_name="/compare")
    assert result == compare({"system 1": ["a b c d", "e f g"], "system 2": ["a b c x", "e f g"]},
                             ["a b c d", "e f g h"], samples=100, seed=3)


def test_compare_counts_ties_when_asked(client):
    """/compare takes count_ties (the conservative p-value) and returns each system's ties, as
    bleukit.significance.compare.compare; the one-segment pair of docs/comparing.md, where every trial ties."""
    from bleukit.significance.compare import compare

    systems = {"system 1": ["sat the sat on cat a the sat"], "system 2": ["the sat mat mat the"]}
    reference = ["on is is ran mat the mat cat dog"]
    pasted = "\n===\n".join(lines[0] for lines in systems.values())
    for count_ties, p_value in ((False, 1 / 10001), (True, 1.0)):
        result = client.predict(systems=pasted, references=reference[0], method="ar", smooth="exp",
                                count_ties=count_ties, api_name="/compare")
        assert result == compare(systems, reference, method="ar", smooth="exp", count_ties=count_ties)
        assert (result["systems"][1]["p_value"], result["systems"][1]["ties"], result["count_ties"]) == (
            pytest.approx(p_value, rel=1e-15), 10000, count_ties)


def test_diversity_takes_text_or_a_file(client, tmp_path):
    from bleukit.diversity.pairwise import most_similar_pairs, self_bleu

    texts = ["the cat sat on the mat", "the cat sat on a mat", "a dog barked", "the cat sat on the mat"]
    result = client.predict(texts="\n".join(texts), top=2, api_name="/diversity")
    assert result == {**self_bleu(texts), "pairs": most_similar_pairs(texts, 2)["pairs"]}
    path = tmp_path / "generations.txt"
    path.write_text("\n".join(texts) + "\n", encoding="utf-8")
    result = client.predict(file=client_module.handle_file(str(path)), tokenizer="none", convention="nltk", top=0,
                            api_name="/diversity")
    assert result == {**self_bleu(texts, tokenizer="none", convention="nltk"), "pairs": None}
    with pytest.raises(client_module.exceptions.AppError, match="pass at least 2"):
        client.predict(texts="only one", api_name="/diversity")


@pytest.mark.parametrize("arguments, message", [
    ({"predictions": "", "references": "a"}, "predictions are empty; pass predictions (one per line) or hypothesis_file"),
    ({"predictions": "a\nb", "references": "a"}, "reference set 1 has 1 line but there are 2 predictions"),
    ({"predictions": "a", "references": "a", "smooth": "nonsense"}, "smooth"),
])
def test_bad_input_comes_back_as_the_pages_message(client, arguments, message):
    with pytest.raises(client_module.exceptions.AppError, match=re.escape(message)):
        client.predict(**arguments, api_name="/score")


def test_a_path_outside_the_upload_folder_is_refused(app_url):
    """A caller cannot make /score read a server file by naming its path: only uploads are read, and
    the refusal says what was refused and what to pass (space/api_guard.py; it was `"error": null`).
    The same request with an uploaded file is answered (the control)."""
    import json
    import urllib.error
    import urllib.request

    def call(path):
        # /score's 15 parameters in order: a hypothesis file, one reference "a", tokenizer none, the rest defaults.
        data = ["", "a", {"path": path, "meta": {"_type": "gradio.FileData"}}, None, "none", False, 4, None, "none",
                None, "closest", False, False, 0, 12345]
        request = urllib.request.Request(f"{app_url}gradio_api/call/score", data=json.dumps({"data": data}).encode(),
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                event = json.loads(response.read())["event_id"]
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read())
        with urllib.request.urlopen(f"{app_url}gradio_api/call/score/{event}", timeout=30) as response:
            return 200, response.read().decode()

    form = (b'--x\r\nContent-Disposition: form-data; name="files"; filename="h.txt"\r\n'
            b"Content-Type: text/plain\r\n\r\na\n\r\n--x--\r\n")
    request = urllib.request.Request(f"{app_url}gradio_api/upload", data=form,
                                     headers={"Content-Type": "multipart/form-data; boundary=x"})
    with urllib.request.urlopen(request, timeout=30) as response:
        uploaded = json.loads(response.read())[0]
    status, answered = call(uploaded)
    assert status == 200 and "event: complete" in answered and '"precisions": [1.0, 0.0, 0.0, 0.0]' in answered
    status, refused = call("/etc/hostname")
    assert status == 422 and refused["detail"][0]["parameter_name"] == "hypothesis_file"
    assert refused["detail"][0]["message"].startswith("the server path '/etc/hostname' is refused")
    assert "handle_file" in refused["detail"][0]["message"]
