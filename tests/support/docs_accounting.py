"""Accounting, for tests/packaging/test_docs_numbers.py: every number on a page is checked (a claim, a
global rule, an example's output), an input (an example's code, inline code), measured (its unit names
its measurement, or MEASURED), or allowed with a reason (ALLOWED); `accounting(doc)` says which, and
lists the numbers with no reason."""

from __future__ import annotations

import re
from typing import Dict, List, Tuple

from docs_allowed import ALLOWED, MEASURED
from docs_claims import CLAIMS, GLOBAL_RULES
from docs_numbers import MEASUREMENT, Number
from docs_pages import Doc


# Inline code that is an input: an option or argument (`max_order=2`, `-w 2`, `ignore_ids=[0]`), an
# expression (`2**24`, `2 + 2K`, `1/max_order`), a command; not a signature (`|`) or printed line (` = `).
INPUT_SPAN = re.compile(r"[\w\])]=|=[\w\[(\"']|[(\[]|\*|\+|/[a-z(]|^-{1,2}[a-zA-Z]|^(?:python|bleu|paste|cat|sacrebleu|pip) ")
OUTPUT_SPAN = re.compile(r"\||\s=\s|^[-\d.,]+$")


def inline_inputs(doc: Doc) -> List[Tuple[int, int]]:
    spans = []
    for match in re.finditer(r"(`+)([^`]+?)\1", doc.text):
        line = doc.line_of(match.start())
        if doc.block_at(line) is not None or match.group(2).count("\n") > 1:
            continue
        content = match.group(2).strip()
        sentence = len(re.findall(r"(?:^|\s)[A-Za-z][a-z']*(?=\s|$)", content)) >= 5  # a message, not code
        if INPUT_SPAN.search(content) and not OUTPUT_SPAN.search(content) and not sentence:
            spans.append((match.start(), match.end()))
    return spans


def measured_lines(doc: Doc) -> Dict[int, str]:
    """line -> why the unit holding it counts as measured."""
    lines: Dict[int, str] = {}
    explicit = {}
    for entry in MEASURED:
        if entry.page == doc.page:
            at = doc.text.find(entry.fragment)
            assert at >= 0, f"{doc.page}: MEASURED's fragment is no longer on the page: {entry.fragment!r}"
            explicit[doc.unit_at(doc.line_of(at)).first] = entry.reason
    previous = None
    for unit in doc.units:
        if unit.kind == "heading":
            previous = None
            if unit.cites_measurement:
                lines[unit.first] = "a heading that names its measurement"
            continue
        reason = None
        if unit.cites_measurement:
            reason = "names its measurement: " + " ".join(MEASUREMENT.search(unit.text).group().split())
        elif unit.first in explicit:
            reason = "measured: " + explicit[unit.first]
        elif previous and (unit.kind in ("table", "fence") or unit.text.rstrip().endswith(":")):
            reason = previous  # a table or block (or its lead-in) that continues a measured unit
        for line in range(unit.first, unit.last + 1):
            if reason:
                lines[line] = reason
        previous = reason
    return lines


def accounting(doc: Doc) -> Tuple[Dict[Number, str], List[Number]]:
    """Each number of the page with why it is there, and the numbers with no reason."""
    covered: List[Tuple[int, int, str]] = []
    for claim in CLAIMS:
        if claim.page == doc.page:
            for _, holes in doc.find(claim.template):
                covered += [(h.start, h.end, "checked: " + claim.template[:60]) for h in holes if h.kind != "{_}"]
    for rule in GLOBAL_RULES:
        for match in re.finditer(rule.pattern, doc.text) if re.fullmatch(rule.pages, doc.page) else []:
            covered += [(match.start(g), match.end(g), "checked: " + rule.what)
                        for g in range(1, (match.lastindex or 0) + 1) if match.group(g) is not None]
    covered += [(start, end, "an input: inline code") for start, end in inline_inputs(doc)]
    for entry in ALLOWED:
        if re.fullmatch(entry.pages, doc.page):
            for match in re.finditer(entry.pattern, doc.text):
                groups = range(1, (match.lastindex or 0) + 1) if match.lastindex else [0]
                covered += [(match.start(g), match.end(g), "allowed: " + entry.reason) for g in groups if match.group(g)]
    measured = measured_lines(doc)
    reasons, missing = {}, []
    for number in doc.numbers():
        part = doc.part_of(number)
        block = doc.block_at(number.line)
        reason = None
        if part == "output" and block is not None and (block.doctest or block.lang == "console"):
            reason = "checked: the example's output"
        elif part == "code":
            reason = "an input: the example's code"
        else:
            reason = next((why for start, end, why in covered if why.startswith("checked")
                           and start <= number.start and number.end <= end), None)
            reason = reason or next((why for start, end, why in covered if start <= number.start and number.end <= end
                                     and why.startswith("an input")), None)
            reason = reason or measured.get(number.line)
            reason = reason or next((why for start, end, why in covered if start <= number.start and number.end <= end), None)
        if reason:
            reasons[number] = reason
        else:
            missing.append(number)
    return reasons, missing
