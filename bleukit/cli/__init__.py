"""The command line: `bleu` (installed) and `python -m bleukit`, in this module's grammar or sacreBLEU's.

`main` wires the steps, one module each: `parser` (both grammars' options), `request` (either grammar
mapped onto one request), `files` (the line-aligned files, stdin's columns), `render` (every output
format; sacreBLEU's layouts in `sacrebleu_layouts`, tables drawn by `tables`), `diversity` (--self-bleu).
`example/` is the bundled example the command scores with no arguments.
"""
