#!/usr/bin/env python3
"""Writes a markdown file's C++ snippets as translation units, so that CTest
can build (and, where a section has a main, run) exactly what a reader
copies: README.md's and each page of docs/guide/.

Each `## ` section's ```cpp blocks, in order, make one file: a later block of
a section may use what an earlier one declared. Only blocks fenced ```cpp are
compiled; a fragment that is not meant to compile on its own (a signature, a
line of a larger program) is fenced ```c++ or without a language, and is
left out. Every file starts with `#include <bitrep/bitrep.hpp>`, which the
documents say every snippet assumes, and `#line` directives point compiler
errors at the markdown file's own lines.

Usage: extract_snippets.py FILE.md OUTPUT_DIR [PREFIX]
Files are named PREFIX_SECTION.cpp (PREFIX defaults to `readme`), so that
several documents can share one OUTPUT_DIR without colliding.
Prints one line per file: `NAME:main|object:glm|-`.
"""
import pathlib
import re
import sys


def sections(lines):
    """Yields (title, [(first_line_number, [code lines])]) per section."""
    title, blocks, block, start, other_fence = "top", [], None, 0, False
    for number, line in enumerate(lines, start=1):
        if block is not None:
            if line.startswith("```"):
                blocks.append((start, block))
                block = None
            else:
                block.append(line)
        elif other_fence:
            other_fence = not line.startswith("```")
        elif line.rstrip() == "```cpp":
            block, start = [], number + 1
        elif line.startswith("```"):
            other_fence = True
        elif line.startswith("## "):
            if blocks:
                yield title, blocks
            title, blocks = line[3:].strip(), []
    if block is not None:
        sys.exit(f"the ```cpp block from line {start} is never closed")
    if blocks:
        yield title, blocks


def main():
    readme, output = pathlib.Path(sys.argv[1]).resolve(), pathlib.Path(sys.argv[2])
    prefix = sys.argv[3] if len(sys.argv) > 3 else "readme"
    output.mkdir(parents=True, exist_ok=True)
    for title, blocks in sections(readme.read_text(encoding="utf-8").splitlines()):
        name = prefix + "_" + re.sub(r"[^a-z0-9]+", "_", title.lower()).strip("_")
        text = ["#include <bitrep/bitrep.hpp>"]
        for start, code in blocks:
            text.append(f'#line {start} "{readme}"')
            text.extend(code)
        body = "\n".join(text) + "\n"
        target = output / f"{name}.cpp"
        # Rewritten only when it changed, so that an edit elsewhere in the
        # README rebuilds nothing.
        if not target.exists() or target.read_text(encoding="utf-8") != body:
            target.write_text(body, encoding="utf-8")
        kind = "main" if re.search(r"^int main\(", body, re.MULTILINE) else "object"
        uses_glm = "glm" if "<glm/" in body else "-"
        print(f"{name}:{kind}:{uses_glm}")


if __name__ == "__main__":
    main()
