#!/usr/bin/env python3
"""Lists the example commands and quoted messages of the documentation.

For docs/tapd.8 and docs/tapctl.1 (mdoc): the "$ " lines of literal
blocks (a trailing \\e goes on with the next line), the .Dl lines that run
tapd, tapctl or curl, and, as messages, every .Dl or literal line that
starts with "tapd: " or "tapctl: ".  For README.md: every line of the sh
code blocks (a trailing backslash goes on; a "# ..." comment is dropped)
and, as messages, lines that start with "tapd: " or "tapctl: " anywhere.
Prints one line per item: FILE:LINE, a tab, "cmd" or "msg", a tab, the
text with the roff escapes resolved.
"""
import re
import sys

COMMANDS = ("tapd ", "tapctl ", "curl ")


def unroff(s):
    for a, b in (("\\(dq", '"'), ("\\-", "-"), ("\\&", ""), ("\\e", "\\")):
        s = s.replace(a, b)
    return s


def is_msg(s):
    return s.startswith("tapd: ") or s.startswith("tapctl: ")


def mdoc(path, out):
    lines = open(path, encoding="utf-8").read().split("\n")
    literal = False
    i = 0
    while i < len(lines):
        line, no = lines[i], i + 1
        i += 1
        if line.startswith(".Bd -literal"):
            literal = True
            continue
        if line.startswith(".Ed"):
            literal = False
            continue
        if line.startswith(".Dl "):
            text = unroff(line[4:])
            if is_msg(text):
                out.append((path, no, "msg", text))
            elif text.startswith(COMMANDS):
                out.append((path, no, "cmd", text))
            continue
        if not literal:
            continue
        if is_msg(unroff(line)):
            out.append((path, no, "msg", unroff(line)))
        if not line.startswith("$ "):
            continue
        cmd = line[2:]
        while cmd.endswith("\\e") and i < len(lines):
            cmd = cmd[:-2] + " " + lines[i].strip()
            i += 1
        out.append((path, no, "cmd", unroff(cmd)))


def readme(path, out):
    lines = open(path, encoding="utf-8").read().split("\n")
    block = False
    i = 0
    while i < len(lines):
        line, no = lines[i], i + 1
        i += 1
        if line.startswith("```"):
            block = line.strip() == "```sh" and not block
            continue
        if is_msg(line.strip()):
            out.append((path, no, "msg", line.strip()))
            continue
        if not block or not line.strip():
            continue
        cmd = line
        while cmd.endswith("\\") and i < len(lines):
            cmd = cmd[:-1] + " " + lines[i].strip()
            i += 1
        # A comment after two spaces or more; quotes hold no "  #".
        cmd = re.sub(r"\s{2,}#.*$", "", cmd).strip()
        if cmd.startswith("#"):
            continue
        # A loop or a condition is one command, to its done or fi.
        depth = compound_depth(cmd)
        while depth > 0 and i < len(lines) and not lines[i].startswith("```"):
            part = re.sub(r"\s{2,}#.*$", "", lines[i]).strip()
            i += 1
            if not part:
                continue
            depth += compound_depth(part)
            sep = " " if re.search(r"(\bdo|\bthen|\belse|[{|&;])$", cmd) else "; "
            cmd = cmd + sep + part
        out.append((path, no, "cmd", cmd))


OPENERS = ("for", "while", "until", "if", "case")
CLOSERS = ("done", "fi", "esac")


def compound_depth(line):
    """How many compound commands a line opens less how many it closes."""
    words = re.findall(r"[A-Za-z]+|;", line)
    depth = 0
    start = True
    for w in words:
        if w == ";":
            start = True
            continue
        if start and w in OPENERS:
            depth += 1
        elif start and w in CLOSERS:
            depth -= 1
        start = w in ("do", "then", "else")
    return depth


def main():
    out = []
    for path in sys.argv[1:]:
        (readme if path.endswith(".md") else mdoc)(path, out)
    for path, no, kind, text in out:
        print("%s:%d\t%s\t%s" % (path, no, kind, text))


main()
