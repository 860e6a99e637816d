"""BLEU inside training loops: `trainer` (the compute_metrics hook; `trainer_batches` reads what the
Trainer hands over, `trainer_gather` decides which gathered rows are real examples) and `reward` (a TRL
reward of sentence BLEU per completion).
"""
