"""Pausing Python's cyclic garbage collector around long engine runs.

A knockout/ReBPE run keeps millions of small container objects alive (merges, traces, per-word
states) and makes few reference cycles, so the collector's full passes mostly re-scan live data:
on the German 40k with a 20k-word reference they cost a fifth of a ReBPE run, and training BPE
from the counts of 200 MB of text (a list per distinct word, a set per heap entry) spent more
than half its time in them. Garbage is still freed by reference counting while the collector is
paused; it is switched back on afterwards (if it was on), and a collection of the young
generations runs then.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def cyclic_gc_paused(*, freeze: bool = False) -> Iterator[None]:
    """With ``freeze`` (for long-lived results such as a loaded tokeniser), everything alive
    afterwards moves to the collector's permanent generation instead of being scanned again."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if freeze:
            gc.freeze()
        if was_enabled:
            gc.enable()
            if not freeze:
                gc.collect(1)
