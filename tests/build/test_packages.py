#!/usr/bin/env python3
"""Every program that the README's two commands run comes from somewhere a
fresh Debian 12 has it: a package of priority required (what debootstrap's
minbase installs) or one that scripts/setup.sh or scripts/test-setup.sh
install, directly or as a dependency (issue 28: tests/metrics called curl,
which neither installed, so a fresh machine failed six checks).

test_packages.py SOURCE_ROOT

The programs: the first word of every command (a name, or a path in a bin
folder such as /usr/bin/time) in the scripts the two commands run and in tests/ (shell: after a line start, |, ;, &&, ||, $(,
backquote, then, do, else, !, exec, nice, timeout; heredocs, comments and
quoted text left out), the literal first element of a subprocess argument
list and shutil.which("...") in Python, find_program('...') in meson.build.
Each is resolved on this machine (PATH of a root shell) and its package
found with dpkg -S; the packages' dependencies come from dpkg's status file.
A program that is not installed here, or not from a Debian package, cannot
be judged and is listed as a note.
"""
import glob
import os
import re
import shutil
import subprocess
import sys

root = os.path.abspath(sys.argv[1])
if not os.path.isfile("/var/lib/dpkg/status") or not shutil.which("dpkg-query"):
    print("SKIP: not a Debian system (no dpkg): the packages cannot be looked up")
    sys.exit(77)
PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
# what the README's commands run besides tests/
SCRIPTS = ["main.sh", "test.sh", "build.sh", "setup.sh", "test-setup.sh", "install.sh", "cuda_root.sh"]
SHELL_WORDS = {
    "if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac", "in", "function",
    "select", "time", "local", "export", "declare", "readonly", "return", "exit", "set", "unset", "shift", "trap",
    "wait", "read", "echo", "printf", "cd", "pwd", "test", "true", "false", "eval", "source", "command", "type",
    "kill", "break", "continue", "let", "getopts", "umask", "ulimit", "exec", "nice", "timeout", "builtin", "hash",
    "jobs", "disown", "mapfile", "readarray", "pushd", "popd", "shopt", "alias", "bg", "fg", "caller",
}
SEP = re.compile(r"\|\||&&|[|;&`()]|\$\(|\{|\}|\b(?:then|do|else|exec|!)\b")


def shell_code(text):
    """text with quoted strings, comments, heredoc bodies and array literals
    blanked (newlines kept, so line numbers stay)."""
    out, i, n = [], 0, len(text)
    heredocs = []
    while i < n:
        c = text[i]
        if c == "\n":
            out.append(c)
            i += 1
            while heredocs:  # the bodies of the heredocs opened on the line just ended
                tag = heredocs.pop(0)
                while i < n:
                    j = text.find("\n", i)
                    j = n if j < 0 else j
                    line = text[i:j]
                    out.append("\n")
                    i = j + 1
                    if line.strip() == tag:
                        break
            continue
        if c == "\\":
            out.append("  ")
            i += 2
            continue
        if c in "'\"":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if c == '"' and text[j] == "\\" else 1
            out.append(c + "".join(ch for ch in text[i + 1:j] if ch == "\n") + c)
            i = j + 1
            continue
        if c == "#" and (i == 0 or text[i - 1] in " \t\n;"):
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        m = re.match(r"<<-?\s*['\"]?([A-Za-z_]+)['\"]?", text[i:])
        if m:
            heredocs.append(m.group(1))
            out.append(" " * len(m.group(0)))
            i += len(m.group(0))
            continue
        m = re.match(r"[A-Za-z_][A-Za-z0-9_]*\+?=\(", text[i:])
        if m and (i == 0 or text[i - 1] in " \t\n;"):
            j = i + len(m.group(0))
            depth = 1
            while j < n and depth:
                depth += {"(": 1, ")": -1}.get(text[j], 0)
                j += 1
            out.append("".join(ch if ch == "\n" else " " for ch in text[i:j]))
            i = j
            continue
        out.append(c)
        i += 1
    return "".join(out)


def shell_commands(path):
    """(word, line number) of each command's first word."""
    out = []
    for no, line in enumerate(shell_code(open(path, errors="replace").read()).split("\n"), 1):
        for seg in SEP.split(line):
            words = seg.split()
            while words and (re.match(r"^[A-Za-z_][A-Za-z0-9_]*(\[[^]]*\])?\+?=", words[0]) or
                             words[0] in ("nice", "timeout", "exec", "command", "time", "sudo", "-n", "!") or
                             re.fullmatch(r"-?[0-9]+[smh]?", words[0])):
                words = words[1:]
            # a program by name, or by its path in a bin folder (/usr/bin/time, GNU time, is not the
            # shell's time keyword)
            if words and (re.fullmatch(r"[a-z][a-z0-9_.+-]*", words[0]) and words[0] not in SHELL_WORDS or
                          re.fullmatch(r"/(?:usr/)?s?bin/[a-z][a-z0-9_.+-]*", words[0])):
                out.append((words[0], no))
    return out


