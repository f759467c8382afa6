"""HF ``tokenizers``' text pipeline as a tokenizer.json states it: normalizers, pre-tokenizers, added tokens and
decoders (``pipeline.py`` runs them in HF's order; ``equivalents.py`` finds our own fast path; ``fields.py``
reads and writes the JSON fields)."""
