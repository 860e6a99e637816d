"""The version, and the name the signature's version field gives it."""

__version__ = "1.0.0"
# The signature's version field names this module, so that it is never read as a sacreBLEU
# release (sacreBLEU writes version:2.6.0; "version:bleu_metric-1.0.0" would look like sacreBLEU 1.0.0).
SIGNATURE_VERSION = f"bleu_metric-{__version__}"
