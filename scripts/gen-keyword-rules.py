#!/usr/bin/env python3
"""Rewrites the keyword section at the end of parser/src/delphi.pest from the word tables of
parser/src/tokens/keywords.rs (RESERVED: code U+0200 + index, SOFT: code U+0280 + index).

Run it after changing either table; the test `grammar_codes_match_the_lexer` fails until the
grammar and the lexer agree."""
import pathlib
import re

root = pathlib.Path(__file__).resolve().parent.parent
tokens = (root / "parser/src/tokens/keywords.rs").read_text()
grammar_path = root / "parser/src/delphi.pest"
grammar = grammar_path.read_text()


def table(name):
    start = tokens.index(f"pub(crate) const {name}: &[&str] = &[")
    end = tokens.index("];", start)
    return re.findall(r'"([a-z]+)"', tokens[start:end])


marker = "// ---------------------------------------------------------------- keywords\n"
lines = [marker, "// Reserved words (keywords.rs RESERVED; code U+0200 + index).\n"]
lines += [f'kw_{w} = _{{ "\\u{{{0x200 + i:04X}}}" }}\n' for i, w in enumerate(table("RESERVED"))]
lines += ["\n", "// Soft keywords (keywords.rs SOFT; code U+0280 + index): identifiers where no rule wants them.\n"]
lines += [f'kw_{w} = _{{ "\\u{{{0x280 + i:04X}}}" }}\n' for i, w in enumerate(table("SOFT"))]
grammar = grammar[: grammar.index(marker)] + "".join(lines)
grammar_path.write_text(grammar)
