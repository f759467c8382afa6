"""Compare our PickyBPE (core.families.picky) with the authors' code, on the same words.

Peers (neither is a project dependency), each run in a subprocess through a small driver below:

* ``package``: ``pickybpe_bauwenst`` (Chizhov's trainer as refactored by Bauwens) in its own
  venv, ``--peer-python`` or ``$PEERS_VENV/bin/python``; trained with ``include_specials=False``
  (it adds one UNK and pays for it, so both have ``--vocab-size`` non-special types) and
  ``character_coverage=1.0`` (no character becomes UNK); its segmenter
  (``_encode_word_by_events``) segments the training words plus ``--held-out`` further words;
* ``original``: a checkout of pchizhov/picky_bpe (``--original DIR``, the @038fcb9 layout:
  ``bpe_trainer.py``, ``language.py``, ``utils.py``), with ``vocab_size + 4`` (its four special
  tokens count) and ``coverage=1.0``, fed the word counts instead of a text file. Training only.

Both train on the same words (each gets ``▁``, as our Metaspace does) with the same τ.

Equal pair counts are frequent (the wordfreq counts are rounded), and the peers break such ties
in ways we cannot reproduce: the package by its ``heapdict`` heap, the original by ``Counter``
order, which for pairs created in the same step depends on the ``set`` order of word objects
(memory addresses). So each peer runs twice:

1. *own ties*: as it is; the first step where it chooses another pair than we do is printed with
   both counts (equal counts = a tie broken differently);
2. *steered*: the peer is offered our merge choices one by one; it takes ours only when its own
   count of that pair equals its best count (a legitimate choice for it), otherwise its own
   choice, and the step is reported. Then the event lists are compared step by step (a merge
   and the splits right after it, in any order), and the final vocabularies and segmentations.

With the package, its segmenter (``_encode_word_by_events``) also reads *our* event list, saved in
its model format, and segments the training and held-out words: inference compared alone.

    python scripts/compare_picky.py --original /path/to/picky_bpe      # 2,000 words, vocab 1,000
    PEERS_VENV=/tmp/peers_venv python scripts/compare_picky.py --words 5000 --vocab-size 2000

Exit status 0 when every steered run and the segmenter agree completely, 1 when not, 2 without peers.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.counting.corpus import TrainingCorpus
from core.families.picky import AUTHORS_SPECIALS, train
from core.formats.corpora import load_word_counts
from core.formats.samples import SAMPLE_DIR
from core.pipeline import Metaspace

COUNTS = SAMPLE_DIR / "counts" / "en_wordfreq.tsv"

#: Shared by both drivers: the steering rule. ``own``/``top``: the peer's choice and its count.
STEERING = r'''
import json, sys, tempfile, time
from pathlib import Path
args = json.load(sys.stdin)
forced = args.get("forced")
steering = {"refused": [], "counts": []}

def steer(step, own, top, lookup, count_of):
    """Our pair for this step if it is one of the peer's maxima, else the peer's own choice."""
    steering["counts"].append(top)
    if forced is None or step >= len(forced):
        return own
    left, right = forced[step]
    pair = (lookup(left), lookup(right))
    count = count_of(pair) if None not in pair else None
    if count == top:
        return pair
    steering["refused"].append({"step": step, "ours": [left, right], "its_count": count, "best": top,
                                "its_choice": [own[0].str, own[1].str]})
    return own

def finish(events, vocabulary, encodings, error, seconds):
    json.dump({"error": error, "seconds": seconds, "events": events, "vocabulary": sorted(vocabulary),
               "encodings": encodings, "steering": steering}, sys.stdout, ensure_ascii=False)
'''

PACKAGE_DRIVER = (
    STEERING
    + r"""
from collections import Counter
from pickybpe.vocabularisation import EventType, PickyBPETrainer, RawBPEStatistics
from pickybpe.segmentation import PickyBPESegmenter

class Steered(RawBPEStatistics):
    state = None
    step = 0
    def recompute_objective(self, pairs, state, subtokens):
        self.state = state
    def get_argmax_objective(self):
        own, top = self._counts.get_argmax()
        counts = self._counts
        chosen = steer(self.step, own, top, self.state.str2token.get,
                       lambda pair: counts.get(pair) if counts.has(pair) else None)
        self.step += 1
        return chosen

class Trainer(PickyBPETrainer):
    def _initialize_state(self):
        self.state = state = super()._initialize_state()
        state.pairs = Steered()
        return state
    def _dump(self, state, path):
        self.seconds = time.perf_counter() - self.started
        super()._dump(state, path)

