"""The paste boxes' guard, run in the browser: a paste above the page's limit is refused there with a
message pointing to upload, and a large paste within it is inserted in one step.

Why: in Chromium a paste into a textarea goes through the editing machinery, which costs time that
grows faster than the text (measured: 2,000 WMT17 lines 8 s, 5,000 lines 50 s, 50,000 lines over
5 minutes, the tab frozen throughout), while setting the same text with `setRangeText` takes
milliseconds. Gradio has no listener on these boxes, so no keystroke or paste reaches the server;
the cost was all in the browser. Small pastes keep the native path (and its undo).
"""

from __future__ import annotations

from .inputs import MAX_FILE_MB, MAX_PASTED_CHARS

# Pastes longer than this skip Chromium's editing path (about 150 WMT17 lines; those take < 0.5 s natively).
FAST_PASTE_CHARS = 20_000
# Each guarded box (by elem_id) and the tab that takes files instead.
GUARDED_BOXES = {
    "predictions": "Upload files",
    "references": "Upload files",
    "compare-systems": "Upload system files",
    "compare-references": "Upload system files",
    "diversity-texts": "Upload a file",
}


def paste_limit_message(box_chars: int, upload_tab: str) -> str:
    """The refusal shown under the box; the same words the server uses for an oversized box."""
    return (
        f"Not pasted: the box would hold {box_chars:,} characters, more than the {MAX_PASTED_CHARS:,} a paste box "
        f"takes. Use the {upload_tab} tab (up to {MAX_FILE_MB} MB per file)."
    )


_BOXES_JS = "{" + ", ".join(f"'{box}': '{tab}'" for box, tab in GUARDED_BOXES.items()) + "}"
_MESSAGE_JS = paste_limit_message(123_456_789, "@TAB@").replace("123,456,789", "${size}").replace("@TAB@", "${tab}")

PASTE_GUARD_JS = f"""() => {{
  const LIMIT = {MAX_PASTED_CHARS}, FAST = {FAST_PASTE_CHARS}, BOXES = {_BOXES_JS};
  const show = (block, text) => {{
    let note = block.querySelector('.paste-note');
    if (!text) {{ if (note) note.remove(); return; }}
    if (!note) {{
      note = document.createElement('p');
      note.className = 'paste-note';
      note.setAttribute('role', 'alert');
      block.appendChild(note);
    }}
    note.textContent = text;
  }};
  document.addEventListener('paste', (event) => {{
    const box = event.target;
    if (!(box instanceof HTMLTextAreaElement)) return;
    const block = box.closest(Object.keys(BOXES).map((id) => '#' + id).join(','));
    if (!block || !event.clipboardData) return;
    const text = event.clipboardData.getData('text/plain');
    const kept = box.value.length - (box.selectionEnd - box.selectionStart);
    if (kept + text.length > LIMIT) {{
      event.preventDefault();
      const size = (kept + text.length).toLocaleString('en-US'), tab = BOXES[block.id];
      show(block, `{_MESSAGE_JS}`);
      return;
    }}
    show(block, '');
    if (text.length > FAST) {{
      event.preventDefault();
      box.setRangeText(text, box.selectionStart, box.selectionEnd, 'end');
      box.dispatchEvent(new Event('input', {{bubbles: true}}));
    }}
  }}, true);
}}"""
