#!/usr/bin/env python3
"""The house rules of include/bitrep/ that a reviewer checks, as one script.

    python3 tools/check_house.py        (./run.sh test runs it first)

Exit status 0 when every rule holds; 1 with one line per violation otherwise.
It reads only include/bitrep/ and uses nothing beyond the standard library.

1. Short headers: no file in include/ is longer than MAX_LINES lines.

2. Layers: every header belongs to one layer of LAYERS below, and includes
   only headers of its own layer or of lower ones. The order is the one the
   code follows, lowest first:

     status      status.hpp, failure_record.hpp   errors as values
     wire        wire/                            bits, streams, the standard's primitives
     annotations annotations/, annotations.hpp, format.hpp, quat_code.hpp,
                 predict.hpp
                                                  field types (what a member is)
     reflect     reflect.hpp, renames.hpp         walking fields
     codecs      codec.hpp, codecs/               encoding per kind (codec<T>)
     serialize   serialize.hpp                    the entry point with every codec
     schema      save/schema_node.hpp, schema_builder.hpp, schema_encoding.hpp,
                 schema_reader.hpp                a type's description (the engine
                                                  builds it with each table)
     engine      engine/                          the table engine
     bytes       bytes.hpp                        to_bytes / from_bytes
     delta       delta.hpp, coded_delta.hpp       delta against a baseline
     save        save/ (the rest)                 save files and their schemas
     replication replication/                     server, client, messages
     umbrella    bitrep.hpp, replication.hpp, instantiate.hpp
                                                  what a user includes to get all

   detail/ has no layer of its own: each detail header sits just below the
   lowest layer that includes it, so it may include only headers of that
   layer or below (detail headers that include each other are followed to
   the fixpoint). A detail header nobody in include/ includes belongs in
   src/. A header no entry of LAYERS covers is reported, so that a new
   folder gets a place in the order.

3. No public signature names detail::. In every header outside detail/,
   each line where `detail::` appears in what a user names of a
   declaration is reported: its type, parameters, return type, base
   classes, template parameters. Skipped: function bodies, `namespace
   detail` blocks (any namespace whose name has a `detail` part), the
   private and protected parts of classes, and what a user never writes
   out: what follows a lone `=` (a variable's initialiser, an alias's
   target, a default argument), static_asserts and requires-clauses. Every
   other namespace counts as public, bitrep::engine and
   bitrep::replication too. This is a textual heuristic (comments and
   strings are blanked, braces counted; a brace after `namespace` or after
   `class`/`struct`/`union`/`enum` opens a scope of declarations, any other
   brace a body), so read a report as a place to look.

Each violation is one line, `include/bitrep/<path>[:line]: what`, then a
count; a clean tree prints the layer order and one line saying so.
"""

import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "include", "bitrep")
MAX_LINES = 800

# Lowest first. A path (relative to include/bitrep) takes the layer of its
# longest matching entry: an exact file, or a folder ending in "/".
LAYERS = [
    ("status", ["status.hpp", "failure_record.hpp"]),
    ("wire", ["wire/"]),
    ("annotations", ["annotations/", "annotations.hpp", "format.hpp", "quat_code.hpp", "predict.hpp"]),
    ("reflect", ["reflect.hpp", "renames.hpp"]),
    ("codecs", ["codec.hpp", "codecs/"]),
    ("serialize", ["serialize.hpp"]),
    ("schema", ["save/schema_node.hpp", "save/schema_builder.hpp", "save/schema_encoding.hpp",
                "save/schema_reader.hpp"]),
    ("engine", ["engine/"]),
    ("bytes", ["bytes.hpp"]),
    ("delta", ["delta.hpp", "coded_delta.hpp"]),
    ("save", ["save/"]),
    ("replication", ["replication/"]),
    ("umbrella", ["bitrep.hpp", "replication.hpp", "instantiate.hpp"]),
]

INCLUDE = re.compile(r'^\s*#\s*include\s*<bitrep/([^>]+)>')


def headers():
    found = []
    for directory, _, files in os.walk(ROOT):
        for name in files:
            found.append(os.path.relpath(os.path.join(directory, name), ROOT).replace(os.sep, "/"))
    return sorted(found)


def layer_of(path):
    best, rank = None, None
    for index, (_, entries) in enumerate(LAYERS):
        for entry in entries:
            matches = path.startswith(entry) if entry.endswith("/") else path == entry
            if matches and (best is None or len(entry) > len(best)):
                best, rank = entry, index
    return rank


def is_detail(path):
    return path.startswith("detail/")


