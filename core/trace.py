"""What a tokeniser did to one text, as a replayable sequence of states (every family's
``trace_text`` returns a :class:`Trace`). No paper section: the common shape behind the explorer's
step-by-step views.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from core.errors import InputError, excerpt

#: characters of one traced pretoken: a trace keeps every token of the text after every event,
#: which costs the pretoken's length squared (8,000 characters took 3.6 s and 0.6 GB)
MAX_TRACE_CHARS = 2_000


def traceable(pretokens: Iterable[str]) -> tuple[str, ...]:
    """``pretokens`` as a tuple; InputError, before any work, when one is longer than
    :data:`MAX_TRACE_CHARS` (a per-word view of it would be quadratic)."""
    out = tuple(pretokens)
    for pretoken in out:
        traceable_pretoken(pretoken)
    return out


def traceable_pretoken(pretoken: str) -> str:
    """``pretoken``; InputError when it is longer than :data:`MAX_TRACE_CHARS`, for the callers of a
    BPE engine's ``trace_pretoken`` (its steps keep every token after every merge)."""
    if len(pretoken) > MAX_TRACE_CHARS:
        raise InputError(
            f"pretoken {excerpt(pretoken, 40)} has {len(pretoken):,} characters, more than "
            f"{MAX_TRACE_CHARS:,}, the limit of a trace (MAX_TRACE_CHARS); segment it without tracing"
        )
    return pretoken


@dataclass(frozen=True)
class TraceEvent:
    """One operation applied during tokenisation.

    ``kind``: "merge", "split" / "whole" (PickyBPE), "deletion" / "supermerge" (BoundlessBPE),
    "demolish" (Scaffold-BPE), "viterbi" (Unigram); ``index`` the operation's position in the
    tokeniser's ordered list (rank, event id), None when it has none; ``label`` a short
    human-readable description; ``tokens`` all tokens of the text right after the event.
    """

    kind: str
    label: str
    tokens: tuple[str, ...]
    index: int | float | None = None

    def to_json(self) -> dict:
        return {"kind": self.kind, "label": self.label, "index": self.index, "tokens": list(self.tokens)}


@dataclass(frozen=True)
class Trace:
    """The tokenisation of one text as a sequence of states: ``initial`` (atoms of every pretoken,
    after pre-tokenisation), then one state per event. ``pretokens`` are the pre-tokeniser's output.
    """

    text: str
    pretokens: tuple[str, ...]
    initial: tuple[str, ...]
    events: tuple[TraceEvent, ...]
    extra: dict = field(default_factory=dict)  # variant-specific detail (JSON-serialisable)

    @property
    def tokens(self) -> tuple[str, ...]:
        return self.events[-1].tokens if self.events else self.initial

    def __repr__(self) -> str:
        text = self.text if len(self.text) <= 40 else self.text[:40] + "…"
        tokens = " ".join(self.tokens[:12]) + (f" … ({len(self.tokens):,} tokens)" if len(self.tokens) > 12 else "")
        return f"<Trace {text!r} -> {tokens}; {len(self.events):,} events>"

    def problems(self) -> list[str]:
        """Ways in which the trace is not a replayable chain (empty when it is one): every state
        must spell the concatenated pretokens."""
        surface = "".join(self.pretokens)
        out = []
        if "".join(self.initial) != surface:
            out.append(f"initial atoms {self.initial!r} do not spell {surface!r}")
        for n, event in enumerate(self.events):
            if "".join(event.tokens) != surface:
                out.append(f"event {n} ({event.label}) leaves {event.tokens!r}, which does not spell {surface!r}")
        return out

    def then_replace(self, kind: str, replace, extra: dict | None = None) -> Trace:
        """This trace followed by one ``kind`` event per final token that ``replace(token)``
        turns into other tokens (a post-processing step: TrimmedBPE's decomposition)."""
        final = self.tokens
        out: list[str] = []
        events = list(self.events)
        for k, token in enumerate(final):
            pieces = tuple(replace(token))
            out.extend(pieces)
            if pieces != (token,):
                events.append(TraceEvent(kind, f"{token} -> {' '.join(pieces)}", (*out, *final[k + 1 :])))
        return Trace(self.text, self.pretokens, self.initial, tuple(events), {**self.extra, **(extra or {})})

    def to_json(self) -> dict:
        return {
            "text": self.text,
            "pretokens": list(self.pretokens),
            "initial": list(self.initial),
            "events": [e.to_json() for e in self.events],
            "tokens": list(self.tokens),
            **({"detail": self.extra} if self.extra else {}),
        }
