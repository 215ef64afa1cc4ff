#!/usr/bin/python3
"""The catalogue of bad inputs: each row of cases.tsv is one hostile input (a command line, a settings file,
a sentence, weights or model file) with the exit code and the message it must get, and what must (not) be left.

Columns (tab separated; '#' lines are comments):
  name      a short name (unique)
  setup     ';'-separated actions run in a fresh folder (the case's working directory):
              write NAME TEXT          a file with TEXT (escapes: \\n \\t \\xNN \\\\; C\\<N>: the byte C N times)
              words NAME N             a sentence file with one line of N words
              sparse NAME BYTES        a file of BYTES bytes (a hole: takes no disk)
              fifo NAME | mkdir NAME | link NAME TARGET (replaces NAME) | chmod NAME OCTAL
              npy NAME DESCR SHAPE DATA  an .npy with header {'descr': DESCR, 'fortran_order': False,
                                       'shape': SHAPE}; DATA: zeros (the bytes SHAPE needs), none, short,
                                       f8huge (1e300 then zeros), nan (NaN then zeros), fortran (zeros, and
                                       fortran_order True)
              weights DIR              wq/wk/wv/wo.npy of zeros for --d-model 4 --heads 1 --dk 4
              model DIR FIXTURE        a copy of tests/fixtures/models_e2e/FIXTURE
              gguf NAME FIXTURE [EDIT]  a copy of tests/fixtures/gguf/FIXTURE; EDIT: count KEY N (the array
                                       KEY's element count set to N) | type TENSOR ID (TENSOR's ggml type id
                                       set to ID); the header's fields: patch (they start the file)
              patch NAME TEXT          overwrite NAME's start with TEXT | truncate NAME BYTES | remove NAME
              repeat NAME PREFIX CHAR N  a one-line file: PREFIX (escapes as above) then CHAR N times
              nest NAME PREFIX DEPTH SUFFIX  PREFIX, then '[' DEPTH times and ']' DEPTH times, then SUFFIX
              jsonset NAME KEY VALUE   set KEY of the JSON object in NAME to VALUE (JSON text; qN: a string
                                       of N 'q's)
              tensor NAME TENSOR VALUE every element of TENSOR (F32 or F16) of the .safetensors NAME set to
                                       VALUE (a float: nan, inf, 3e38)
              safetensors NAME BYTES HEADER  a .safetensors file: HEADER (escapes as above) padded to 8
                                       bytes, then BYTES zero bytes of data
              index NAME N             a shard index of N tensors, each in a shard of its own (sN.safetensors)
              nestjson NAME KEY N OPEN INNER CLOSE  the JSON file NAME's top-level KEY becomes the JSON text
                                       OPEN N times, INNER, CLOSE N times (escapes as above; no spaces)
              jsonlist NAME KEY N ITEM  NAME's top-level KEY becomes [ITEM, ...] N times, {n} in ITEM the index
  command   `cli ARGS...` runs attnviz-cli; `settings FILE` runs the settings probe (the app's load and
            exit-save of settings.txt, without GL); `app ARGS...` runs the real attnviz under xvfb-run with
            XDG_CONFIG_HOME set to the case's folder (its settings are attnviz/settings.txt there; skipped
            without --app or xvfb-run). Arguments are split like a shell's, then unescaped as above.
  exit      the expected exit code
  message   a regular expression the program's stderr must match (re.search)
  checks    ';'-separated: same (no file appears, none vanishes, none changes: the default for cli rows),
            unchanged NAME, exists NAME, absent NAME, folder NAME, link NAME, mode NAME OCTAL,
            contains NAME TEXT, lacks NAME TEXT
Always checked: no temporary file (.~*) is left anywhere, and the program ends within 60 s (app rows: 180 s).
cli and settings rows run under an address-space limit of 4 GiB (RLIMIT_AS): an input that makes the program
allocate past it fails the case (an abort, or a message from the program's own memory budget). app rows are
exempt: under xvfb the GL driver (llvmpipe) maps gigabytes of address space it never touches.
"""
import argparse
import json
import os
import re
import shlex
import shutil
import stat
import struct
import subprocess
import sys
import tempfile


def unescape(text):
    out = bytearray()
    i = 0
    raw = text.encode("utf-8")
    while i < len(raw):
        c = raw[i:i + 1]
        if c == b"\\" and i + 1 < len(raw):
            n = raw[i + 1:i + 2]
            if n == b"x":
                out += bytes([int(raw[i + 2:i + 4], 16)])
                i += 4
                continue
            if n == b"<" and out:  # C\<N>: the byte before it N times in all (a long argument in a short row)
                end = raw.index(b">", i)
                out += out[-1:] * (int(raw[i + 2:end]) - 1)
                i = end + 1
                continue
            out += {b"n": b"\n", b"t": b"\t", b"\\": b"\\", b"s": b" "}.get(n, b"\\" + n)
            i += 2
            continue
        out += c
        i += 1
    return bytes(out)


