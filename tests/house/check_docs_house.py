#!/usr/bin/env python3
"""docs/house.md's house matches the tree. In the block between <!-- house --> and <!-- /house -->:
every entry names a folder or file that exists (name.* = a .h/.cpp pair); every folder under core/
and app/ has an entry; and in core/, core/sandbox/ and app/ (the rooms this check holds strictly)
every source file has its line. Fix with: python3 scripts/house_tree.py"""
import os
import re
import subprocess
import sys

root = sys.argv[1]
PAGE = "docs/house.md"
page = open(os.path.join(root, PAGE), encoding="utf-8").read()
m = re.search(r"<!-- house -->\n```\n(.*?)```\n<!-- /house -->", page, re.S)
if not m:
    sys.exit(PAGE + ": no <!-- house --> block (python3 scripts/house_tree.py writes it between the markers)")
listed = set()
stack = []
for line in m.group(1).splitlines():
    if not line.strip():
        continue
    indent = (len(line) - len(line.lstrip(" "))) // 2
    name = line.strip().split()[0]
    stack = stack[:indent]
    path = "/".join([s.rstrip("/") for s in stack] + [name.rstrip("/")])
    if name.endswith("/"):
        stack.append(name)
    listed.add(path)
problems = []
for p in sorted(listed):
    full = os.path.join(root, p)
    if p.endswith(".*"):
        stem = full[:-2]
        if not (os.path.exists(stem + ".h") or os.path.exists(stem + ".cpp")):
            problems.append("listed but missing: " + p)
    elif not os.path.exists(full):
        problems.append("listed but missing: " + p)
files = subprocess.run(["git", "ls-files", "core", "app", "shaders"], cwd=root, capture_output=True, text=True).stdout.split()
files = [f for f in files if os.path.exists(os.path.join(root, f))]
folders = {os.path.dirname(f) for f in files}
for d in sorted(folders):
    if d not in listed:
        problems.append("folder without a line: " + d + "/")
strict = lambda f: os.path.dirname(f) in ("core", "core/sandbox") or f.startswith("app/")
for f in files:
    if not strict(f) or not f.endswith((".h", ".cpp")):
        continue
    stem = os.path.splitext(f)[0]
    if f not in listed and stem + ".*" not in listed:
        problems.append("file without a line: " + f)
if problems:
    print(PAGE + "'s house does not match the tree (python3 scripts/house_tree.py rewrites it):")
    print("\n".join("  " + p for p in problems))
    sys.exit(1)
print(PAGE + ": %d entries, all present; %d source files covered" % (len(listed), len(files)))
