"""The Space's HTTP door, against `python app.py` (the shared `app_url` server):

4. Only /score, /compare and /diversity answer a call by name: every other event in the page's
   config (GET /config) is refused (404, with a message) on every route that takes a name, while
   the three answer (and the page keeps its own channels: tests/space/test_app_edges_browser.py).
5. A name that is nothing answers 404 with a message (it was a bare 500); a server path given as a
   file is refused with a message naming it and what to pass instead (it was `"error": null`).
Oracles: `bleukit.core.compute_bleu`, `bleukit.significance.compare.compare`,
`bleukit.diversity.pairwise.self_bleu`.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest

from bleukit.core import compute_bleu
from conftest import REPO

pytestmark = pytest.mark.slow  # starts the server, as tests/space/test_app_api.py

API = {"score", "compare", "diversity"}
HYPOTHESES = REPO / "bleukit" / "cli" / "example" / "hypotheses.txt"


def post(url: str, body) -> tuple:
    """(status, parsed JSON answer) of a POST."""
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        answer = error.read()
        try:
            return error.code, json.loads(answer)
        except ValueError:
            return error.code, answer.decode(errors="replace")


def call(app_url: str, name: str, data) -> tuple:
    """A named call as Gradio documents it: POST /gradio_api/call/<name>, then read its event."""
    status, answer = post(f"{app_url}gradio_api/call/{name}", {"data": data})
    if status != 200:
        return status, answer
    with urllib.request.urlopen(f"{app_url}gradio_api/call/{name}/{answer['event_id']}", timeout=60) as response:
        stream = response.read().decode()
    event = stream.split("event: ")[-1]
    return event.split("\n", 1)[0], json.loads(event.split("data: ", 1)[1])


def upload(app_url: str, name: str, content: bytes) -> str:
    """The path Gradio's upload route answers for a file."""
    form = (f'--x\r\nContent-Disposition: form-data; name="files"; filename="{name}"\r\n'
            "Content-Type: text/plain\r\n\r\n").encode() + content + b"\r\n--x--\r\n"
    request = urllib.request.Request(f"{app_url}gradio_api/upload", data=form,
                                     headers={"Content-Type": "multipart/form-data; boundary=x"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())[0]


def file_data(path: str) -> dict:
    return {"path": path, "meta": {"_type": "gradio.FileData"}}


def full(endpoint: str, **given) -> list:
    """Every parameter of an API function in order (a call by name takes them all), its defaults
    where not given."""
    import inspect

    from space import api

    parameters = inspect.signature(getattr(api, endpoint)).parameters.values()
    return [given.pop(p.name) if p.name in given else p.default for p in parameters]


def test_every_page_event_refuses_a_call_by_name_and_the_api_answers(app_url):
    """The issue: POST /gradio_api/call/run_diversity, /run_page, /lambda_8 returned results."""
    with urllib.request.urlopen(f"{app_url}config", timeout=30) as response:
        dependencies = json.loads(response.read())["dependencies"]
    names = {dependency["api_name"] for dependency in dependencies if dependency["api_name"]}
    assert API <= names and {"run_diversity", "run_page", "run_example", "score_click"} <= names
    assert len(names - API) >= 40  # every page event, each tried on every route that takes a name
    for name in sorted(names - API):
        for route in ("call", "call/v2", "run", "api"):
            status, answer = post(f"{app_url}gradio_api/{route}/{name}", {"data": {} if route == "call/v2" else []})
            assert status == 404, (route, name, status, answer)
            assert answer["detail"].startswith(f"/{name} is one of the page's own events, not part of this Space's API")
            assert "The API is /score, /compare and /diversity" in answer["detail"]
    # A direct call runs its body's fn_index, whatever the name: a page event so is refused too...
    page_event = next(d for d in dependencies if d["api_name"] == "run_page")
    status, answer = post(f"{app_url}gradio_api/run/score", {"data": [], "fn_index": page_event["id"]})
    assert status == 404 and answer["detail"].startswith(f"fn_index {page_event['id']} names one of the page's own events")
    # ...except as the page calls its unqueued events (/run/predict, their fn_index, its session): the
    # options panel's title, here. A queued one goes through the queue, as the page sends it.
    title = next(d for d in dependencies if d["api_name"] == "lambda" and not d["queue"])
    form = ["13a", False, 4, "", "none", "", "closest", False]
    status, answer = post(f"{app_url}gradio_api/run/predict", {"data": form, "fn_index": title["id"], "session_hash": "s2"})
    assert status == 200 and answer["data"][0]["label"] == "Options: tokenizer 13a, order 4, no smoothing (the defaults)"
    assert post(f"{app_url}gradio_api/run/predict", {"data": form, "fn_index": title["id"]})[0] == 404
    assert page_event["queue"] and post(f"{app_url}gradio_api/run/predict", {
        "data": [None, 1, "segment"], "fn_index": page_event["id"], "session_hash": "s2"})[0] == 404

    # The three answer: the metric's, the test's and self-BLEU's numbers.
    expected = compute_bleu(["the cat the cat on the mat"], [["the cat is on the mat"]], tokenizer="none")
    assert call(app_url, "score", full("score", predictions="the cat the cat on the mat",
                                       references="the cat is on the mat", tokenizer="none")) == ("complete", [expected])
    from bleukit.diversity.pairwise import most_similar_pairs, self_bleu
    from bleukit.significance.compare import compare

    texts = ["the cat sat on the mat", "the cat sat on a mat", "a dog barked"]
    assert call(app_url, "diversity", full("diversity", texts="\n".join(texts), top=1)) == (
        "complete", [{**self_bleu(texts), "pairs": most_similar_pairs(texts, 1)["pairs"]}])
    status, result = call(app_url, "compare", full("compare", systems="a b c d\ne f g\n===\na b c x\ne f g",
                                                   references="a b c d\ne f g h", samples=100, seed=3))
    assert (status, result) == ("complete", [compare({"system 1": ["a b c d", "e f g"], "system 2": ["a b c x", "e f g"]},
                                                     ["a b c d", "e f g h"], samples=100, seed=3)])


@pytest.mark.parametrize("route", ["call", "call/v2", "run", "api"])
def test_a_name_that_is_nothing_answers_404_with_a_message(app_url, route):
    status, answer = post(f"{app_url}gradio_api/{route}/nonesuch", {"data": []})
    assert status == 404, answer
    assert answer["detail"].startswith("there is no API endpoint /nonesuch. The API is /score, /compare and /diversity")
    assert "gradio_client" in answer["detail"] and 'api_name="/score"' in answer["detail"]


@pytest.mark.parametrize("name, data, parameter, path, text", [
    ("score", ["", "a", file_data("/etc/passwd")], "hypothesis_file", "/etc/passwd", "predictions"),
    ("score", ["a", "", None, [file_data(str(HYPOTHESES))]], "reference_files", str(HYPOTHESES), "references"),
    ("compare", ["", "a", [file_data("/etc/passwd"), file_data("/etc/hostname")]], "system_files", "/etc/passwd",
     "systems"),
    ("diversity", ["", file_data("/etc/passwd")], "file", "/etc/passwd", "texts"),
])
def test_a_server_path_is_refused_with_what_to_pass_instead(app_url, name, data, parameter, path, text):
    """The issue: `"error": null`. Now 422 in Gradio's validation form (gradio_client raises
    ValidationError with it), naming the parameter, the path and what to pass."""
    status, answer = call(app_url, name, data)
    assert status == 422, answer
    [refusal] = answer["detail"]
    assert refusal["parameter_name"] == parameter and refusal["is_valid"] is False
    assert refusal["message"].startswith(f"the server path {path!r} is refused: the API reads only files uploaded")
    assert "handle_file('your/file.txt')" in refusal["message"] and f"or pass its text as {text}" in refusal["message"]


def test_an_uploaded_file_is_read_and_the_queue_refuses_a_server_path_too(app_url):
    """The control: the same call with an uploaded file is answered. And gradio_client's own channel
    (/gradio_api/queue/join, by fn_index) refuses the server path with the same message."""
    uploaded = upload(app_url, "h.txt", "the cat the cat on the mat\n".encode())
    data = full("score", references="the cat is on the mat", hypothesis_file=file_data(uploaded), tokenizer="none")
    expected = compute_bleu(["the cat the cat on the mat"], [["the cat is on the mat"]], tokenizer="none")
    assert call(app_url, "score", data) == ("complete", [expected])

    with urllib.request.urlopen(f"{app_url}config", timeout=30) as response:
        score_id = next(d["id"] for d in json.loads(response.read())["dependencies"] if d["api_name"] == "score")
    data = full("score", references="a", hypothesis_file=file_data("/etc/passwd"))
    status, answer = post(f"{app_url}gradio_api/queue/join", {"data": data, "fn_index": score_id, "session_hash": "s1"})
    assert status == 422 and answer["detail"][0]["parameter_name"] == "hypothesis_file"
    assert answer["detail"][0]["message"].startswith("the server path '/etc/passwd' is refused")
