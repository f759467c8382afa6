"""Counting a corpus of any size: pretoken counts (and the pretoken sequences supermerges need)
for training, token counts for corpus statistics.

No paper section: plumbing for training at the papers' corpus scale. A corpus (files or a glob)
is cut into byte ranges aligned to lines (:mod:`core.counting.chunks`); each chunk is counted on
its own and the partial counts are combined by the chosen engine (:mod:`core.counting.engines`:
in this process, a process pool, or a Dask cluster), so the text is never held in memory whole.
Every pretoken count comes from one counter (:mod:`core.counting.pretoken_counter`); which words
hold a string (where a merge can fire) from one index (:mod:`core.counting.pretoken_index`).
"""
