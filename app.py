"""The Hugging Face Space demo: score a corpus with BLEU and see why a segment scores what it does.

Run `python app.py` (serves http://127.0.0.1:7860; `--port N` or GRADIO_SERVER_PORT picks another
port, GRADIO_SERVER_NAME another address, as on Spaces). This file is the Space's entry point
(`app_file: app.py`); the demo itself lives in the `space` package, split by job (see its
`__init__`). Everything BLEU goes through `bleukit.core` and `space.explain`.

`build_app` is the page as served: `build_demo` plus the session rules of `space.session_memory`
(a closed tab's results released at once; sessions that do not copy the page's config) and two
calls of a page event at a time (PAGE_CONCURRENCY). Once built, the page's own objects are frozen
out of Python's cyclic garbage collector (`gc.freeze`): they live as long as the server, and each
full collection walked all of them again, which made a 200,000-line Score spend most of a second in
the collector (docs/demo.md, "Sessions and memory").
"""

from __future__ import annotations

import argparse
import gc
import os
from typing import Optional, Sequence

import space  # noqa: F401  (sets the no-analytics environment before gradio is imported)

# Gradio's queue recomputes its monitoring summary (a pandas groupby over the last
# GRADIO_ANALYTICS_MAX_EVENTS events) after every event by default: 3-8 ms of each request's CPU,
# measured (bench/app_load.py). Every 100 events, over the last 1,000, is plenty for its dashboard.
os.environ.setdefault("GRADIO_ANALYTICS_CACHE_FREQUENCY", "100")
os.environ.setdefault("GRADIO_ANALYTICS_MAX_EVENTS", "1000")

import gradio as gr  # noqa: E402

from space.api_guard import guarded_app_kwargs  # noqa: E402
from space.layout import build_demo  # noqa: E402
from space.inputs import MAX_FILE_MB  # noqa: E402
from space.session_memory import SESSION_CAPACITY, manage_sessions  # noqa: E402
from space.style import CSS, THEME  # noqa: E402


# Calls of one page event (Score, Compare, ...) that run at once; Gradio's default is 1, so every
# visitor's Score waited for all the Scores ahead of it, a 200,000-line one included. The handlers
# are safe on threads; more than 2 gained nothing measurable (they share one GIL) and each running
# Score holds its corpus in memory. The API's endpoints set their own limit (space/api.py).
PAGE_CONCURRENCY = 2


def build_app() -> gr.Blocks:
    """The page as served: built, its sessions managed, its events run two at a time, its own objects
    frozen out of the collector."""
    demo = manage_sessions(build_demo())
    demo.queue(default_concurrency_limit=PAGE_CONCURRENCY)
    gc.collect()
    gc.freeze()
    return demo


def main(argv: Optional[Sequence[str]] = None) -> None:
    parser = argparse.ArgumentParser(description="Serve the BLEU demo.")
    parser.add_argument("--port", type=int, default=int(os.environ.get("GRADIO_SERVER_PORT", "7860")))
    parser.add_argument("--host", default=os.environ.get("GRADIO_SERVER_NAME", "127.0.0.1"))
    args = parser.parse_args(argv)
    build_app().launch(
        server_name=args.host, server_port=args.port, share=False, show_error=False,
        theme=THEME, css=CSS, app_kwargs=guarded_app_kwargs(),  # only the API's names answer by name
        footer_links=["gradio"], max_file_size=f"{MAX_FILE_MB}mb", state_session_capacity=SESSION_CAPACITY,
    )


if __name__ == "__main__":
    main()
