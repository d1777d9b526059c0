"""Content or echo: telling a structured LLM reply's content from a copy of its prompt.

A small model decoding under a schema it was shown may fill the fields with the schema's own
words (a fact reading "The fact, one short sentence naming its subject.", a tag reading
"entity|attribute|time|action|keyword") or with the prompt's instructions.
:func:`echo_errors` finds such texts: every free text of a reply is compared, normalised
(:func:`normalise_text`), with the descriptions, titles and enum listings of the schemas sent
(:func:`schema_phrases`) and with the system messages (:func:`prompt_instructions`); a text
without a letter or digit has no content either. :func:`without_prose` is the schema to show a
model after an echo: the same rules, none of the words to copy.
:func:`graphmem.llm.invoke_structured` retries a reply that echoes (:class:`EchoError`) and never
returns it as data.

Pure: no I/O, no model.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

#: Words a reply text needs before being part of a schema description or of the instructions
#: makes it an echo (shorter texts may share words with them by chance).
ECHO_MIN_WORDS = 4
#: What the retry after an echo tells the model (the echoed text is not repeated to it).
ECHO_NOTE = ("it repeated the instructions or the schema's explanations instead of content. "
             "Reply again with the content itself, taken from the input, following the schema.")


class EchoError(ValueError):
    """A reply echoed the schema or the prompt instead of content (see :func:`echo_errors`)."""


_QUOTED = re.compile(r"(?<!\w)(?:'[^'\n]+'|\"[^\"\n]+\")(?!\w)")


def normalise_text(text: str) -> str:
    """``text`` as echo checks compare it: lower case, each run of characters other than
    letters and digits one space, stripped (``"Entity | Time,"`` → ``"entity time"``)."""
    return " ".join(re.findall(r"[^\W_]+", text.lower()))


def schema_phrases(schema: Mapping[str, Any]) -> tuple[set[str], set[str]]:
    """What a reply under ``schema`` must not echo, and what it may choose, normalised
    (:func:`normalise_text`).

    Returns:
        ``(phrases, choices)``: ``phrases`` are the schema's descriptions and titles and the
        joins of its enums of two or more values (``"entity attribute time action keyword"``);
        ``choices`` are its single enum and const values (a reply equal to one is a choice).
    """
    phrases: set[str] = set()
    choices: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, list):
            for n in node:
                walk(n)
            return
        if not isinstance(node, Mapping):
            return
        for key in ("description", "title"):
            if isinstance(node.get(key), str):
                phrases.add(normalise_text(node[key]))
        values = [*node.get("enum", []), *([node["const"]] if "const" in node else [])]
        choices.update(normalise_text(str(v)) for v in values)
        if len(values) > 1:
            phrases.add(normalise_text(" ".join(str(v) for v in values)))
        for key, value in node.items():
            if key == "properties" and isinstance(value, Mapping):
                for prop in value.values():  # property names are keys, not text
                    walk(prop)
            elif isinstance(value, (Mapping, list)):
                walk(value)

    walk(schema)
    phrases.discard("")
    choices.discard("")
    return phrases, choices


def without_prose(schema: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of ``schema`` without its ``description`` and ``title`` texts: the same shape and
    rules (a grammar built from it accepts the same replies), none of the words a model could
    copy into its reply."""
    def walk(node: Any) -> Any:
        if isinstance(node, list):
            return [walk(n) for n in node]
        if not isinstance(node, Mapping):
            return node
        out = {}
        for key, value in node.items():
            if key in ("description", "title") and isinstance(value, str):
                continue
            if key == "properties" and isinstance(value, Mapping):
                out[key] = {name: walk(prop) for name, prop in value.items()}
            else:
                out[key] = walk(value)
        return out

    return walk(dict(schema))


def prompt_instructions(messages: Sequence[Any]) -> list[str]:
    """The text of the system messages (``("system", text)`` pairs or langchain-core
    ``SystemMessage`` s): the prompt's instructions, as opposed to the data it shows."""
    out = []
    for message in messages:
        if isinstance(message, (tuple, list)) and len(message) == 2:
            role, content = message
        else:
            role, content = getattr(message, "type", ""), getattr(message, "content", "")
        if role == "system" and isinstance(content, str):
            out.append(content)
    return out


def _texts(value: Any) -> list[str]:
    """Every string inside a parsed reply (dict values and list items, depth first)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        return [t for v in value.values() for t in _texts(v)]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _texts(v)]
    return []


def echo_errors(value: Any, schemas: Sequence[Mapping[str, Any]],
                instructions: Sequence[str] = ()) -> list[str]:
    """Why ``value`` (a parsed reply as JSON data) is no content but an echo, one line per
    offending text; empty when it is content.

    A text is an echo when, normalised (:func:`normalise_text`), it equals a description, title
    or enum listing of ``schemas`` (the schemas the call sent; :func:`schema_phrases`) or a
    sentence (two words or more) of ``instructions`` (the system messages, e.g. from
    :func:`prompt_instructions`), contains one of at least :data:`ECHO_MIN_WORDS`
    words, or has at least that many words and is part of one; quoted examples in the
    instructions (``'went to support group'``) show content and are left out. A text without a
    letter or digit (``"..."``) has no content. A text equal to one of the schema's allowed
    enum values is a choice, never an echo; empty texts are left to the schema (``minLength``).
    """
    phrases: set[str] = set()
    choices: set[str] = set()
    for schema in schemas:
        found, allowed = schema_phrases(schema)
        phrases |= found
        choices |= allowed
    # quoted examples ('went to support group') show content, which a reply may repeat
    instructions = [_QUOTED.sub("\n", text) for text in instructions]
    said = [normalise_text(text) for text in instructions]
    sentences = {part for text in instructions for part in
                 (normalise_text(p) for p in re.split(r"[.!?;:\n]+", text))
                 if len(part.split()) >= 2}
    errors = []
    for text in dict.fromkeys(_texts(value)):
        norm = normalise_text(text)
        words = len(norm.split())
        if not text.strip() or norm in choices:
            continue
        if not norm:
            errors.append(f"{text!r} has no content")
        elif norm in phrases or any(len(p.split()) >= ECHO_MIN_WORDS and p in norm
                                    for p in phrases):
            errors.append(f"{text!r} repeats the schema's own description")
        elif words >= ECHO_MIN_WORDS and any(norm in p for p in phrases):
            errors.append(f"{text!r} is part of the schema's own description")
        elif norm in sentences or any(len(s.split()) >= ECHO_MIN_WORDS and s in norm
                                      for s in sentences) or (
                words >= ECHO_MIN_WORDS and any(norm in t for t in said)):
            errors.append(f"{text!r} repeats the prompt's instructions")
    return errors