def npy_bytes(descr, shape, data):
    fortran = "True" if data == "fortran" else "False"
    header = "{'descr': %s, 'fortran_order': %s, 'shape': %s, }" % (descr, fortran, shape)
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    out = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin-1")
    if data == "none":
        return out
    count = 1
    for d in re.findall(r"\d+", shape) if shape.startswith("(") else [shape]:
        count *= int(d)
    elem = 8 if "f8" in descr else 4
    body = bytearray(count * elem)
    if data == "short":
        body = body[:-elem]
    elif data in ("f8huge", "nan"):
        body[0:8] = struct.pack("<d", 1e300 if data == "f8huge" else float("nan"))
    return out + bytes(body)


def set_tensor(path, name, value):
    with open(path, "rb") as f:
        data = bytearray(f.read())
    n = struct.unpack("<Q", data[:8])[0]
    entry = json.loads(data[8:8 + n])[name]
    begin, end = (8 + n + o for o in entry["data_offsets"])
    fmt, size = {"F32": ("<f", 4), "F16": ("<e", 2)}[entry["dtype"]]
    try:
        one = struct.pack(fmt, value)
    except OverflowError:  # beyond F16's range: its +Inf
        one = struct.pack("<H", 0x7C00)
    data[begin:end] = one * ((end - begin) // size)
    with open(path, "wb") as f:
        f.write(data)


# Every cli and settings row runs under this address-space limit (app rows: see the docstring).
ADDRESS_SPACE_LIMIT = 4 << 30


def limit_address_space():
    import resource
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE_LIMIT, ADDRESS_SPACE_LIMIT))
def gguf_offsets(data):
    """The offsets in a GGUF file's bytes of each array's count ({key: offset}) and each tensor's type field
    ({name: offset})."""
    pos = 24
    counts, types = {}, {}
    sizes = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}

    def string():
        nonlocal pos
        n = struct.unpack_from("<Q", data, pos)[0]
        pos += 8 + n
        return data[pos - n:pos].decode("utf-8")

    def skip(t):
        nonlocal pos
        if t == 8:
            string()
        else:
            pos += sizes[t]

    n_tensors, n_kv = struct.unpack_from("<QQ", data, 8)
    for _ in range(n_kv):
        key = string()
        t = struct.unpack_from("<I", data, pos)[0]
        pos += 4
        if t == 9:
            item, count = struct.unpack_from("<IQ", data, pos)
            counts[key] = pos + 4
            pos += 12
            for _ in range(count):
                skip(item)
        else:
            skip(t)
    for _ in range(n_tensors):
        name = string()
        dims = struct.unpack_from("<I", data, pos)[0]
        pos += 4 + 8 * dims
        types[name] = pos
        pos += 4 + 8
    return counts, types


def splice_json(path, key, text):
    """Sets the top-level `key` of the JSON file at `path` to the raw JSON `text` (which may nest deeper than
    Python's json module can)."""
    with open(path, "rb") as f:
        root = json.loads(f.read())
    root[key] = "@@splice@@"
    with open(path, "wb") as f:
        f.write(json.dumps(root).encode().replace(b'"@@splice@@"', text))


