"""File fields that take several files: a new upload replaces the list instead of adding to it.

Gradio appends a second upload to the files already in a `file_count="multiple"` field, so uploading
a new set of system files after an earlier one scored five systems instead of three, and a second
set of reference files silently added references. Here each upload keeps only the files it
brought; removing one file (its x) or clearing the field works as before. It runs in the browser
(no request to the server), so a Score pressed right after an upload does not wait for it.
"""

from __future__ import annotations

import json

import gradio as gr

# The browser remembers each field's list; an upload whose list starts with it keeps only what follows.
KEEP_LATEST_JS = """(files) => {
  const remembered = (window.__bleuUploads = window.__bleuUploads || {});
  const list = Array.isArray(files) ? files : (files ? [files] : []);
  const paths = list.map((file) => file && file.path);
  const before = remembered[FIELD] || [];
  const added = before.length && paths.length > before.length && before.every((path, i) => path === paths[i]);
  const kept = added ? list.slice(before.length) : list;
  remembered[FIELD] = kept.map((file) => file && file.path);
  return [kept];  // one output: a list returned bare would be read as one value per output
}"""
REMEMBER_JS = """(files) => {
  const remembered = (window.__bleuUploads = window.__bleuUploads || {});
  const list = Array.isArray(files) ? files : (files ? [files] : []);
  remembered[FIELD] = list.map((file) => file && file.path);
}"""


def replace_on_upload(field: gr.File) -> None:
    """Wire `field` so that an upload replaces its list (browser-side events only)."""
    name = json.dumps(field.elem_id or str(field._id))
    field.upload(None, field, field, js=KEEP_LATEST_JS.replace("FIELD", name))
    field.delete(None, field, None, js=REMEMBER_JS.replace("FIELD", name))
    field.clear(None, field, None, js=REMEMBER_JS.replace("FIELD", name))