def python_commands(path):
    out = []
    for no, line in enumerate(open(path, errors="replace"), 1):
        for m in re.finditer(r"(?:subprocess\.\w+|Popen|run)\(\s*\[\s*\"([a-z][a-z0-9_.+-]*)\"", line):
            out.append((m.group(1), no))
        for m in re.finditer(r"shutil\.which\(\s*\"([a-z][a-z0-9_.+-]*)\"", line):
            out.append((m.group(1), no))
    return out


def meson_programs(path):
    return [(m.group(1), no) for no, line in enumerate(open(path), 1)
            for m in re.finditer(r"find_program\('([a-z][a-z0-9_.+-]*)'", line)]


def defined_functions(path):
    return set(re.findall(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*\(\)\s*\{", open(path, errors="replace").read(), re.M))


uses = {}  # program -> first "file:line"
files = [os.path.join(root, "scripts", s) for s in SCRIPTS]
files += sorted(glob.glob(os.path.join(root, "tests", "**", "*.sh"), recursive=True))
for f in files:
    funcs = defined_functions(f)
    for word, no in shell_commands(f):
        if word not in funcs:
            uses.setdefault(word, f"{os.path.relpath(f, root)}:{no}")
for f in sorted(glob.glob(os.path.join(root, "tests", "**", "*.py"), recursive=True)) + \
        [os.path.join(root, "scripts", "test_summary.py")]:
    for word, no in python_commands(f):
        uses.setdefault(word, f"{os.path.relpath(f, root)}:{no}")
for f in sorted(glob.glob(os.path.join(root, "**", "meson.build"), recursive=True)):
    if "/build" in os.path.relpath(f, root).split(os.sep)[0]:
        continue
    for word, no in meson_programs(f):
        uses.setdefault(word, f"{os.path.relpath(f, root)}:{no}")

# ---- dpkg: installed packages, their priority, dependencies and provides -------
status = {}
for block in open("/var/lib/dpkg/status", errors="replace").read().split("\n\n"):
    fields = {}
    key = None
    for l in block.split("\n"):
        if l[:1] in (" ", "\t") and key:
            fields[key] += " " + l.strip()
        elif ":" in l:
            key, _, v = l.partition(":")
            fields[key] = v.strip()
    if "install ok installed" in fields.get("Status", ""):
        status[fields["Package"]] = fields
provides = {}
for name, f in status.items():
    for p in f.get("Provides", "").split(","):
        p = p.split("(")[0].strip()
        if p:
            provides.setdefault(p, set()).add(name)


def deps(name):
    f = status.get(name, {})
    got = set()
    for field in ("Depends", "Pre-Depends"):
        for clause in f.get(field, "").split(","):
            for alt in clause.split("|"):
                a = alt.split("(")[0].split(":")[0].strip()
                if not a:
                    continue
                if a in status:
                    got.add(a)
                got |= provides.get(a, set())
    return got


def closure(seeds):
    seen, todo = set(), list(seeds)
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        todo.extend(deps(p) - seen)
    return seen


def listed(script, pattern):
    text = open(os.path.join(root, "scripts", script)).read()
    return set(pattern(text))


setup = listed("setup.sh", lambda t: [w for l in re.search(r"packages=\((.*?)\n\)", t, re.S).group(1).split("\n")
                                       for w in l.split("#")[0].split()])
test_setup = listed("test-setup.sh", lambda t: re.findall(r"missing\+=\(([a-z0-9.+-]+)\)", t))
base = {n for n, f in status.items() if f.get("Priority") == "required" or f.get("Essential") == "yes"} | {"apt"}
have = closure(base | setup | test_setup)


def packages_of(paths):
    """{path: package} for the paths dpkg knows (usr-merged aliases tried)."""
    cands = {}
    for path in paths:
        for c in {path, os.path.realpath(path)}:
            cands[c] = path
            for x, y in (("/usr/bin/", "/bin/"), ("/usr/sbin/", "/sbin/")):
                if c.startswith(x):
                    cands[y + c[len(x):]] = path
                elif c.startswith(y):
                    cands[x + c[len(y):]] = path
    p = subprocess.run(["dpkg-query", "-S", *sorted(cands)], capture_output=True, text=True)
    got = {}
    for line in p.stdout.splitlines():
        pkg, _, f = line.partition(": ")
        if f in cands:
            got.setdefault(cands[f], pkg.split(",")[0].split(":")[0].strip())
    return got


fails, notes = [], []
where = {w: shutil.which(w, path=PATH) for w in uses}
pkgs = packages_of([p for p in where.values() if p])
for word in sorted(uses):
    path = where[word]
    if not path:
        notes.append(f"{word} ({uses[word]}): not installed here")
        continue
    pkg = pkgs.get(path)
    if not pkg:
        notes.append(f"{word} ({uses[word]}): {path} is not from a Debian package")
        continue
    if pkg not in have:
        fails.append(f"{word} ({uses[word]}) comes from the Debian package {pkg}, which neither scripts/setup.sh "
                     "nor scripts/test-setup.sh installs (nor a dependency of theirs, nor a fresh Debian 12)")
for n in notes:
    print("note:", n)
for f in fails:
    print("FAIL:", f)
checked = len(uses) - len(notes)
if fails:
    sys.exit(1)
print(f"packages: the {checked} programs found ({len(uses)} names) come from a fresh Debian 12 or the setup scripts")