trainer = Trainer(vocab_size=args["vocab_size"], picky_threshold=args["threshold"], max_type_length=10**9,
                  character_coverage=1.0, include_specials=False)
model = Path(tempfile.mkdtemp()) / "picky.json"
trainer.started = time.perf_counter()
try:
    trainer._fit_from_counts(Counter(args["counts"]), model, 10**9)
    error = None
except AssertionError as err:  # the package's own consistency checks
    error = f"{type(err).__name__}: {err}"
events = [["merge", b.str, [t.str for t in a]] if kind == EventType.MERGE else ["split", a.str, [t.str for t in b]]
          for kind, a, b in trainer.state.events]
encodings = {}
if error is None:
    segmenter = PickyBPESegmenter.from_pretrained(model)
    for word in args["words"]:
        try:
            encodings[word] = [t.str for t in segmenter._encode_word_by_events("\u2581" + word)]
        except KeyError:  # a character outside its alphabet (no UNK without character coverage)
            encodings[word] = None
finish(events, (t.str for t in trainer.state.str2token.values() if t.present and not t.special), encodings,
       error, getattr(trainer, "seconds", None))
"""
)

#: The package's segmenter on *our* event list (saved in its model format): inference alone.
SEGMENTER_DRIVER = r"""
import json, sys, tempfile
from pathlib import Path
from pickybpe.segmentation import PickyBPESegmenter

args = json.load(sys.stdin)
ids, tokens, merges, splits = {}, [], [], []

def token(string, parts=None):
    if string not in ids:
        ids[string] = len(tokens)
        tokens.append({"id": ids[string], "str": string, "freq": 0, "special": False, "present": True,
                       "left": ids[parts[0]] if parts else None, "right": ids[parts[1]] if parts else None,
                       "split": [ids[string]]})
    return {"str": string}

for atom in args["alphabet"]:
    token(atom)
for n, (kind, string, parts) in enumerate(args["events"]):
    if kind == "merge":
        merges.append({"id": n, "pair": [token(p) for p in parts], "new_token": token(string, parts)})
    else:
        splits.append({"id": n, "token": token(string), "split": [token(p) for p in parts]})
for t in tokens:
    t["present"] = t["str"] in set(args["vocabulary"])
model = Path(tempfile.mkdtemp()) / "picky.json"
model.write_text(json.dumps({"tokens": tokens, "id2int": {}, "int2id": {}, "merges": merges, "splits": splits}))
segmenter = PickyBPESegmenter.from_pretrained(model)
alphabet = set(args["alphabet"])
json.dump({word: [t.str for t in segmenter._encode_word_by_events("\u2581" + word)]
           for word in args["words"] if set("\u2581" + word) <= alphabet}, sys.stdout, ensure_ascii=False)
"""


def package_segmentations(python: str, tokeniser, words) -> dict[str, list[str]]:
    """The package's ``_encode_word_by_events`` on our tokeniser's event list, for every word
    whose characters are all in the alphabet (it has no UNK here)."""
    payload = json.dumps(
        {
            "alphabet": list(tokeniser.alphabet),
            "vocabulary": sorted(tokeniser.vocabulary),
            "events": [e.to_json() for e in tokeniser.events],
            "words": list(words),
        },
        ensure_ascii=False,
    )
    done = subprocess.run(
        [python, "-c", SEGMENTER_DRIVER], input=payload, capture_output=True, text=True, encoding="utf-8", check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"the package's segmenter failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout)


ORIGINAL_DRIVER = (
    STEERING
    + r"""
sys.path.insert(0, args["checkout"])
from bpe_trainer import BPE
from language import Word
from utils import MCounter

class Steered(MCounter):
    step = 0
    str2token = None
    def most_common(self, n=None):
        if n != 1:
            return super().most_common(n)
        own, top = super().most_common(1)[0]
        chosen = steer(self.step, own, top, lambda s: self.str2token[s] if s in self.str2token else None,
                       lambda pair: self[pair] if pair in self else None)
        self.step += 1
        return [(chosen, self[chosen])]

class Trainer(BPE):
    def _initialize_pairs(self, words):
        pairs = Steered(super()._initialize_pairs(words))
        pairs.str2token = self.str2token
        return pairs