def setup(work, actions, source):
    for action in filter(None, (a.strip() for a in actions.split(";"))):
        verb, _, rest = action.partition(" ")
        if verb == "write":
            name, _, text = rest.partition(" ")
            with open(os.path.join(work, name), "wb") as f:
                f.write(unescape(text))
            continue
        args = rest.split()
        path = os.path.join(work, args[0]) if args else work
        if verb == "words":
            with open(path, "w") as f:
                f.write(" ".join("w%d" % i for i in range(int(args[1]))) + "\n")
        elif verb == "sparse":
            with open(path, "wb") as f:
                f.truncate(int(args[1]))
        elif verb == "fifo":
            os.mkfifo(path)
        elif verb == "mkdir":
            os.makedirs(path)
        elif verb == "link":
            if os.path.lexists(path):
                os.remove(path)
            os.symlink(args[1], path)
        elif verb == "chmod":
            os.chmod(path, int(args[1], 8))
        elif verb == "npy":
            os.makedirs(os.path.dirname(path), exist_ok=True)
            descr, shape, data = args[1], " ".join(args[2:-1]), args[-1]
            with open(path, "wb") as f:
                f.write(npy_bytes(descr, shape, data))
        elif verb == "weights":
            os.makedirs(path, exist_ok=True)
            for name in ("wq", "wk", "wv", "wo"):
                with open(os.path.join(path, name + ".npy"), "wb") as f:
                    f.write(npy_bytes("'<f4'", "(4, 4)", "zeros"))
        elif verb == "model":
            shutil.copytree(os.path.join(source, "tests/fixtures/models_e2e", args[1]), path)
        elif verb == "gguf":
            shutil.copyfile(os.path.join(source, "tests/fixtures/gguf", args[1]), path)
            if len(args) > 2:
                with open(path, "r+b") as f:
                    data = f.read()
                    counts, types = gguf_offsets(data)
                    if args[2] == "count":
                        f.seek(counts[args[3]])
                        f.write(struct.pack("<Q", int(args[4])))
                    elif args[2] == "type":
                        f.seek(types[args[3]])
                        f.write(struct.pack("<I", int(args[4])))
                    else:
                        raise ValueError("unknown gguf edit " + args[2])
        elif verb == "patch":
            with open(path, "r+b") as f:
                f.write(unescape(rest.partition(" ")[2]))
        elif verb == "repeat":
            with open(path, "wb") as f:
                f.write(unescape(args[1]) + args[2].encode() * int(args[3]) + b"\n")
        elif verb == "nest":
            depth = int(args[2])
            with open(path, "wb") as f:
                f.write(unescape(args[1]) + b"[" * depth + b"]" * depth + unescape(args[3] if len(args) > 3 else ""))
        elif verb == "jsonset":
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
            value = args[2]
            doc[args[1]] = "q" * int(value[1:]) if re.fullmatch(r"q\d+", value) else json.loads(value)
            with open(path, "w", encoding="utf-8") as f:
                json.dump(doc, f)
        elif verb == "tensor":
            set_tensor(path, args[1], float(args[2]))
        elif verb == "safetensors":
            header = unescape(" ".join(args[2:]))
            header += b" " * (-len(header) % 8)
            with open(path, "wb") as f:
                f.write(struct.pack("<Q", len(header)) + header + bytes(int(args[1])))
        elif verb == "index":
            n = int(args[1])
            with open(path, "w") as f:
                f.write('{"weight_map": {' + ",".join('"t%d": "s%d.safetensors"' % (i, i) for i in range(n)) + "}}")
        elif verb == "nestjson":
            n = int(args[2])
            splice_json(path, args[1], unescape(args[3]) * n + unescape(args[4]) + unescape(args[5]) * n)
        elif verb == "jsonlist":
            item = unescape(args[3])
            splice_json(path, args[1], b"[" + b",".join(item.replace(b"{n}", b"%d" % i)
                                                        for i in range(int(args[2]))) + b"]")
        elif verb == "remove":
            os.remove(path)
        elif verb == "truncate":
            os.truncate(path, int(args[1]))
        else:
            raise ValueError("unknown setup action " + verb)


def snapshot(work):
    """Every path under work -> what it is (kind, mode, content or link target)."""
    out = {}
    for root, dirs, files in os.walk(work):
        for name in dirs + files:
            path = os.path.join(root, name)
            st = os.lstat(path)
            rel = os.path.relpath(path, work)
            if stat.S_ISLNK(st.st_mode):
                out[rel] = ("link", os.readlink(path))
            elif stat.S_ISREG(st.st_mode):
                with open(path, "rb") as f:
                    head = f.read(1 << 20)
                out[rel] = ("file", stat.S_IMODE(st.st_mode), st.st_size, head)
            else:
                out[rel] = ("other", stat.S_IFMT(st.st_mode))
    return out


