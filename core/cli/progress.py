"""Progress bars on stderr for the commands' long runs."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tqdm import tqdm

#: progress bars are shown for this many steps or more
BAR_FROM = 2000
#: a bar counting bytes (unit "byte") is shown from this many bytes
BAR_FROM_BYTES = 1 << 20
#: every bar shows done/total ({size}: "B" for bytes), elapsed time, the ETA from the mean rate so far, and the rate
BAR_FORMAT = (
    "{desc}: {percentage:3.0f}%|{bar}| {n_fmt}{size}/{total_fmt}{size} [{elapsed} elapsed, ETA {remaining}, {rate_fmt}]"
)


class ProgressBar:
    """A progress callback ``(done, total)`` drawing a tqdm bar on stderr. The bar is made at the
    first report with a total (0: not known yet), so its total is the reporter's own and never
    changes; hidden below ``BAR_FROM`` steps (``BAR_FROM_BYTES`` for the unit "byte") unless
    ``hidden`` says otherwise. It shows the elapsed time and an ETA from the mean rate so far; the
    unit "byte" shows bytes with SI prefixes (e.g. MB read / MB total, MB/s). With ``total``, :meth:`advance` counts
    steps itself."""

    def __init__(self, description: str, unit: str, *, total: int = 0, hidden: bool | None = None):
        self.description, self.unit, self.hidden = description, unit, hidden
        self.total, self.done = total, 0
        self.bar: tqdm | None = None

    def advance(self, steps: int = 1) -> None:
        self(self.done + steps, self.total)

    def __call__(self, done: int, total: int) -> None:
        if total <= 0:
            return
        self.done = done
        if self.bar is None:
            from tqdm import tqdm

            in_bytes = self.unit == "byte"
            self.bar = tqdm(
                total=total,
                desc=self.description,
                unit="B" if in_bytes else self.unit,
                unit_scale=in_bytes,
                unit_divisor=1000,
                smoothing=0,
                bar_format=BAR_FORMAT.replace("{size}", "B" if in_bytes else ""),
                disable=total < (BAR_FROM_BYTES if in_bytes else BAR_FROM) if self.hidden is None else self.hidden,
                file=sys.stderr,
                leave=False,
            )
        self.bar.update(done - self.bar.n)

    def __enter__(self) -> ProgressBar:
        return self

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.close()
