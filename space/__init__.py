"""The Hugging Face Space demo, split by job; `app.py` (the Space's entry point) serves it.

- `inputs`: pasted text and uploaded files -> predictions, per-segment references, metric options
- `scoring`: one scored corpus through `bleukit.core`, and the frames the page shows
- `render`: the HTML of the score card and explain mode
- `scales`: the page's one 0–1/0–100 scale (every score written on both, the toggle's JS)
- `examples`: the one-click examples
- `handlers`: what each button and click does
- `compare_view`, `diversity_view`: the Compare systems and Diversity tabs
- `style`, `layout`: the CSS and the Blocks page

The demo is not part of the metric: `bleu_metric.py` never imports this package.
"""

import os

# Set before gradio is imported anywhere in the package: no analytics, no version check over the network.
os.environ["GRADIO_ANALYTICS_ENABLED"] = "False"
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