def run_case(row, programs, source):
    name, actions, command, exit_code, pattern, checks = row
    work = tempfile.mkdtemp(prefix="attnviz-catalogue-")
    problems = []
    try:
        setup(work, actions, source)
        before = snapshot(work)
        words = [unescape(w) for w in shlex.split(command)]
        program = programs[words[0].decode()]
        # Under a sanitizer (make test-asan / test-tsan set its options) the program reserves terabytes of shadow
        # address space at start: the limit would stop it there, so it applies to plain builds only.
        sanitized = any(k in os.environ for k in ("ASAN_OPTIONS", "TSAN_OPTIONS", "UBSAN_OPTIONS"))
        argv, env, timeout = [program] + words[1:], None, 60
        limit = None if sanitized else limit_address_space
        if words[0] == b"app":
            argv = ["xvfb-run", "-a", "-s", "-screen 0 1280x800x24"] + argv
            env = dict(os.environ, XDG_CONFIG_HOME=work)
            timeout, limit = 180, None
        try:
            proc = subprocess.run(argv, cwd=work, stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout,
                                  env=env, preexec_fn=limit)
        except subprocess.TimeoutExpired:
            return ["did not end within %d s (hang)" % timeout]
        if proc.returncode < 0:
            problems.append("ended by signal %d (a crash, or an abort from an allocation past the %d GiB "
                            "address-space limit)" % (-proc.returncode, ADDRESS_SPACE_LIMIT >> 30))
        stderr = proc.stderr.decode("utf-8", "replace")
        if proc.returncode != int(exit_code):
            problems.append("exit code %d, expected %s" % (proc.returncode, exit_code))
        if not re.search(pattern, stderr):
            problems.append("message does not match /%s/" % pattern)
        if problems:
            problems.append("stderr: " + stderr.strip()[:400])
        after = snapshot(work)
        leftovers = [p for p in after if os.path.basename(p).startswith(".~")]
        if leftovers:
            problems.append("temporary files left: %s" % leftovers)
        if not checks and words[0] == b"cli":
            checks = "same"
        for check in filter(None, (c.strip() for c in checks.split(";"))):
            verb, _, arg = check.partition(" ")
            if verb == "same":
                if set(after) != set(before):
                    problems.append("files appeared or vanished: +%s -%s" % (
                        sorted(set(after) - set(before)), sorted(set(before) - set(after))))
                changed = [p for p in before if p in after and after[p] != before[p]]
                if changed:
                    problems.append("files changed: %s" % changed)
            elif verb == "unchanged":
                if after.get(arg) != before.get(arg):
                    problems.append("%s changed or vanished" % arg)
            elif verb == "exists" and arg not in after:
                problems.append("%s does not exist" % arg)
            elif verb == "lacks":
                file, _, text = arg.partition(" ")
                entry = after.get(file)
                if entry and entry[0] == "file" and unescape(text) in entry[3]:
                    problems.append("%s contains %r" % (file, text))
            elif verb == "absent" and arg in after:
                problems.append("%s exists" % arg)
            elif verb == "folder" and not os.path.isdir(os.path.join(work, arg)):
                problems.append("%s is not a folder" % arg)
            elif verb == "link" and not os.path.islink(os.path.join(work, arg)):
                problems.append("%s is not a symlink" % arg)
            elif verb == "mode":
                file, _, octal = arg.partition(" ")
                st = os.stat(os.path.join(work, file))
                if stat.S_IMODE(st.st_mode) != int(octal, 8):
                    problems.append("%s has mode %o, expected %s" % (file, stat.S_IMODE(st.st_mode), octal))
            elif verb == "contains":
                file, _, text = arg.partition(" ")
                entry = after.get(file)
                if not entry or entry[0] != "file" or unescape(text) not in entry[3]:
                    problems.append("%s does not contain %r" % (file, text))
    finally:
        for root, dirs, _ in os.walk(work):
            for d in dirs:
                try:
                    os.chmod(os.path.join(root, d), 0o755)
                except OSError:
                    pass
        shutil.rmtree(work, ignore_errors=True)
    return problems


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--cli", required=True)
    parser.add_argument("--settings-probe", required=True)
    parser.add_argument("--app", help="the attnviz binary (rows with `app` are skipped without it)")
    parser.add_argument("--source", required=True)
    parser.add_argument("--only", help="run the cases whose name contains this")
    args = parser.parse_args()
    programs = {"cli": args.cli, "settings": args.settings_probe, "app": args.app}
    can_run_app = bool(args.app) and shutil.which("xvfb-run") is not None
    rows = []
    with open(os.path.join(args.source, "tests/catalogue/cases.tsv"), encoding="utf-8") as f:
        for line_no, line in enumerate(f, 1):
            if not line.strip() or line.startswith("#"):
                continue
            cols = line.rstrip("\n").split("\t")
            cols += [""] * (6 - len(cols))
            if len(cols) != 6:
                sys.exit("cases.tsv:%d: %d columns, expected 6" % (line_no, len(cols)))
            rows.append(cols)
    names = [r[0] for r in rows]
    if len(set(names)) != len(names):
        sys.exit("cases.tsv: duplicate case names")
    failed = 0
    for row in rows:
        if args.only and args.only not in row[0]:
            continue
        if row[2].startswith("app ") and not can_run_app:
            print("skip %s (no --app or no xvfb-run)" % row[0])
            continue
        problems = run_case(row, programs, args.source)
        print("%-4s %s" % ("ok" if not problems else "FAIL", row[0]))
        for p in problems:
            print("       " + p)
        failed += bool(problems)
    print("%d cases, %d failed" % (len(rows), failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
