"""Drawing tables for the command line: box-drawn for the terminal, booktabs for a paper.

`grid_table` and `tabulate_latex` draw what sacreBLEU's table library (tabulate's `fancy_grid` and
`latex_booktabs`, as sacreBLEU calls them) draws, so sacreBLEU's grammar prints its tables exactly;
`latex_table` is this module's own booktabs table.
"""

from __future__ import annotations

from typing import Sequence


def _centre(text: str, width: int) -> str:
    left = (width - len(text)) // 2
    return " " * left + text + " " * (width - len(text) - left)


def grid_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A box-drawn table in the style sacreBLEU prints: first column right-aligned, the rest centred;
    a cell may hold several lines."""
    split_rows = [[cell.split("\n") for cell in row] for row in rows]
    widths = [
        max([len(header[col]) + 2] + [len(line) for row in split_rows for line in row[col]])
        for col in range(len(header))
    ]

    def rule(left: str, fill: str, middle: str, right: str) -> str:
        return left + middle.join(fill * (width + 2) for width in widths) + right

    def line(cells: Sequence[str]) -> str:
        parts = [cells[0].rjust(widths[0])] + [_centre(cell, width) for cell, width in zip(cells[1:], widths[1:])]
        return "│ " + " │ ".join(parts) + " │"

    out = [rule("╒", "═", "╤", "╕"), line(header), rule("╞", "═", "╪", "╡")]
    for index, row in enumerate(split_rows):
        height = max(len(cell) for cell in row)
        for depth in range(height):
            out.append(line([cell[depth] if depth < len(cell) else "" for cell in row]))
        out.append(rule("├", "─", "┼", "┤") if index < len(split_rows) - 1 else rule("╘", "═", "╧", "╛"))
    return "\n".join(out)


def latex_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A booktabs tabular that pastes into a paper (needs \\usepackage{booktabs})."""
    def escape(text: str) -> str:
        return (text.replace("\\", "\\textbackslash{}").replace("&", "\\&").replace("%", "\\%")
                .replace("_", "\\_").replace("#", "\\#").replace("$", "\\$").replace("±", "$\\pm$")
                .replace("μ", "$\\mu$").replace("\n", " "))

    body = [" & ".join(escape(cell) for cell in row) + " \\\\" for row in rows]
    return "\n".join(
        ["\\begin{tabular}{l" + "r" * (len(header) - 1) + "}", "\\toprule",
         " & ".join(escape(cell) for cell in header) + " \\\\", "\\midrule", *body, "\\bottomrule", "\\end{tabular}"]
    )


# The characters LaTeX needs escaped, as sacreBLEU's table library (tabulate) escapes them.
_LATEX_ESCAPES = {"&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "^": r"\^{}", "{": r"\{", "}": r"\}",
                  "~": r"\textasciitilde{}", "\\": r"\textbackslash{}", "<": r"\ensuremath{<}", ">": r"\ensuremath{>}"}


def tabulate_latex(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """The booktabs table sacreBLEU prints with `-f latex` (first column right-aligned, the rest
    centred, cells padded before escaping, as tabulate's `latex_booktabs`)."""
    widths = [max([len(header[col]) + 2] + [len(row[col]) for row in rows]) for col in range(len(header))]

    def line(cells: Sequence[str]) -> str:
        padded = [cells[0].rjust(widths[0])] + [_centre(cell, width) for cell, width in zip(cells[1:], widths[1:])]
        escaped = ["".join(_LATEX_ESCAPES.get(char, char) for char in f" {cell} ") for cell in padded]
        return "&".join(escaped) + "\\\\"

    return "\n".join(["\\begin{tabular}{r" + "c" * (len(header) - 1) + "}", "\\toprule", line(header), "\\midrule",
                      *(line(row) for row in rows), "\\bottomrule", "\\end{tabular}"])
