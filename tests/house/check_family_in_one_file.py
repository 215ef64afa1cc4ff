#!/usr/bin/env python3
"""A family in one file (core/model/arch/<family>.cpp): no code outside arch/ asks which family a model is, the
supported list is written nowhere else, docs/models.md names every model type the CLI's help lists (the help reads
the list from arch/family.h), and a "supported: ..." list in docs/ is that list, whole.

The family and model_type names come from the arch files themselves (each Family's `f.name` and `f.model_types`),
so a new family is checked as soon as it has its file.

usage: check_family_in_one_file.py SOURCE_DIR ATTNVIZ_CLI [TREE]
  TREE (default SOURCE_DIR): the tree whose core/ and app/ are scanned; tests/house/bad_family is one that breaks
  the rules (house.family_check_catches_a_new_family)."""
import pathlib
import re
import subprocess
import sys

# Tokenizer kinds share names with families ("gpt2" byte-level BPE, "llama" SentencePiece) but are not families.
SKIP = ("core/model/arch/", "core/tokenize/")


def family_names(root):
    """Every family name and model_type the arch files declare, longest first (so gemma3_text wins over gemma3)."""
    names = set()
    for path in sorted((root / "core/model/arch").glob("*.cpp")):
        text = path.read_text(encoding="utf-8")
        names.update(re.findall(r"\bf\.name\s*=\s*\"([^\"]+)\"", text))
        for listed in re.findall(r"\bf\.model_types\s*=\s*\{([^}]*)\}", text):
            names.update(re.findall(r"\"([^\"]+)\"", listed))
    return sorted(names, key=lambda n: (-len(n), n))


def rules(names):
    one = "(" + "|".join(re.escape(n) for n in names) + ")"
    return [
        (re.compile(r"model_type\s*[!=]=|[!=]=\s*\w*\.?model_type\b"), "compares model_type"),
        (re.compile(r"\bfamily\s*[!=]=\s*\""), "compares the family's name"),
        (re.compile(r"[!=]=\s*\"" + one + r"\""), "compares with a family's name"),
        (re.compile(r"\"" + one + r"\"\s*[!=]="), "compares with a family's name"),
        (re.compile(r"Arch::k"), "switches on an architecture enum"),
        # Two names in a row ("qwen3, olmo2" in a message, {"gpt2", "bert"} in a table): the list written out.
        (re.compile(r"(?<![\w-])\"?" + one + r"\"?,\s*\"?" + one + r"(?![\w-])"), "writes the supported list out"),
    ]


def violations(tree, names):
    found = []
    checks = rules(names)
    for folder in ("core", "app"):
        for path in sorted((tree / folder).rglob("*")):
            rel = path.relative_to(tree).as_posix()
            if path.suffix not in (".cpp", ".h") or rel.startswith(SKIP):
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                code = line.split("//", 1)[0]
                for rule, what in checks:
                    if rule.search(code):
                        found.append(f"{rel}:{number}: {what}: {line.strip()}")
    return found


def docs_problems(root, listed):
    found = []
    docs = (root / "docs/models.md").read_text(encoding="utf-8")
    for model_type in listed:
        if f"`{model_type}`" not in docs:
            found.append(f"docs/models.md does not name `{model_type}` (attnviz-cli model --help lists it)")
    # An example message quoting the list quotes all of it.
    for path in sorted((root / "docs").glob("*.md")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for quoted in re.findall(r"\(supported: ([^)]*)\)", line):
                types = [t.strip() for t in quoted.split(",")]
                if any(t in listed for t in types) and types != listed:
                    found.append(f"docs/{path.name}:{number}: quotes the supported list as \"{quoted}\", not as "
                                 f"attnviz-cli model --help has it: {', '.join(listed)}")
    return found


def main():
    root, cli = pathlib.Path(sys.argv[1]), sys.argv[2]
    tree = pathlib.Path(sys.argv[3]) if len(sys.argv) > 3 else root
    names = family_names(root)
    found = [] if names else [f"{root}/core/model/arch: no family names found (f.name = \"...\")"]
    found += violations(tree, names)
    help_text = subprocess.run([cli, "model", "--help"], capture_output=True, text=True, check=True).stdout
    listed = re.search(r"the model folder \(([^)]*)\)", help_text)
    if not listed:
        found.append("attnviz-cli model --help names no model folder types")
    else:
        types = [t.strip() for t in listed.group(1).split(",")]
        missing = [t for t in types if t not in names]
        if missing:
            found.append(f"attnviz-cli model --help lists {', '.join(missing)}, which no arch file declares")
        found += docs_problems(root, types)
    for line in found:
        print(line)
    print(f"{len(found)} problem(s)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
