"""``explain``: why words segment as they do, on the command line (the Word debugger's answer as
text or JSON: tokens with ids and ranks, merge trees, the first merge that crossed a reference
boundary, trapped tokens and what knocking out the trapping type would give, [knockout App. A.4])."""

from __future__ import annotations

import json

from core.cli.common import (
    NL_40K,
    NL_REF,
    REFERENCE_FORMATS,
    add_command,
    add_json_flag,
    add_tokeniser_arguments,
    examples,
    load_reference_entries,
    load_tokeniser_argument,
)
from core.cli.progress import ProgressBar


def add_explain(sub, prog: str) -> None:
    p = add_command(
        sub,
        "explain",
        "why words segment as they do: tokens with ids and ranks, merge trees, the first merge that crossed "
        "a reference boundary, trapped tokens [knockout App. A.4]",
        examples(
            prog,
            f"explain --tokeniser {NL_40K} --reference {NL_REF} bruidsjurk",
            f"explain --tokeniser {NL_40K} --json gidsen",
        ),
        cmd_explain,
    )
    add_tokeniser_arguments(p)
    add_json_flag(p, "a list of {word, tokens, trees, explanation}")
    p.add_argument("--reference", metavar="PATH", help=REFERENCE_FORMATS + " (default: none: no boundaries checked)")
    p.add_argument("words", nargs="+", help="words to explain, each as in running text (' ' + word)")


def cmd_explain(args) -> int:
    from core.analysis.explain import explain_word, token_merges, trace_word

    tokeniser = load_tokeniser_argument(args, "merge_graph")
    references = {}
    if args.reference:
        references = {e.word: e.morphs for e in load_reference_entries(args.reference, False)}
    results = []
    with ProgressBar("explaining", "word", total=len(args.words)) as bar:
        for word in args.words:
            traced = trace_word(tokeniser, word)
            explanation = explain_word(tokeniser, word, references.get(word), traced=traced, counterfactual=True)
            results.append((traced, token_merges(tokeniser, traced), explanation))
            bar.advance()
    if args.json:
        print(json.dumps([_json(tokeniser, *r) for r in results], ensure_ascii=False, indent=1))
    else:
        for result in results:
            print("\n".join(_text(tokeniser, *result)) + "\n")
    return 0


def _token_line(tokeniser, merges) -> str:
    """One token: its id, and the merge that formed it here (or why none did)."""
    from core.analysis.explain import display_rank

    head = f"  {merges.token!r}  id {tokeniser.token_id(merges.token)}"
    if merges.fired is not None:
        alternative = " (an alternative merge of the type)" if merges.fired_alternative else ""
        return f"{head}  formed by {_merge(merges.fired)} (rank {display_rank(merges.fired.rank)}){alternative}"
    if merges.whole:
        own = merges.primary
        primary = f"; its own merge is {_merge(own)} (rank {display_rank(own.rank)})" if own is not None else ""
        return f"{head}  emitted whole: the pretoken is a type and ignore_merges is on{primary}"
    return f"{head}  an atom (no merge)"


def _merge(merge) -> str:
    return " + ".join(merge.parts)


def _tree_lines(traced, pretoken: int, tree, depth: int = 2) -> list[str]:
    """A merge tree, one node a line, with the word's global step numbers."""
    from core.analysis.explain import display_rank

    pad = "  " * depth
    if tree.merge is None:
        return [f"{pad}{tree.token!r}"]
    step = traced.global_step(pretoken, tree.step)
    lines = [f"{pad}{tree.token!r}  <- {_merge(tree.merge)} (rank {display_rank(tree.merge.rank)}, step {step})"]
    for child in tree.children:
        lines += _tree_lines(traced, pretoken, child, depth + 1)
    return lines


def _text(tokeniser, traced, merges, explanation) -> list[str]:
    reference = "" if explanation.reference is None else f"   (reference: {' '.join(explanation.reference)})"
    lines = [f"{traced.word}  ->  {' '.join(traced.tokens)}{reference}", "tokens:"]
    lines += [_token_line(tokeniser, m) for m in merges]
    lines.append("merge trees:")
    for pretoken, trace in enumerate(traced.traces):
        for tree in trace.trees:
            lines += _tree_lines(traced, pretoken, tree)
    return lines + ["why:"] + [f"  {sentence}" for sentence in explanation.sentences()]


def _json(tokeniser, traced, merges, explanation) -> dict:
    return {
        "word": traced.word,
        "tokens": [{**m.to_json(), "id": tokeniser.token_id(m.token)} for m in merges],
        "trees": [tree.to_json() for trace in traced.traces for tree in trace.trees],
        "explanation": explanation.to_json(),
    }
