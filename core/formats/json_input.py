"""Reading a JSON file of any kind (tokeniser, vocab.json, special tokens) with every failure an
InputError: the line and column of a syntax error, the nesting limit, numbers Python refuses,
lone surrogates.

No paper section (plumbing).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from functools import partial
from itertools import chain, compress
from operator import is_
from typing import cast

from core.errors import InputError, excerpt
from core.limits import MAX_JSON_DEPTH

_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_CONTAINERS = frozenset((dict, list))
_is_dict = partial(is_, dict)
_is_list = partial(is_, list)


def read_json(text: str, source: str) -> object:
    """The parsed ``text``; InputError naming ``source`` (and the line of a syntax error)."""
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as err:
        raise InputError(
            f"invalid JSON: {err.msg} (column {err.colno}) at {excerpt(text[err.pos : err.pos + 30])}",
            source,
            err.lineno,
        ) from None
    except RecursionError:
        raise InputError(f"JSON nesting deeper than {MAX_JSON_DEPTH} levels", source) from None
    except ValueError as err:  # an integer of more than 4,300 digits
        raise InputError(f"invalid JSON value: {excerpt(str(err), 120)}", source) from None
    check_json_depth(obj, source)
    if _SURROGATE_ESCAPE.search(text):
        _refuse_lone_surrogates(obj, source)
    return obj


def check_json_depth(obj: object, source: str) -> None:
    """InputError when parsed JSON nests deeper than :data:`MAX_JSON_DEPTH` levels.

    Level by level, without recursion, and at C speed (``map``, ``compress``): a tokenizer.json
    holds half a million small lists, which a loop in Python would take a second to visit."""
    level: list[object] = [obj] if type(obj) in _CONTAINERS else []
    depth = 0
    while level:
        depth += 1
        if depth > MAX_JSON_DEPTH:
            raise InputError(f"JSON nesting deeper than {MAX_JSON_DEPTH} levels", source)
        # filtered by exact type, which mypy cannot follow through ``compress``
        dicts = cast("Iterator[dict[object, object]]", compress(level, map(_is_dict, map(type, level))))
        lists = cast("Iterator[list[object]]", compress(level, map(_is_list, map(type, level))))
        children: list[object] = list(chain(chain.from_iterable(map(dict.values, dicts)), chain.from_iterable(lists)))
        level = list(compress(children, map(_CONTAINERS.__contains__, map(type, children))))


def _refuse_lone_surrogates(obj, source: str) -> None:
    """InputError naming the first string (key or value) holding a lone surrogate (JSON allows
    ``\\ud800`` escapes; no text can hold such a character, so no tokeniser can use it)."""
    stack = [("$", obj)]
    while stack:
        where, value = stack.pop()
        if isinstance(value, str):
            if _LONE_SURROGATE.search(value):
                raise InputError(
                    f"{where}: {excerpt(value, 20)} holds a lone surrogate (not a Unicode character)", source
                )
        elif isinstance(value, dict):
            for key, item in value.items():
                if _LONE_SURROGATE.search(key):
                    raise InputError(
                        f"{where}: key {excerpt(key, 20)} holds a lone surrogate (not a Unicode character)", source
                    )
                stack.append((f"{where}.{key[:40]}", item))
        elif isinstance(value, list):
            stack.extend((f"{where}[{i}]", item) for i, item in enumerate(value))
