#!/usr/bin/env python3
"""Checks that the tree's references to the docs resolve (python3 stdlib only).

1. Every docs/<page>.md path named in any tracked file exists; where the
   reference names a section (docs/<page>.md, section 6.4) or a heading
   (docs/<page>.md, "Heading", possibly several in a row, the later ones a
   heading or a bold paragraph lead inside it), that section is in the file.
   Comment markers at line starts are ignored, so a reference may wrap.
2. Every relative markdown link in docs/ and README.md resolves, anchors
   (`#...`, GitHub's slugs) included.

Run from anywhere: python3 tools/check_doc_links.py. Exit status 1 on a problem.
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
BOLD_LEAD = re.compile(r"\*\*([^*]+?)\.?\*\*")
DOC_REF = re.compile(r"(?<![\w/.-])docs/[\w/.-]+?\.md")
AFTER = re.compile(r'\A,?\s*(?:sections?\s+(\d+(?:\.\d+)*)|((?:,?\s*"[^"\n]+")+))')
QUOTED = re.compile(r'"([^"\n]+)"')
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
COMMENT = re.compile(r"\n[ \t]*(?:///|//|#(?![#!])|\*)?[ \t]*")


def tracked_files():
    try:
        out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
        return [f for f in out.splitlines() if os.path.isfile(os.path.join(ROOT, f))]
    except (OSError, subprocess.CalledProcessError):  # not a git checkout
        files = []
        for directory, dirs, names in os.walk(ROOT):
            dirs[:] = [d for d in dirs if d != ".git" and not d.startswith("build")]
            files += [os.path.relpath(os.path.join(directory, name), ROOT) for name in names]
        return sorted(files)


def read(path):
    try:
        with open(os.path.join(ROOT, path), encoding="utf-8") as f:
            return f.read()
    except (UnicodeDecodeError, OSError):
        return None


def slug(text):
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


_headings = {}


def headings(path):
    """The file's headings (text), their anchors, and each heading's bold leads."""
    if path not in _headings:
        texts, anchors, leads, seen, fence = [], set(), {}, {}, False
        current = None
        for line in (read(path) or "").splitlines():
            if line.lstrip().startswith("```"):
                fence = not fence
                continue
            if fence:
                continue
            m = HEADING.match(line)
            if m:
                text = m.group(2).replace("`", "")
                texts.append(text)
                current = text
                base = slug(m.group(2))
                n = seen.get(base, 0)
                seen[base] = n + 1
                anchors.add(base if n == 0 else f"{base}-{n}")
                continue
            for b in BOLD_LEAD.findall(line):
                leads.setdefault(current, set()).add(b.strip().rstrip(".").replace("`", ""))
        _headings[path] = (texts, anchors, leads)
    return _headings[path]


def has_section(path, number):
    texts, _, _ = headings(path)
    return any(re.match(re.escape(number) + r"[.\s]", t) for t in texts)


def has_quoted(path, names):
    texts, _, leads = headings(path)
    first = names[0]
    match = [t for t in texts if first in (t, t.split(" (")[0], re.sub(r"^[\d.]+\s+", "", t))]
    if not match:
        return False
    return all(any(n in leads.get(t, ()) for t in match) or n in texts for n in names[1:])


def line_of(text, index):
    return text.count("\n", 0, index) + 1


def check_references(files, problems):
    count = 0
    for path in files:
        text = read(path)
        if text is None or "docs/" not in text:
            continue
        for m in DOC_REF.finditer(text):
            ref = m.group(0)
            count += 1
            where = f"{path}:{line_of(text, m.start())}"
            if not os.path.isfile(os.path.join(ROOT, ref)):
                problems.append(f"{where}: {ref} does not exist")
                continue
            rest = COMMENT.sub(" ", text[m.end():m.end() + 400])
            after = AFTER.match(rest)
            if not after:
                continue
            if after.group(1) and not has_section(ref, after.group(1)):
                problems.append(f"{where}: {ref} has no section {after.group(1)}")
            if after.group(2):
                names = [" ".join(q.split()) for q in QUOTED.findall(after.group(2))]
                if not has_quoted(ref, names):
                    problems.append(f"{where}: {ref} has no " + ", ".join(f'"{n}"' for n in names))
    return count


def check_links(files, problems):
    count = 0
    for path in files:
        if not (path.endswith(".md") and (path.startswith("docs/") or path == "README.md")):
            continue
        text = read(path) or ""
        text = re.sub(r"```.*?```", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
        text = re.sub(r"`[^`\n]*`", "``", text)
        for m in LINK.finditer(text):
            target = m.group(1)
            if re.match(r"^[a-z]+:", target):
                continue
            count += 1
            where = f"{path}:{line_of(text, m.start())}"
            file_part, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
            if not os.path.exists(os.path.join(ROOT, dest)):
                problems.append(f"{where}: link {target}: {dest} does not exist")
            elif anchor and dest.endswith(".md") and anchor not in headings(dest)[1]:
                problems.append(f"{where}: link {target}: no heading #{anchor} in {dest}")
    return count


def main():
    files = tracked_files()
    problems = []
    refs = check_references(files, problems)
    links = check_links(files, problems)
    print(f"check_doc_links: {refs} docs/ references, {links} relative links in docs/ and README.md")
    for p in problems:
        print(p)
    if problems:
        print(f"check_doc_links: {len(problems)} problem(s)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
