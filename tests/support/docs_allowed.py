"""The numbers of the docs that are neither the code's nor checked, each with its reason, for
tests/packaging/test_docs_numbers.py's accounting (docs_accounting.py):

- MEASURED: units (paragraphs, tables, blocks) measured without saying so in their own words (they
  continue a measured unit), with what measured them;
- ALLOWED: patterns whose numbers are accounted for (versions, years, names, inputs, the record...),
  each with its reason. test_every_allowance_still_allows_something keeps every entry in use.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import List


@dataclass
class Measured:
    page: str
    fragment: str  # words of the unit (paragraph, table, block) that was measured
    reason: str


MEASURED: List[Measured] = [
    Measured("docs/scaling.md", "Re-run on main after the Spark and Ray modules joined",
             "re-runs of the table above it (this 2-core Intel Xeon VM)"),
    Measured("docs/scaling.md", "Smaller inputs, 2 processes against threads",
             "runs of the same benchmark on the same machine as the table above it"),
    Measured("docs/scaling.md", "At 480,640 segments `auto` (16 processes) computes in",
             "the 16-core run of the tables above it (2026-11-26)"),
    Measured("docs/performance.md", "With the collector on, scoring now costs what it cost",
             "the session of the bench_gc table above it (this shared 2-core machine)"),
    Measured("docs/demo.md", "What is left per open session is the store's rows",
             "the run of the sessions table above it (this 2-core machine)"),
    Measured("docs/demo.md", '("was": the demo before issue 12',
             "the runs of the browser table above it (this 2-core machine)"),
    Measured("docs/diversity.md", "Under that load every time is several times what a quiet machine gives",
             "the machine and the run of the table above it (the 2-core development machine)"),
    Measured("docs/comparing.md", "`x call` is sacreBLEU's time over one `compare` call",
             "the run of the table above it (the 2-core machine, 2026-11-25)"),
]


@dataclass
class Allow:
    pattern: str  # the numbers inside a match (inside its groups, if it has any) are accounted for
    reason: str
    pages: str = ".*"  # a regex of the pages it applies to


PACKAGES = (r"(?i:python|sacrebleu|nltk|trl|torch|transformers|datasets|numpy|pandas|pyarrow|pyspark|ray|java|mbrs|"
            r"bleuscore|gradio|mecab)")
ALLOWED: List[Allow] = [
    # names and versions: what the numbers name, not what the code computes
    Allow(PACKAGES + r"\s\(?(\d+(?:\.\d+)*)(?:\.x|\+\w+)?\b", "the version of a package or of Python"),
    Allow(r"[<>=]=(\d+(?:\.\d+)*)|<(\d+(?:\.\d+)*)\b", "a version range to install"),
    Allow(r"(?<!-)version:(\d+\.\d+\.\d+)", "sacreBLEU's version, in its own signature"),
    Allow(r"(?m)^(?:sdk_version|python_version): \"?([\d.]+)|^license: apache-(2\.0)", "the Space's front matter", "README.md"),
    Allow(r"(?s)```bibtex.*?```", "the citations' bibliographic data", "README.md"),
    Allow(r"(?:et al\.|Koehn|Och|Cherry|Maxwell|Noreen|Papineni)\)?,?\s\(?((?:19|20)\d\d)\b", "the year of a cited paper"),
    Allow(r"\b(?:ISO (639)-(2)/(3)|FLORES-(101|200)|UTF-(8)|[Ss]eed (\d{3})'s|[Ii]ssues? (\d+)|issue-(\d+))|spBLEU-1K \((1,000)\+ "
          r"languages\)|Candidates (1) and (2)|name: \"system (2)\"|`@(70)%` rows\) times|keep (70)% of the reference",
          "part of a name: a standard, a data set, an encoding, a seed document, an issue, a benchmark's rows"),
    Allow(r"(?m)^(?:# )?(\d)\. ", "a numbered step"),
    Allow(r"\b(?:[Mm]ethods?|[Oo]rders?|n from) (\d)\b(?:(?:–|-| to | and |\.\.)(\d)\b)?|\b(\d)-(?:grams?|token)\b|\(n-(1)\)-gram",
          "a smoothing method's or an n-gram order's name"),
    # the metric's scales and the rules' words
    Allow(r"\b(0) ?(?:to|-|–|\.\.) ?(1|100)\b|(100) times|multiply by (100)|(?:exceeds?|above|exceeding) (1)\b",
          "the score's scales and bounds: 0-1 here, 0-100 in sacreBLEU"),
    Allow(r"(?:[≥><]=?) ?(\d+)\b", "a bound in a description of an option or a rule"),
    Allow(r"\b(95)% (?:confidence )?interval", "the interval's level (sacreBLEU's)"),
    Allow(r"without smoothing is (0) for\s+most short texts|unrelated texts scores near (0)|scores exactly (0), which|"
          r"a group that ties at (0)|pushed towards (0)|a tensor padded with (0)|sentence BLEU is (0) for any segment|"
          r"(?:smoothed|trigram) precision is (0)\b|Here (0) is a\s+seed like any other|`SACREBLEU_SEED=(0)`|\(say below (0\.05)\)|"
          r"systems (0\.5) apart", "a number in words: a condition, an example"),
    Allow(r"BP = (1) if c ≥ r,\s+exp\((1) − r/c\) if (0) < c < r,\s+(0) if c = (0)|(1)/\(samples \+ (1)\)|counts as (1)/(2)\^k of a "
          r"match|\((1)/\(total\+(1)\) for a|max\((1), count\)|two (0)/(1) indicator|holders x \(holders - (1)\)|renumbered "
          r"(0)\.\.V-(1) first|That is (2) \+ 2K|about (1) GB of driver memory per\s+(10) million segments|a resampled count of "
          r"(2)\*\*(24) or more", "a formula, or its arithmetic in words (the paper's, NLTK's, a seed's, the counting's, float32's 2**24)"),
    # options, inputs and sizes
    Allow(r"`(1)` keeps to (?:this|one) process|# or: auto \(the default\), (1)|`(1)`: one process|\(default 5; (0): none\)|"
          r"`steps_per_generation` (1)\)|a lower `max_order`\s+\(e\.g\. (2)\)|e\.g\. (2) when two weights are given|"
          r"weights (0\.5) (0\.5) lowercased|resamples \((0) = no\s+interval", "an option's value, in words"),
    Allow(r"num_return_sequences=16\)   # \(B \* (16), L\)|# \(B, L\), pad (0)|num_workers=16\)  # (16) processes|batch of (1,024) "
          r"segments|num_workers=4\):   # (4) processes|# the result on process (0)", "the example's input, restated in its comment"),
    Allow(r"\(say (3) predictions and (3) reference streams\) has\s+the shape of this module's \((3) predictions, (3) references",
          "an illustration of two shapes", "docs/metric.md"),
    Allow(r"`-w 2` prints `(54\.54)` \(never `(0\.55)`|\(`-w 2`: (54\.54)\)", "an illustration of the width, not a score",
          "docs/cli.md"),
    Allow(r"a scaling table from (3)k to (480)k segments|stops the scaling at (48)k|on (3,000) and (30,000) segments: the|"
          r"ids up to (2)\*\*(63) - (2)\)|a local\[(2)\]",
          "the size of a benchmark's or a test's input"),
    Allow(r"(0)–(1) with (4) digits, or (0)–(100) with (2)", "the display's digits (the CLI's -w 2)", "docs/demo.md"),
    Allow(r"(\d+(?:\.\d+)?)(?:–(\d+))? px\b|\b(\d{3,4})×(\d{3,4})\b|at (\d{3,4}), (\d{3,4}) and (\d{3,4}) px|"
          r"within (0\.2)% of the axis|off by up to (6\.6)%|axe-core's (4\.5):(1) contrast|at least (3):(1) against|the (5) MB segment",
          "the layout and accessibility the browser tests (tests/space) check: sizes in px, contrast ratios", "docs/demo.md"),
    # what other programs and the tests say
    Allow(r"`get_score\(\)` takes the first (500) lines|`--confidence` uses (1,000)\)",
          "another program's default (Texygen, sacreBLEU)"),
    Allow(r"relative (1e-10) for every tokenizer|agrees to relative (1e-10) and the bootstrap means and intervals to (1e-12)|"
          r"agrees \((30,000) of (30,000) to (1e-12)\)|rel (1e-12), largest difference seen (7e-16)|rel (1e-12),\s+largest "
          r"difference seen (7e-16) \(sacreBLEU, NLTK\) and (9e-16)|expectations to (1e-12)|`tokenize=\"none\"`, to (1e-12) "
          r"\(tests: exactly\)|with p-values from (0\.001) to (0\.9), on systems differing in\s+(0), (1), (2), (3) and (6) segments, "
          r"on the issue's (60) near-identical pairs", "what the tests check: their tolerances, the differences they saw, their cases"),
    # the record: numbers of the past, quoted to explain them
    Allow(r"The seed's (0\.4003) for", "a seed document's number (../shared/seeds), quoted to explain it", "docs/differences.md"),
    Allow(r"it once printed one number, (15\.5),|\(at its last batch, \"remainder (4)\"\)|run with (100)\s+training examples in "
          r"batches of (32) logged the BLEU of (4) of", "what an earlier version did (a fixed bug, for the record)"),
    # measured, but the page does not say where: reported to the pages' owners (docs/demo.md, performance.md, scaling.md)
    Allow(r"\(Chromium's own paste of (5,000) WMT17 lines froze the tab for (54) s; now (7,000) lines take about\s+(0\.5) s\)|"
          r"the result dict: about (0\.35) MB for a (3,004)-segment|a WMT17 chunk of (1,280) segments (7\.5) -> (5\.8) ms of CPU|"
          r"\(about (3) ms a process, more with a large parent\)|at (0\.7) us a row, (0\.34) s at (480,640) segments|"
          r"\(about (270) MB of page\s+faults for (480,640) WMT segments\)", "measured, but the page does not say where (reported)"),
]
