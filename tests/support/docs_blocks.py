"""A page's fenced blocks run, for tests/packaging/test_docs_numbers.py.

- `run_python`: a (non-doctest) Python block executed statement by statement, each statement's value
  and prints kept under its last line; `out_for_line`: the statement a comment describes;
- `run_doctest`: every `>>>` example of a block run, its shown output compared with the value by
  `compare_literal` (a shown repr: dicts, lists, numbers, strings, `...` for anything).
"""

from __future__ import annotations

import ast
import contextlib
import io
import re
import textwrap
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Optional, Tuple

from docs_numbers import numbers_in, printed, shows
from docs_pages import Block


@dataclass
class Out:
    value: Any
    stdout: str
    ns: dict


def _code_lines(block: Block) -> List[str]:
    """The block's code with output lines blanked (line numbers kept)."""
    kept = []
    for text, parts in zip(block.lines, block.parts):
        if parts and parts[0][0] == "code":
            kept.append(text[: parts[0][2]])
        else:
            kept.append("")
    return kept


def run_python(block: Block, ns: dict, replace: Iterable[Tuple[str, str]] = ()) -> Dict[int, Out]:
    """Run a (non-doctest) Python block statement by statement; {doc line of the statement's last line:
    Out}. A comment on a statement's last line, or on comment-only lines right after it, is about it."""
    source = textwrap.dedent("\n".join(_code_lines(block)))
    for old, new in replace:
        source = source.replace(old, new)
    tree = ast.parse(source)
    outs: Dict[int, Out] = {}
    for statement in tree.body:
        stdout = io.StringIO()
        with contextlib.redirect_stdout(stdout):
            if isinstance(statement, ast.Expr):
                value = eval(compile(ast.Expression(statement.value), f"{block.page}:{block.first}", "eval"), ns)
            else:
                exec(compile(ast.Module([statement], type_ignores=[]), f"{block.page}:{block.first}", "exec"), ns)
                value = None
        outs[block.first + statement.end_lineno - 1] = Out(value, stdout.getvalue(), ns)
    return outs


def out_for_line(outs: Dict[int, Out], line: int) -> Out:
    """The statement a comment on `line` describes: the one ending there, else the last one before it."""
    before = [end for end in outs if end <= line]
    if not before:
        raise LookupError(f"no statement ends at or before line {line}")
    return outs[max(before)]


@dataclass
class Example:
    source: str
    first: int  # doc line of the `>>>` line
    output: str
    output_first: int


def doctest_examples(block: Block) -> List[Example]:
    examples, index, lines = [], 0, block.lines
    while index < len(lines):
        stripped = lines[index].strip()
        if not stripped.startswith(">>>"):
            index += 1
            continue
        first = index
        source = [stripped[4:]]
        index += 1
        while index < len(lines) and lines[index].strip().startswith("..."):
            source.append(lines[index].strip()[4:])
            index += 1
        output_first = index
        output = []
        while index < len(lines) and lines[index].strip() and not lines[index].strip().startswith(">>>"):
            text, parts = lines[index], block.parts[index]
            output.append(text[: parts[0][2]] if parts[0][0] == "output" else text)
            index += 1
        examples.append(Example("\n".join(source), block.first + first, "\n".join(output).strip(),
                                block.first + output_first))
    return examples


def _plain(value: Any) -> Any:
    if hasattr(value, "tolist"):
        return value.tolist()
    if hasattr(value, "item") and not isinstance(value, (list, dict, tuple, str)):
        return value.item()
    return value


def compare_literal(shown: str, value: Any, strict: bool = True) -> List[str]:
    """What differs between a shown repr (dicts, lists, numbers, strings; `...` for anything, and `...`
    inside a string for any text) and the value; [] when they agree. Numbers: `shows`, and with `strict`
    every digit of the repr (as doctest would)."""
    tree = ast.parse(shown, mode="eval").body
    problems: List[str] = []

    def number(node) -> Optional[str]:
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            inner = number(node.operand)
            return None if inner is None else "-" + inner
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
            return ast.get_source_segment(shown, node)
        return None

    def walk(node, actual, path: str) -> None:
        actual = _plain(actual)
        if isinstance(node, ast.Constant) and node.value is Ellipsis:
            return
        text = number(node)
        if text is not None:
            ok = (printed(actual) == text) if strict and isinstance(actual, float) else shows(text, actual)
            if not ok:
                problems.append(f"{path or 'value'}: shown {text}, printed {printed(actual)}")
            return
        if isinstance(node, ast.Constant):
            if isinstance(node.value, str) and "..." in node.value:
                pattern = ".*".join(re.escape(piece) for piece in node.value.split("..."))
                ok = isinstance(actual, str) and re.fullmatch(pattern, actual, flags=re.S)
            else:
                ok = node.value == actual and type(node.value) is type(actual)
            if not ok:
                problems.append(f"{path or 'value'}: shown {node.value!r}, printed {actual!r}")
            return
        if isinstance(node, ast.Dict):
            if not isinstance(actual, dict):
                problems.append(f"{path or 'value'}: shown a dict, printed {actual!r}")
                return
            keys = [ast.literal_eval(key) for key in node.keys]
            if sorted(map(str, keys)) != sorted(map(str, actual)):
                problems.append(f"{path or 'value'}: shown keys {keys}, printed {list(actual)}")
            for key, sub in zip(keys, node.values):
                if key in actual:
                    walk(sub, actual[key], f"{path}[{key!r}]")
            return
        if isinstance(node, (ast.List, ast.Tuple)):
            if not isinstance(actual, (list, tuple)) or len(actual) != len(node.elts):
                problems.append(f"{path or 'value'}: shown {ast.get_source_segment(shown, node)}, printed {actual!r}")
                return
            for index, (sub, item) in enumerate(zip(node.elts, actual)):
                walk(sub, item, f"{path}[{index}]")
            return
        # anything else (a name, an expression) describes the value in words: nothing to compare

    walk(tree, value, "")
    return problems


def run_doctest(block: Block, ns: dict) -> Tuple[int, List[str]]:
    """Run every `>>>` example of the block; (numbers compared, problems as 'page:line: ...')."""
    compared, problems = 0, []
    for example in doctest_examples(block):
        stdout = io.StringIO()
        try:
            with contextlib.redirect_stdout(stdout):
                try:
                    code = compile(example.source, f"{block.page}:{example.first}", "eval")
                except SyntaxError:
                    exec(compile(example.source, f"{block.page}:{example.first}", "exec"), ns)
                    value = None
                else:
                    value = eval(code, ns)
        except Exception as error:  # an example that raises is a problem of the page
            problems.append(f"{block.page}:{example.first}: raised {type(error).__name__}: {error}")
            continue
        if not example.output:
            continue
        compared += len(numbers_in(example.output))
        if value is None:
            shown, actual = " ".join(example.output.split()), " ".join(stdout.getvalue().split())
            if shown != actual:
                problems.append(f"{block.page}:{example.output_first}: shown {shown!r}, printed {actual!r}")
            continue
        for problem in compare_literal(example.output, value):
            problems.append(f"{block.page}:{example.output_first}: {problem}")
    return compared, problems
