"""The one-click examples: the seed documents' cases, each with the options it needs."""

from __future__ import annotations

from pathlib import Path
from typing import List, Tuple

EXAMPLES_DIR = Path(__file__).resolve().parent.parent / "examples" / "app"

SEED_REFS = "the cat is on the mat\n---\nthere is a cat on the mat"
PAPER_REFS = (
    "It is a guide to action that ensures that the military will forever heed Party commands\n"
    "It is a guide to action that ensures that the military will forever heed Party commands\n---\n"
    "It is the guiding principle which guarantees the military forces always being under the command of the Party\n"
    "It is the guiding principle which guarantees the military forces always being under the command of the Party\n---\n"
    "It is the practical guide for the army always to heed the directions of the party\n"
    "It is the practical guide for the army always to heed the directions of the party"
)
# predictions, references, tokenizer, lowercase, max order, weights, smooth, smooth value, ref length, effective order
EXAMPLES: List[Tuple[str, list]] = [
    ("the cat the cat on the mat → 0.467 (clipping)",
     ["the cat the cat on the mat", SEED_REFS, "none", False, 4, "", "none", "", "closest", False]),
    ("the the the … → p1 = 2/8, BLEU 0",
     ["the the the the the the the the", SEED_REFS, "none", False, 4, "", "none", "", "closest", False]),
    ("Paper: Candidate 1 vs 2 (p1 17/18 vs 8/14)",
     ["It is a guide to action which ensures that the military always obeys the commands of the party\n"
      "It is to insure the troops forever hearing the activity guidebook that party direct",
      PAPER_REFS, "none", True, 4, "", "none", "", "closest", False]),
    ("evaluate docs: coffee, shortest ref → 0.7017",
     ["A bold, full-flavored coffee with a slightly bitter aftertaste.",
      "A bold, flavorful coffee with a slightly bitter aftertaste.\n---\nA rich, full-bodied coffee with a smooth finish.",
      "13a", False, 4, "", "none", None, "shortest", False]),
    ("you are ready ? → 0 unsmoothed",
     ["you are ready ?", "are you ready ?", "none", False, 4, "", "none", "", "closest", False]),
    ("you are ready ? with method7 smoothing",
     ["you are ready ?", "are you ready ?", "none", False, 4, "", "method7", "", "closest", False]),
    ("Too short: brevity penalty exp(1 − 6/5)",
     ["the cat sat on the", "the cat sat on the mat", "none", False, 4, "", "none", "", "closest", False]),
    ("Bigram BLEU, weights 0.5 0.5, lowercased",
     ["I really loved reading the Hunger Games.", "I loved reading the Hunger Games.",
      "13a", True, 4, "0.5, 0.5", "none", "", "closest", False]),
]
