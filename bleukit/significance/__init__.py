"""Is B really better than A? `compare` (paired tests of systems against a baseline: checks, counting,
the result) and `paired` (sacreBLEU's bootstrap and approximate randomization: the draws, one scorer for
every statistic, exact counts and ties).
"""
