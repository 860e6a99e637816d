"""docs/training.md's claims: the Trainer example, and the arithmetic of the torchrun case."""

from __future__ import annotations

import math
import re
from typing import Dict, List

from docs_numbers import REPO, Claim

from .common import constant


CLAIMS: List[Claim] = [
    Claim("docs/training.md", '# {}: the copy task is learnt', lambda code, out: [float(out.stdout)], line=True, slow=True),
    Claim("docs/training.md", "(the example's {}\nexamples, {} processes x {} per step: {} + {})",
          lambda code: [(t := torchrun())["examples"], t["processes"], t["per process"], t["first step"], t["last step"]]),
    Claim("docs/training.md", "hook is handed {} rows for {} examples, {} of them counted twice",
          lambda code: [(t := torchrun())["rows"], t["examples"], t["rows"] - t["examples"]]),
    Claim("docs/training.md", "on the last batch it keeps the real rows ({})", lambda code: [torchrun()["last step"]]),
    Claim("docs/training.md", "run with {_}\ntraining examples in batches of {_} logged the BLEU of {_} of its {} evaluation rows",
          lambda code: [torchrun()["examples"]]),
    Claim("docs/training.md", "a reference with nothing left is an empty reference (length {})",
          lambda code: [code.compute([[5, 6]], [[[0, 0]]], ignore_ids=[0])["reference_length"]]),
    Claim("docs/training.md", "after the usual `2 + 2K`: `{}`, `r` and `r * r`",
          lambda code: [int(__import__("bleukit").statistics([[5, 6]], [[[5], [6]]], per_segment=True)[0][-3])]),
]


def torchrun() -> Dict[str, int]:
    """The arithmetic of docs/training.md's torchrun case, from tests/integrations/test_trainer_torchrun.py: its
    evaluation set, its processes and per-process batch; the last step is what is left, padded to a full step."""
    test = (REPO / "tests/integrations/test_trainer_torchrun.py").read_text(encoding="utf-8")
    examples = constant("tests/integrations/test_trainer_torchrun.py", "EVAL_SIZE")
    processes = int(re.search(r"--nproc_per_node=(\d+)", test).group(1))
    per_process = int(re.search(r"per_device_eval_batch_size=(\d+)", test).group(1))
    step = processes * per_process
    return {"examples": examples, "processes": processes, "per process": per_process, "first step": step,
            "last step": examples - step * (math.ceil(examples / step) - 1), "rows": step * math.ceil(examples / step)}
