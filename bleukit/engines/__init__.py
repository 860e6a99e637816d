"""BLEU over data engines: `arrow` (Arrow batches to statistics rows and sentence BLEU, engine-neutral),
`spark` (mapInArrow) and `ray` (map_batches); pyspark and ray are imported only inside their functions.
"""
