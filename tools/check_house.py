#!/usr/bin/env python3
"""The house rules of include/bitrep/ and src/ that a reviewer checks, as one
script.

    python3 tools/check_house.py               (./run.sh test runs it first)
    python3 tools/check_house.py --functions   also the long functions NOLINT excuses

Exit status 0 when every rule holds; 1 with one line per violation
otherwise. It reads include/bitrep/ and src/ and uses nothing beyond the
standard library. A function clang-tidy is told to let pass is excused
(rule 5) and --functions reports it too, so that nothing is forgotten;
none is excused today.

1. Short files: no file in include/ or src/ is longer than MAX_LINES lines.

2. Layers of include/bitrep/: every header belongs to one layer of LAYERS
   below, and includes only headers of its own layer or of lower ones. The
   order is the one the code follows, lowest first:

     status      status.hpp, failure_record.hpp   errors as values
     wire        wire/                            bits, streams, the standard's primitives
     annotations annotations/, annotations.hpp, format.hpp, quat_code.hpp,
                 predict.hpp
                                                  field types (what a member is)
     reflect     reflect.hpp, renames.hpp         walking fields
     codecs      codec.hpp, codecs/               encoding per kind (codec<T>)
     serialize   serialize.hpp                    the entry point with every codec
     schema      save/schema_node.hpp, schema_builder.hpp, schema_encoding.hpp,
                 schema_reader.hpp, load_plan.hpp a type's description (the engine
                                                  builds it with each table) and
                                                  the plan the engine loads a
                                                  file's schema by
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

3. Layers of src/: every file in src/ belongs to a layer of the same order
   (SRC_LAYERS), the one of the headers it implements:

     schema      schema_kinds.hpp, schema_walk.hpp, schema_reader.cpp
                                                  the table of kinds, reading by a
                                                  file's schema without T
     engine      engine/                          programs, interpreter, deltas,
                                                  describe (a type's schema from its
                                                  entries), the schema-driven load
                                                  (load_by_plan), to_bytes
     save        schema.cpp, schema_bind.cpp, save_file.cpp, save_async.cpp,
                 file_io.cpp, atomic_write.hpp, checksums.cpp
                                                  schema encoding, bind(), files; the
                                                  CRCs of detail/checksums.hpp, at
                                                  that header's layer (rule 2: its
                                                  lowest includers are in save/)
     replication replication/, packet_security.cpp
                                                  server, client, channels, sealing

   A file in src/ may include headers of include/bitrep/ (their layers as in
   rule 2, detail/ headers' too) and headers of src/ (by a relative
   "..." include, resolved to its real path) of its own layer or lower ones.
   A relative include must also stay inside its own part of src/: the
   files at src/'s top are one part, each folder of src/ with its subfolders
   another (src/replication/server/ may include "../slices.hpp"; nothing
   outside src/engine/ includes src/engine/'s headers). A header one part
   needs from another is not private to the first: it moves to
   include/bitrep/ (at the layer of what it is) or its declarations move
   down to a header of a lower layer.

   How today's tree keeps it (the smallest changes that made it hold):
   src/engine/load.cpp and src/engine/describe.cpp stay in the engine, which
   they walk (load.cpp reads with the engine's private kinds.hpp and
   values.hpp, which moving it to a save/ folder would have reached across
   folders for). What they took from the save layer was schema-layer:
   load.cpp the load_plan that bind() fills and load_by_plan's declaration,
   now in save/load_plan.hpp (schema layer; schema_bind.hpp includes it);
   describe.cpp the declaration of engine::describe, now in
   engine/schema_info.hpp beside the schema_builder it feeds.
   engine/delta_cost.hpp, the cost model of the index list of
   delta_elements that the replication server plans its packets by, moved
   from src/engine/ back to include/bitrep/engine/: shared by two parts of
   src/, it is an interface between them, and a small one, constexpr
   arithmetic over wire/ that docs/formats/wire-format.md (section 6.3)
   already makes public. src/engine/delta.cpp included <bitrep/delta.hpp>
   (the delta layer, above the engine) for nothing it used: it includes
   codecs/field_flags.hpp, the one thing it got through it.

4. No public signature names detail::. In every header outside detail/,
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

5. Short functions: no function in include/ or src/ is longer than
   MAX_FUNCTION_LINES lines, counted as clang-tidy's
   readability-function-size counts them (.clang-tidy sets it the same 60
   for src/ and the headers src/ includes): the line number of its closing
   brace less that of its opening brace, blank lines and comments included;
   lambdas and local classes inside a function count toward it. A function
   clang-tidy is told to let pass (NOLINT(readability-function-size) on the
   line of its name, or NOLINTNEXTLINE(...) on the line before) is excused
   here too: the default run leaves it out, --functions reports it too
   (today: run_program, src/engine/interpreter.cpp, 63 lines). Unlike
   clang-tidy this reads every header of include/, used or not, and needs no
   build. A heuristic: comments, strings and preprocessor lines are blanked
   (of each #if, only the first branch is read, so that braces balance), and
   at namespace and class scope a brace opens a function's body when what
   precedes it ends as a function's declarator does: a `)` with only
   qualifiers after it (const, noexcept, override, ...), a trailing return
   type or requires-clause, a constructor's initialiser list, or a lambda's
   `[...]`. Every other brace there opens a namespace, a class or an
   initialiser. A report names the line of the function's name.

6. One portability header: compiler-specific constructs (GNU and clang
   attributes such as [[gnu::cold]], __attribute__, __declspec, builtins,
   asm, pragmas other than `#pragma once`, _Pragma, and the compilers' own
   macros: __GNUC__, __clang__, _MSC_VER, __x86_64__, ...) appear only in
   PORTABILITY_HEADER, each there with its fallback. Comments and strings
   are not read; the standard's feature-test macros (__cpp_...) and
   __has_include are not compiler-specific and pass.

Each violation is one line, `<path>[:line]: what`, then a count; a clean
tree prints the layer order and one line saying so.
"""

