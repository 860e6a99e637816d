"""BLEU between many texts: `pairwise` (matrices, self-BLEU, the most similar pairs), `mbr` (minimum
Bayes risk decoding), and `pair_stats`, their options and pair statistics scored once per distinct row.
"""
