"""The Hugging Face Space demo: score a corpus with BLEU and see why a segment scores what it does.

Run `python app.py` (serves http://127.0.0.1:7860; `--port N` or GRADIO_SERVER_PORT picks another
port, GRADIO_SERVER_NAME another address, as on Spaces). This file is the Space's entry point
(`app_file: app.py`); the demo itself lives in the `space` package, split by job (see its
`__init__`). Everything BLEU goes through `bleukit.core` and `space.explain`.
"""

from __future__ import annotations

import argparse
import os
from typing import Optional, Sequence

import space  # noqa: F401  (sets the no-analytics environment before gradio is imported)
import gradio as gr  # noqa: E402

from space.layout import build_demo  # noqa: E402
from space.inputs import MAX_FILE_MB  # noqa: E402
from space.session_memory import SESSION_CAPACITY  # noqa: E402
from space.style import CSS, THEME  # noqa: E402


def main(argv: Optional[Sequence[str]] = None) -> None:
    parser = argparse.ArgumentParser(description="Serve the BLEU demo.")
    parser.add_argument("--port", type=int, default=int(os.environ.get("GRADIO_SERVER_PORT", "7860")))
    parser.add_argument("--host", default=os.environ.get("GRADIO_SERVER_NAME", "127.0.0.1"))
    args = parser.parse_args(argv)
    build_demo().launch(
        server_name=args.host, server_port=args.port, share=False, show_error=False,
        theme=THEME, css=CSS,
        footer_links=["gradio"], max_file_size=f"{MAX_FILE_MB}mb", state_session_capacity=SESSION_CAPACITY,
    )


if __name__ == "__main__":
    main()