import argparse
import bisect
import os
import re
import sys

REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
ROOT = os.path.join(REPO, "include", "bitrep")
SRC = os.path.join(REPO, "src")
MAX_LINES = 800
MAX_FUNCTION_LINES = 60


# Lowest first. A path (relative to include/bitrep) takes the layer of its
# longest matching entry: an exact file, or a folder ending in "/".
LAYERS = [
    ("status", ["status.hpp", "failure_record.hpp"]),
    ("wire", ["wire/"]),
    ("annotations", ["annotations/", "annotations.hpp", "format.hpp", "quat_code.hpp", "predict.hpp"]),
    ("reflect", ["reflect.hpp", "renames.hpp"]),
    ("kinds", ["kinds/"]),
    ("codecs", ["codec.hpp", "codecs/"]),
    ("serialize", ["serialize.hpp"]),
    ("schema", ["save/schema_node.hpp", "save/schema_builder.hpp", "save/schema_encoding.hpp",
                "save/schema_reader.hpp", "save/load_plan.hpp"]),
    ("engine", ["engine/"]),
    ("bytes", ["bytes.hpp"]),
    ("delta", ["delta.hpp", "coded_delta.hpp"]),
    ("save", ["save/"]),
    ("replication", ["replication/"]),
    ("umbrella", ["bitrep.hpp", "replication.hpp", "instantiate.hpp"]),
]

# The layers of src/ (rule 3): a path relative to src/ takes the layer of its
# longest matching entry, as in LAYERS.
SRC_LAYERS = {
    "schema": ["schema_kinds.hpp", "schema_walk.hpp", "schema_reader.cpp"],
    "engine": ["engine/"],
    "save": ["schema.cpp", "schema_bind.cpp", "save_file.cpp", "save_async.cpp", "file_io.cpp", "atomic_write.hpp",
             "checksums.cpp"],
    "replication": ["replication/", "packet_security.cpp"],
}

INCLUDE = re.compile(r'^\s*#\s*include\s*<bitrep/([^>]+)>')
RELATIVE_INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def files_under(root):
    found = []
    for directory, _, files in os.walk(root):
        for name in files:
            found.append(os.path.relpath(os.path.join(directory, name), root).replace(os.sep, "/"))
    return sorted(found)


def longest_match(path, layers):
    """The index in `layers` ((name, entries) pairs) of path's longest
    matching entry, or None."""
    best, rank = None, None
    for index, (_, entries) in enumerate(layers):
        for entry in entries:
            matches = path.startswith(entry) if entry.endswith("/") else path == entry
            if matches and (best is None or len(entry) > len(best)):
                best, rank = entry, index
    return rank


def layer_of(path):
    return longest_match(path, LAYERS)


def src_layer_of(path):
    names = [name for name, _ in LAYERS]
    ranked = [(name, SRC_LAYERS.get(name, [])) for name in names]
    return longest_match(path, ranked)


