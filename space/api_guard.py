"""The API's door, in front of Gradio's routes: only the named endpoints (/score, /compare, /diversity)
answer a call by name, a name that is no endpoint answers 404 with a message, and a file the API is
to read must have been uploaded (a path on the server is refused with a message, as a 422).

Why a middleware: Gradio 6's `api_visibility` decides what its API docs and `gradio_client` show,
not what its HTTP routes run. "public" is listed and callable; "undocumented" is hidden and callable;
"private" is hidden and refused by `gradio_client` (it asks the API info first), but
`POST /gradio_api/call/<name>` (and `/call/v2/<name>`, `/run/<name>`, `/api/<name>`) look a function up
by its `api_name`, or by a body's `fn_index`, whatever its visibility (gradio/route_utils.get_fn), so
every page event answered plain HTTP, and a name matching nothing raised a 500. Nor does Gradio say
why it refused a server path (its event answers `"error": null` unless the app shows every error).

The page keeps its own channels: queued events go through `/gradio_api/queue/join` by `fn_index`
(as `gradio_client` calls the API too), and events with `queue=False` through
`/gradio_api/run/predict` with their `fn_index` and the page's session; both pass here.
"""

from __future__ import annotations

import json
import re
from typing import Any, Awaitable, Callable, Dict, Iterator, List, Optional, Tuple

API_ENDPOINTS = "/score, /compare and /diversity"
HOW_TO_CALL = ('e.g. POST /gradio_api/call/score with {"data": [...]}, or gradio_client\'s '
               'Client(url).predict(..., api_name="/score"); docs/demo.md, "The API"')
# Each file parameter of the API, and the text parameter that takes the same input.
TEXT_INSTEAD = {"hypothesis_file": "predictions", "reference_files": "references", "system_files": "systems",
                "file": "texts"}
_ROUTE = re.compile(r"/gradio_api/(?:(call/v2|call|run|api)/([^/]+)|queue/join)/?$")

Refusal = Tuple[int, Any]  # HTTP status, the JSON body's "detail"


def is_api(fn: Any) -> bool:
    """A function of the API: the named endpoints (`gr.api`, "public"); every other is the page's."""
    return getattr(fn, "api_visibility", None) == "public" and fn.fn is not None


def not_an_endpoint(name: str, fn: Any) -> Refusal:
    """404 for a name that is no API endpoint: a page event's, or nothing's."""
    if fn is not None:
        what = f"/{name} is one of the page's own events, not part of this Space's API, and cannot be called by name"
    else:
        what = f"there is no API endpoint /{name}"
    return 404, f"{what}. The API is {API_ENDPOINTS}: {HOW_TO_CALL}."


def file_paths(value: Any) -> Iterator[str]:
    """The `path` of every Gradio FileData in a value (a file, a list of files, or nested)."""
    if isinstance(value, dict):
        if isinstance(value.get("meta"), dict) and value["meta"].get("_type") == "gradio.FileData":
            if isinstance(value.get("path"), str):
                yield value["path"]
            return
        for item in value.values():
            yield from file_paths(item)
    elif isinstance(value, list):
        for item in value:
            yield from file_paths(item)


def parameter_names(fn: Any) -> List[str]:
    """The API function's parameter names, in the order of the call's data."""
    import inspect

    return list(inspect.signature(fn.fn).parameters)


