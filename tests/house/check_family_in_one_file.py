#!/usr/bin/env python3
"""A family in one file (core/model/arch/<family>.cpp): no code outside arch/ asks which family a model is, the
supported list is written nowhere else, and docs/models.md names every model type the CLI's help lists (the help
reads the list from arch/family.h).

usage: check_family_in_one_file.py SOURCE_DIR ATTNVIZ_CLI"""
import pathlib
import re
import subprocess
import sys

NAMES = r"(gpt2|bert|llama|qwen2|mistral)"
RULES = [
    (re.compile(r"model_type\s*[!=]=|[!=]=\s*\w*\.?model_type\b"), "compares model_type"),
    (re.compile(r"\bfamily\s*[!=]=\s*\""), "compares the family's name"),
    (re.compile(r"[!=]=\s*\"" + NAMES + r"\""), "compares with a family's name"),
    (re.compile(r"Arch::k"), "switches on an architecture enum"),
    (re.compile(r"gpt2, bert|llama, qwen2"), "writes the supported list out"),
]
# Tokenizer kinds share names with families ("gpt2" byte-level BPE, "llama" SentencePiece) but are not families.
SKIP = ("core/model/arch/", "core/tokenize/")


def violations(root):
    found = []
    for folder in ("core", "app"):
        for path in sorted((root / folder).rglob("*")):
            rel = path.relative_to(root).as_posix()
            if path.suffix not in (".cpp", ".h") or rel.startswith(SKIP):
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                code = line.split("//", 1)[0]
                for rule, what in RULES:
                    if rule.search(code):
                        found.append(f"{rel}:{number}: {what}: {line.strip()}")
    return found


def main():
    root, cli = pathlib.Path(sys.argv[1]), sys.argv[2]
    found = violations(root)
    help_text = subprocess.run([cli, "model", "--help"], capture_output=True, text=True, check=True).stdout
    listed = re.search(r"the model folder \(([^)]*)\)", help_text)
    if not listed:
        found.append("attnviz-cli model --help names no model folder types")
    else:
        docs = (root / "docs/models.md").read_text(encoding="utf-8")
        for model_type in [t.strip() for t in listed.group(1).split(",")]:
            if f"`{model_type}`" not in docs:
                found.append(f"docs/models.md does not name `{model_type}` (attnviz-cli model --help lists it)")
    for line in found:
        print(line)
    print(f"{len(found)} problem(s)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