def is_detail(path):
    return path.startswith("detail/")


def read(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        return f.read()


def read_src(path):
    with open(os.path.join(SRC, path), encoding="utf-8") as f:
        return f.read()


def check_length(files, src_files, problems):
    named = [(f"include/bitrep/{path}", read(path)) for path in files]
    named += [(f"src/{path}", read_src(path)) for path in src_files]
    for name, text in named:
        count = text.count("\n")
        if count > MAX_LINES:
            problems.append(f"{name}: {count} lines (at most {MAX_LINES})")


def ranked(paths, rank_of, prefix, table, problems):
    """Each path's layer by rank_of; one `table` does not cover is reported
    and taken as the top layer."""
    layer = {}
    for path in paths:
        rank = rank_of(path)
        if rank is None:
            problems.append(f"{prefix}{path}: no layer in {table} covers it")
            rank = len(LAYERS) - 1
        layer[path] = rank
    return layer


def check_layers(files, problems):
    """Rule 2; returns each header's layer (a detail header's as found)."""
    includes = {path: [m.group(1) for m in map(INCLUDE.match, read(path).splitlines()) if m] for path in files}
    top = len(LAYERS) - 1
    layer = ranked([path for path in files if not is_detail(path)], layer_of, "include/bitrep/", "LAYERS", problems)
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
    return layer


def part_of(path):
    """The part of src/ a path (relative to src/) is in: its top folder, or
    "" for the files at src/'s top."""
    return path.split("/", 1)[0] if "/" in path else ""


def check_src_layers(src_files, layer, problems):
    """Rule 3, given the layers of include/bitrep/'s headers."""
    top = len(LAYERS) - 1

    def name(rank):
        return LAYERS[min(rank, top)][0]

    for unknown in sorted(set(SRC_LAYERS) - {layer_name for layer_name, _ in LAYERS}):
        problems.append(f"tools/check_house.py: SRC_LAYERS names {unknown}, which is no layer of LAYERS")
    src_layer = ranked(src_files, src_layer_of, "src/", "SRC_LAYERS", problems)
    for path in src_files:
        for number, line in enumerate(read_src(path).splitlines(), 1):
            where = f"src/{path}:{number}"
            public = INCLUDE.match(line)
            relative = RELATIVE_INCLUDE.match(line)
            if public:
                target = public.group(1)
                if target not in layer:
                    problems.append(f"{where}: includes <bitrep/{target}>, which does not exist")
                elif layer[target] > src_layer[path]:
                    problems.append(f"{where} (layer {name(src_layer[path])}) includes <bitrep/{target}> "
                                    f"(layer {name(layer[target])})")
            elif relative:
                spelled = relative.group(1)
                target = os.path.normpath(os.path.join(os.path.dirname(path), spelled)).replace(os.sep, "/")
                if target.startswith("../") or target not in src_layer:
                    problems.append(f'{where}: includes "{spelled}", which is no file of src/')
                elif part_of(target) != part_of(path):
                    owner = f"src/{part_of(target)}/" if part_of(target) else "src/'s top"
                    problems.append(f'{where}: includes "{spelled}", a private header of {owner} '
                                    f"(move what it shares to include/bitrep/ or a lower layer)")
                elif src_layer[target] > src_layer[path]:
                    problems.append(f'{where} (layer {name(src_layer[path])}) includes "{spelled}" '
                                    f"(layer {name(src_layer[target])})")


PORTABILITY_HEADER = "detail/portability.hpp"
COMPILER_SPECIFIC = re.compile(
    r'\[\[\s*(?:gnu|clang|msvc)\s*::|__attribute__|__declspec|\b__builtin_\w+|\b(?:__)?asm(?:__)?\s*(?:volatile\s*)?\(|'
    r'#\s*pragma\s+(?!once\b)|\b_Pragma\b|\b__(?:GNUC|clang|GNUC_MINOR|INTEL_COMPILER|x86_64|aarch64|i386|'
    r'EXCEPTIONS|OPTIMIZE|has_builtin|has_attribute|has_cpp_attribute)__?\b|\b_MSC_VER\b|\b__int128\b|\b__restrict\b')


def check_portability(files, src_files, problems):
    named = [(f"include/bitrep/{path}", read(path)) for path in files if path != PORTABILITY_HEADER]
    named += [(f"src/{path}", read_src(path)) for path in src_files]
    for name, text in named:
        for number, line in enumerate(code_only(text).split("\n"), start=1):
            found = COMPILER_SPECIFIC.search(line)
            if found:
                problems.append(f"{name}:{number}: {found.group(0).strip()} outside include/bitrep/"
                                f"{PORTABILITY_HEADER}")


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



def without_preprocessor(code):
    """code_only's text with every preprocessor line blanked (a macro's
    continuation lines too), and every #elif and #else branch: of each #if,
    only the first branch is read, so that its braces balance."""
    lines = code.split("\n")
    skipped = []  # per open #if: whether its current branch is skipped
    continued = False
    for index, line in enumerate(lines):
        directive = continued or line.lstrip().startswith("#")
        if directive and not continued:
            word = re.match(r'\s*#\s*(\w*)', line).group(1)
            if word.startswith("if"):
                skipped.append(False)
            elif word in ("elif", "else") and skipped:
                skipped[-1] = True
            elif word == "endif" and skipped:
                skipped.pop()
        continued = directive and line.rstrip().endswith("\\")
        if directive or any(skipped):
            lines[index] = ""
    return "\n".join(lines)


QUALIFIERS = r'(?:\s|\bconst\b|\bvolatile\b|\bnoexcept\b|\boverride\b|\bfinal\b|\bmutable\b|&)*'
ENDS_AS_FUNCTION = re.compile(r'\)' + QUALIFIERS + r'$')
TRAILING_CLAUSE = re.compile(r'\)[^;{}]*?(?:->|\brequires\b)[^;{}]*$')
CONSTRUCTOR = re.compile(r'\)\s*(?:noexcept\s*)?:(?!:)[^;]*[)}]\s*$')
LAMBDA = re.compile(r'(?:^|[=(,{])\s*\[[^\[\]]*\]\s*(?:mutable\s*)?$')
REQUIRES_EXPRESSION = re.compile(r'\brequires\s*(?:\([^()]*\))?\s*$')
ACCESS_LABEL = re.compile(r'\b(?:public|private|protected)\s*$')
NOT_A_NAME = {"decltype", "alignas", "alignof", "noexcept", "requires", "sizeof", "static_assert", "typeid",
              "__attribute__", "explicit", "void", "bool", "char", "int", "long", "short", "unsigned", "signed",
              "float", "double", "auto"}
OPERATOR = re.compile(r'((?:[A-Za-z_]\w*\s*::\s*)*operator\s*(?:\(\s*\)|\[\s*\]|[^\s(]+))\s*\(')
CALLED_NAME = re.compile(r'(~?[A-Za-z_]\w*(?:\s*::\s*~?[A-Za-z_]\w*)*)\s*(?:<[^(){};]*>)?\s*\(')


def blank(text, start, end):
    return text[:start] + re.sub(r"[^\n]", " ", text[start:end]) + text[end:]


def without_template_heads(text):
    """`template <...>` and `[[...]]` blanked, offsets kept."""
    for attribute in re.finditer(r'\[\[.*?\]\]', text, re.S):
        text = blank(text, attribute.start(), attribute.end())
    position = 0
    while True:
        head = re.compile(r'\btemplate\s*<').search(text, position)
        if not head:
            return text
        depth, index = 0, head.end() - 1
        while index < len(text):
            depth += {"<": 1, ">": -1}.get(text[index], 0)
            index += 1
            if depth == 0:
                break
        text = blank(text, head.start(), index)
        position = index


def function_name(declarator):
    """The name a function's declarator (what precedes its body) gives it,
    and its offset in the declarator."""
    text = without_template_heads(declarator)
    operator = OPERATOR.search(text)
    if operator:
        return re.sub(r'\s+', " ", operator.group(1)), operator.start(1)
    for called in CALLED_NAME.finditer(text):
        if called.group(1).split("::")[-1].strip() not in NOT_A_NAME:
            return re.sub(r'\s+', "", called.group(1)), called.start(1)
    variable = re.search(r'([A-Za-z_]\w*)\s*=\s*\[', text)
    if variable:
        return variable.group(1) + " (lambda)", variable.start(1)
    start = len(text) - len(text.lstrip())
    return "(lambda)", start


def opens_function(statement):
    if REQUIRES_EXPRESSION.search(statement):
        return False
    return bool(ENDS_AS_FUNCTION.search(statement) or TRAILING_CLAUSE.search(statement)
                or CONSTRUCTOR.search(statement) or LAMBDA.search(statement))


def functions_in(text):
    """Each function body at namespace or class scope (and each lambda in an
    initialiser there): (name, line of its name, line of its opening brace,
    line of its closing brace). Second: whether the braces balanced."""
    code = without_preprocessor(code_only(text))
    newlines = [index for index, char in enumerate(code) if char == "\n"]

    def line_at(offset):
        return bisect.bisect_left(newlines, offset) + 1

    found = []
    stack = []  # the braces open outside functions: "namespace", "class" or "init"
    start = 0  # where the statement at namespace or class scope starts
    function = None  # (name, its line, the body's line) of the function whose body is open
    depth = 0  # braces open in it
    for index, char in enumerate(code):
        if function is not None:
            if char == "{":
                depth += 1
            elif char == "}":
                depth -= 1
                if depth == 0:
                    found.append((*function, line_at(index)))
                    function = None
                    if not stack or stack[-1] != "init":
                        start = index + 1
            continue
        in_initialiser = bool(stack) and stack[-1] == "init"
        if char == "{":
            statement = code[start:index]
            if not in_initialiser and (NAMESPACE_OPENER.search(statement) or re.search(r'\bextern\s*$', statement)):
                stack.append("namespace")
                start = index + 1
            elif not in_initialiser and SCOPE_OPENER.search(statement):
                stack.append("class")
                start = index + 1
            elif opens_function(statement):
                name, offset = function_name(statement)
                function = (name, line_at(start + offset), line_at(index))
                depth = 1
            else:
                stack.append("init")
        elif char == "}":
            if stack and stack.pop() != "init":
                start = index + 1
        elif char == ";" and not in_initialiser:
            start = index + 1
        elif char == ":" and not in_initialiser and stack and stack[-1] == "class" \
                and ACCESS_LABEL.search(code[start:index]):
            start = index + 1
    return found, function is None and not stack


def excused(lines, line):
    """Whether clang-tidy's NOLINT excuses readability-function-size for a
    function whose name is on `line`: NOLINT on that line, or NOLINTNEXTLINE
    on the one before, bare or listing the check."""
    for number, marker in ((line, "NOLINT"), (line - 1, "NOLINTNEXTLINE")):
        if 1 <= number <= len(lines):
            found = re.search(r'\b' + marker + r'\b(\(([^)]*)\))?', lines[number - 1])
            if found and (found.group(1) is None or "readability-function-size" in found.group(2)
                          or "*" in found.group(2)):
                return True
    return False


def check_functions(files, src_files, problems, every):
    named = [(f"include/bitrep/{path}", read(path)) for path in files]
    named += [(f"src/{path}", read_src(path)) for path in src_files]
    for path, text in named:
        found, balanced = functions_in(text)
        if not balanced:
            problems.append(f"{path}: its braces do not balance as check_house reads them (rule 5)")
        lines = text.split("\n")
        for name, line, opening, closing in found:
            length = closing - opening
            if length <= MAX_FUNCTION_LINES:
                continue
            if not excused(lines, line):
                problems.append(f"{path}:{line}: function {name} is {length} lines")
            elif every:
                problems.append(f"{path}:{line}: function {name} is {length} lines (NOLINT excuses it)")


def main():
    parser = argparse.ArgumentParser(description="bitrep's house rules (see the top of this script).")
    parser.add_argument("--functions", action="store_true",
                        help=f"also report the functions over {MAX_FUNCTION_LINES} lines that NOLINT excuses (rule 5)")
    options = parser.parse_args()
    files = files_under(ROOT)
    src_files = files_under(SRC)
    problems = []
    check_length(files, src_files, problems)
    layer = check_layers(files, problems)
    check_src_layers(src_files, layer, problems)
    check_detail_in_signatures(files, problems)
    check_functions(files, src_files, problems, every=options.functions)
    check_portability(files, src_files, problems)
    print(f"check_house: {len(files)} headers, {len(src_files)} files in src/, layers (lowest first): "
          + " < ".join(name for name, _ in LAYERS))
    for problem in problems:
        print(problem)
    if problems:
        print(f"check_house: {len(problems)} problem(s)")
        return 1
    checked = f"no file over {MAX_LINES} lines"
    checked += f", no function over {MAX_FUNCTION_LINES} lines"
    if not options.functions:
        checked += " (those NOLINT excuses aside: --functions)"
    print(f"check_house: {checked}, no include against the layers in include/ or src/, no detail:: in a "
          "public declaration, no compiler-specific construct outside " + PORTABILITY_HEADER)
    return 0


if __name__ == "__main__":
    sys.exit(main())