def read(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return f.read()


def check_length(files, problems):
    for path in files:
        count = read(path).count("\n")
        if count > MAX_LINES:
            problems.append(f"include/bitrep/{path}: {count} lines (at most {MAX_LINES})")


def check_layers(files, problems):
    includes = {path: [m.group(1) for m in map(INCLUDE.match, read(path).splitlines()) if m] for path in files}
    top = len(LAYERS) - 1
    layer = {}
    for path in files:
        if is_detail(path):
            continue
        rank = layer_of(path)
        if rank is None:
            problems.append(f"include/bitrep/{path}: no layer in LAYERS covers it")
            rank = top
        layer[path] = rank
    # A detail header's layer: the lowest of its includers', to the fixpoint.
    for path in files:
        if is_detail(path):
            layer[path] = top + 1
    changed = True
    while changed:
        changed = False
        for path in files:
            for target in includes[path]:
                if is_detail(target) and target in layer and layer[path] < layer[target]:
                    layer[target] = layer[path]
                    changed = True
    for path in files:
        if is_detail(path) and layer[path] > top:
            problems.append(f"include/bitrep/{path}: no header in include/ uses it (it belongs in src/)")
    for path in files:
        for target in includes[path]:
            if target not in layer:
                problems.append(f"include/bitrep/{path}: includes <bitrep/{target}>, which does not exist")
            elif layer[target] > layer[path]:
                what = "detail header used from" if is_detail(path) else "layer"
                problems.append(f"include/bitrep/{path} ({what} {LAYERS[layer[path]][0]}) includes "
                                f"<bitrep/{target}> (layer {LAYERS[min(layer[target], top)][0]})")


def code_only(text):
    """The text with comments, string and character literals blanked out
    (newlines kept, so line numbers hold)."""
    pattern = re.compile(r'//[^\n]*|/\*.*?\*/|R"([^(]*)\(.*?\)\1"|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'',
                         re.S)
    return pattern.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


SCOPE_OPENER = re.compile(r'(?:^|[\s>])(class|struct|union|enum(?:\s+class|\s+struct)?)\s+[\w:]*[^()=]*$')
NAMESPACE_OPENER = re.compile(r'\bnamespace\s*([\w:]*)\s*$')


def check_detail_in_signatures(files, problems):
    for path in files:
        if is_detail(path):
            continue
        text = code_only(read(path))
        text = "\n".join("" if line.lstrip().startswith("#") else line for line in text.split("\n"))
        # Each open brace: ("namespace", is_detail), ("class", access) or ("body", None).
        stack = []
        statement = ""  # declaration-level text since the last ; { or }
        flagged = set()
        line_number = 1
        line_text = ""  # the declaration-level text of the current line
        ignoring = False  # in an initialiser or a static_assert, until ; { or }
        in_requires = False  # in a requires-clause, until the end of the line

        def at_declaration_level(ignore_innermost_access=False):
            for index, (kind, value) in enumerate(stack):
                if kind == "class" and ignore_innermost_access and index == len(stack) - 1:
                    continue
                if kind == "body" or (kind == "namespace" and value) or (kind == "class" and value != "public"):
                    return False
            return True

        def finish_line():
            if "detail::" in line_text and line_number not in flagged:
                flagged.add(line_number)
                source = read(path).split("\n")[line_number - 1].strip()
                problems.append(f"include/bitrep/{path}:{line_number}: detail:: in a public declaration: {source}")

        for char in text:
            if char == "\n":
                finish_line()
                in_requires = False
                line_number += 1
                line_text = ""
                if at_declaration_level(ignore_innermost_access=True):
                    statement += " "
                continue
            if char == "{":
                if at_declaration_level(ignore_innermost_access=True):
                    namespace = NAMESPACE_OPENER.search(statement)
                    scope = SCOPE_OPENER.search(statement)
                    if namespace:
                        stack.append(("namespace", "detail" in namespace.group(1).split("::")))
                    elif scope:
                        stack.append(("class", "private" if scope.group(1) == "class" else "public"))
                    else:
                        stack.append(("body", None))
                else:
                    stack.append(("body", None))
                statement = ""
                ignoring = False
                continue
            if char == "}":
                if stack:
                    stack.pop()
                statement = ""
                ignoring = False
                continue
            # A class's private part is read too, for its access labels.
            if not at_declaration_level(ignore_innermost_access=True):
                continue
            if char == ";":
                statement = ""
                ignoring = False
                continue
            statement += char
            # What follows a lone `=` (an initialiser, an alias's target, a
            # default argument) or starts a static_assert is not what a user
            # names; nor is a requires-clause, to the end of its line.
            if re.search(r'(?<![=<>!])=$', statement) and not statement.endswith("operator="):
                ignoring = True
            elif re.search(r'\bstatic_assert$', statement):
                ignoring = True
            elif re.search(r'\brequires$', statement):
                in_requires = True
            if at_declaration_level() and not ignoring and not in_requires:
                line_text += char
            if stack and stack[-1][0] == "class":
                label = re.search(r'\b(public|private|protected)\s*:$', statement)
                if label and not statement.endswith("::"):
                    stack[-1] = ("class", label.group(1))
                    statement = ""
        finish_line()


def main():
    files = headers()
    problems = []
    check_length(files, problems)
    check_layers(files, problems)
    check_detail_in_signatures(files, problems)
    print(f"check_house: {len(files)} headers, layers (lowest first): " + " < ".join(name for name, _ in LAYERS))
    for problem in problems:
        print(problem)
    if problems:
        print(f"check_house: {len(problems)} problem(s)")
        return 1
    print("check_house: no file over %d lines, no include against the layers, no detail:: in a public "
          "declaration" % MAX_LINES)
    return 0


if __name__ == "__main__":
    sys.exit(main())