words = [Word(i, "\u2581" + word, count) for i, (word, count) in enumerate(args["counts"].items())]
trainer = Trainer(args["vocab_size"], coverage=1.0, threshold=args["threshold"])
trainer._get_words = lambda file: words
model = Path(tempfile.mkdtemp()) / "picky.json"
started = time.perf_counter()
trainer.fit("-", str(model), 10**9)
seconds = time.perf_counter() - started
saved = json.loads(model.read_text(encoding="utf-8"))
events = sorted([(m["id"], ["merge", m["new_token"]["str"], [t["str"] for t in m["pair"]]]) for m in saved["merges"]]
                + [(s["id"], ["split", s["token"]["str"], [t["str"] for t in s["split"]]]) for s in saved["splits"]])
present = {t.str for t in trainer.str2token.values() if t.present and not t.special}
finish([e for _, e in events], present, {}, None, seconds)
"""
)


def peer_python(explicit: str | None) -> str | None:
    """The package's interpreter: ``explicit``, else ``$PEERS_VENV/bin/python``; None if absent."""
    if explicit:
        return explicit
    venv = os.environ.get("PEERS_VENV")
    return str(Path(venv) / "bin" / "python") if venv else None


def run_peer(
    python: str,
    driver: str,
    counts: dict[str, int],
    vocab_size: int,
    threshold: float,
    *,
    forced: list[list[str]] | None = None,
    words=(),
    checkout: str | None = None,
) -> dict:
    """Train a peer on ``counts`` (words without ``▁``) and segment ``words`` (package only).
    Returns its events, vocabulary, encodings, steering report, ``error`` (the package may stop
    on its own assertions), ``seconds`` (its training alone) and ``wall`` (the subprocess)."""
    payload = json.dumps(
        {
            "counts": counts,
            "vocab_size": vocab_size,
            "threshold": threshold,
            "forced": forced,
            "words": list(words),
            "checkout": checkout,
        },
        ensure_ascii=False,
    )
    started = time.perf_counter()
    done = subprocess.run(
        [python, "-c", driver], input=payload, capture_output=True, text=True, encoding="utf-8", check=False
    )
    if done.returncode != 0:
        raise RuntimeError(f"the peer failed:\n{done.stderr[-2000:]}")
    result = json.loads(done.stdout)
    result["wall"] = time.perf_counter() - started
    return result


def steps(events: list[list]) -> list[tuple]:
    """Events as steps: a merge and the splits right after it (in any order)."""
    out: list[tuple] = []
    for kind, token, parts in events:
        if kind == "merge":
            out.append(((token, tuple(parts)), []))
        else:
            out[-1][1].append((token, tuple(parts)))
    return [(merge, tuple(sorted(splits))) for merge, splits in out]


def first_difference(ours: list, theirs: list) -> int | None:
    for n, (a, b) in enumerate(zip(ours, theirs, strict=False)):
        if a != b:
            return n
    return None if len(ours) == len(theirs) else min(len(ours), len(theirs))


