"""Counting: BLEU's sufficient statistics, the additive spine of every score.

`stats`: tokens encoded as dense ids (the encoders), n-gram matches and totals per segment, the
effective reference length; `pairs`: the clipped matches of every pair of a group of texts (self-BLEU,
pairwise, MBR); `parallel`: the same rows counted in forked worker processes and threads.
"""
