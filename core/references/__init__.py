"""Morphological references, the gold standard of [knockout §4.1]: loading them (``files.py``), mapping a
word's boundaries onto a tokeniser's pretoken (``alignment.py``) and scoring split positions (``evaluation.py``)."""