def compare_with(label: str, run_it, run, words: list[str]) -> dict:
    """Both runs of one peer (module docstring), ``run_it(forced=...)`` running it; prints a
    summary, returns the figures."""
    ours = run.tokeniser
    our_steps = steps([e.to_json() for e in ours.events])
    our_counts = [e.count for e in run.events if e.kind == "merge"]
    free = run_it(forced=None)
    free_steps = steps(free["events"])
    n = first_difference(our_steps, free_steps)
    if free["error"]:
        print(f"{label}, own ties: stopped after {len(free['events'])} events: {free['error']}")
    if n is None:
        print(f"{label}, own ties: event lists identical ({len(our_steps)} steps)")
    else:
        pick = [s[n][0] if n < len(s) else None for s in (our_steps, free_steps)]
        counts = [c[n] if n < len(c) else None for c in (our_counts, free["steering"]["counts"])]
        tie = counts[0] == counts[1] and None not in pick and pick[0] != pick[1]
        print(
            f"{label}, own ties: first {n} of {len(our_steps)} steps identical; then ours {pick[0]} "
            f"(count {counts[0]}) vs {label} {pick[1]} (count {counts[1]})"
            + (": a tie broken differently" if tie else "")
        )

    steered = run_it(forced=[list(merge[1]) for merge, _ in our_steps])
    if steered["error"]:
        print(f"{label}, steered: stopped after {len(steered['events'])} events: {steered['error']}")
    refused = steered["steering"]["refused"]
    steered_steps = steps(steered["events"])
    m = first_difference(our_steps, steered_steps)
    vocab_same = sorted(ours.vocabulary) == steered["vocabulary"]
    encoded = {w: e for w, e in steered["encodings"].items() if e is not None}
    differ = [w for w, e in encoded.items() if ours.tokenise_word(w) != e]
    print(
        f"{label}, steered: {len(our_steps) - len(refused)}/{len(our_steps)} of our choices were maxima for it"
        + (f"; first refused: {refused[0]}" if refused else "")
    )
    print(
        f"{label}, steered: event lists identical: {m is None}"
        + (
            ""
            if m is None
            else f" (first {m} steps identical; then ours {our_steps[m] if m < len(our_steps) else None}"
            f" vs {label} {steered_steps[m] if m < len(steered_steps) else None})"
        )
    )
    print(f"{label}, steered: final vocabulary identical: {vocab_same} ({len(ours.vocabulary)} types)")
    if steered["encodings"]:
        print(
            f"{label}, steered: segmentations identical: {len(encoded) - len(differ)}/{len(encoded)}"
            + (f", e.g. {[(w, ours.tokenise_word(w), encoded[w]) for w in differ[:3]]}" if differ else "")
        )
    agree = not steered["error"] and not refused and m is None and vocab_same and not differ
    return {
        "own_ties_first_difference": n,
        "own_ties_error": free["error"],
        "steered_error": steered["error"],
        "steered_refused": refused[:20],
        "steered_first_difference": m,
        "vocabulary_identical": vocab_same,
        "segmentations_compared": len(encoded),
        "segmentations_differ": differ[:50],
        "agree": agree,
        "seconds": free["seconds"],
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--words", type=int, default=2000, help="most frequent words to train on (2000)")
    parser.add_argument("--held-out", type=int, default=500, help="further words only segmented (500)")
    parser.add_argument("--vocab-size", type=int, default=1000, help="non-special types (1000)")
    parser.add_argument("--threshold", type=float, default=0.9, help="τ (0.9)")
    parser.add_argument("--peer-python", help="the package's python (default $PEERS_VENV/bin/python)")
    parser.add_argument("--original", metavar="DIR", help="a checkout of pchizhov/picky_bpe")
    parser.add_argument("--json", metavar="FILE", help="also write the figures to FILE")
    args = parser.parse_args(argv)
    package_python = peer_python(args.peer_python)
    peers = []
    if package_python and Path(package_python).exists():
        peers.append(("package", package_python, PACKAGE_DRIVER, args.vocab_size, None))
    if args.original:
        peers.append(
            (
                "original",
                sys.executable,
                ORIGINAL_DRIVER,
                args.vocab_size + AUTHORS_SPECIALS,
                str(Path(args.original).resolve()),
            )
        )
    if not peers:
        print("no peer: set PEERS_VENV (or --peer-python) for the package, --original for the original code")
        return 2

    table = list(load_word_counts(COUNTS).items())
    counts = dict(table[: args.words])
    words = [w for w, _ in table[: args.words + args.held_out]]
    run = train(TrainingCorpus.from_word_counts(counts, Metaspace()), args.vocab_size, threshold=args.threshold)
    print(
        f"# {len(counts)} words of {COUNTS.name} (+{args.held_out} held out), vocab {args.vocab_size}, "
        f"τ {args.threshold}; ours: {run.summary['merges']} merges, {run.summary['splits']} splits, "
        f"{run.summary['restored']} restored, {run.summary['additional_merges']} additional merges"
    )
    report = {"words": len(counts), "vocab_size": args.vocab_size, "threshold": args.threshold, "ours": run.summary}
    for label, python, driver, size, checkout in peers:
        run_it = partial(run_peer, python, driver, counts, size, args.threshold, words=words, checkout=checkout)
        report[label] = compare_with(label, run_it, run, words)
    if package_python and Path(package_python).exists():
        theirs = package_segmentations(package_python, run.tokeniser, words)
        differ = [w for w, tokens in theirs.items() if run.tokeniser.tokenise_word(w) != tokens]
        print(
            f"package segmenter on our event list: {len(theirs) - len(differ)}/{len(theirs)} segmentations "
            f"identical" + (f", e.g. {differ[:3]}" if differ else "")
        )
        report["package_segmenter"] = {"compared": len(theirs), "differ": differ[:50]}
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    segmenter_agrees = not report.get("package_segmenter", {}).get("differ")
    return 0 if segmenter_agrees and all(report[label]["agree"] for label, *_ in peers) else 1


if __name__ == "__main__":
    sys.exit(main())