def refused_file(blocks: Any, fn: Any, data: Any) -> Optional[Refusal]:
    """A file the call names that was not uploaded, refused by Gradio's own rule for inputs (in its
    upload folder, not in `blocked_paths`), as a 422 in Gradio's validation form, so that
    `gradio_client` raises ValidationError with the message."""
    from gradio import utils
    from gradio_client.utils import is_http_url_like

    names = parameter_names(fn)
    pairs = data.items() if isinstance(data, dict) else zip(names, data) if isinstance(data, list) else ()
    folder = utils.get_upload_folder()
    for name, value in pairs:
        for path in file_paths(value):
            if is_http_url_like(path):
                continue  # Gradio fetches a URL into its cache; it names no file here
            allowed, _ = utils.is_allowed_file(utils.abspath(path), blocked_paths=blocks.blocked_paths,
                                               allowed_paths=[], created_paths=[folder])
            if not allowed:
                text = TEXT_INSTEAD.get(name)
                message = (f"the server path {path!r} is refused: the API reads only files uploaded to this "
                           "Space (Gradio's upload folder), never another file on the server. Pass the file "
                           "itself: gradio_client's handle_file('your/file.txt') uploads it (over HTTP, POST it "
                           "to /gradio_api/upload and pass the path that answers)"
                           + (f", or pass its text as {text}" if text else ""))
                return 422, [{"__type__": "validate", "is_valid": False, "parameter_name": name, "message": message}]
    return None


def refusal(blocks: Any, route: Optional[str], name: Optional[str], body: Dict[str, Any]) -> Optional[Refusal]:
    """Why this call is refused (None: let Gradio answer it). `route` is call, call/v2, run or api
    (by name), or None for queue/join (by fn_index)."""
    fns = blocks.fns
    index = body.get("fn_index")
    if route is None:
        fn = fns.get(index) if isinstance(index, int) else None
        return refused_file(blocks, fn, body.get("data")) if is_api(fn) else None
    named = next((fn for fn in fns.values() if fn.api_name == name), None)
    if route in ("call", "call/v2"):
        return refused_file(blocks, named, body.get("data")) if is_api(named) else not_an_endpoint(name, named)
    # run, api: Gradio runs the body's fn_index when it has one, whatever the name in the path. The page
    # calls its unqueued events so (POST /gradio_api/run/predict with their fn_index and its session).
    target = fns.get(index) if isinstance(index, int) else named
    if is_api(target):
        return refused_file(blocks, target, body.get("data"))
    if target is not None and isinstance(index, int) and body.get("session_hash") and not target.queue:
        return None
    if target is not None and target is not named:
        return 404, (f"fn_index {index!r} names one of the page's own events, not part of this Space's API. "
                     f"The API is {API_ENDPOINTS}: {HOW_TO_CALL}.")
    return not_an_endpoint(name, named)


class ApiGuard:
    """ASGI middleware: POSTs to Gradio's call routes are checked by `refusal` first."""

    def __init__(self, app: Callable[..., Awaitable[None]]) -> None:
        self.app = app

    async def __call__(self, scope: Dict[str, Any], receive: Callable, send: Callable) -> None:
        route = _ROUTE.search(scope.get("path", "")) if scope["type"] == "http" and scope["method"] == "POST" else None
        get_blocks = getattr(scope.get("app"), "get_blocks", None)
        if route is None or get_blocks is None:
            await self.app(scope, receive, send)
            return
        raw, receive = await _buffered(receive)
        try:
            body = json.loads(raw) if raw else {}
        except ValueError:
            body = None  # not JSON: Gradio answers it (422) if its name may be called
        body = body if isinstance(body, dict) else {}
        refused = refusal(get_blocks(), route.group(1), route.group(2), body)
        if refused is None:
            await self.app(scope, receive, send)
            return
        status, detail = refused
        payload = json.dumps({"detail": detail}).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode())]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": payload})


async def _buffered(receive: Callable) -> Tuple[bytes, Callable]:
    """The request's body, read whole, and a `receive` that hands it on again."""
    chunks = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body"):
            break
    body, sent = b"".join(chunks), False

    async def replay() -> Dict[str, Any]:
        nonlocal sent
        if sent:
            return await receive()
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return body, replay


def guarded_app_kwargs() -> Dict[str, Any]:
    """`launch(app_kwargs=...)`: the FastAPI app Gradio builds, with ApiGuard inside its CORS layer."""
    from starlette.middleware import Middleware

    return {"middleware": [Middleware(ApiGuard)]}
