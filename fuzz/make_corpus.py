#!/usr/bin/python3
"""Writes the committed seed corpora fuzz/corpus/NAME/ (small valid inputs of each format, from the repository's
fixtures or made here). Run from the repository root; regression inputs found by fuzzing sit beside the seeds
(named regress-*) and are left alone."""
import json
import os
import shutil
import struct

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "fuzz", "corpus")


def put(harness, name, data):
    folder = os.path.join(CORPUS, harness)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode("utf-8"))


def read(*path):
    with open(os.path.join(ROOT, *path), "rb") as f:
        return f.read()


def npy_bytes(array):
    import io
    buf = io.BytesIO()
    np.save(buf, array)
    return buf.getvalue()


def safetensors_bytes(tensors, metadata=None):
    header, data = {}, b""
    for name, (dtype, array) in tensors.items():
        raw = array.tobytes()
        header[name] = {"dtype": dtype, "shape": list(array.shape), "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    if metadata:
        header["__metadata__"] = metadata
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + data


# Sentence text and files.
put("fuzz_text", "samples.txt", read("assets", "sentences.txt"))
put("fuzz_text", "hangul.txt", "나는 사과를 먹었다")
put("fuzz_text", "cross.txt", "# a comment\n\nIch gehe nach Hause. ||| I go home.\n")

# .npy: float32 and float64, 0-d to 3-d, version 2.0.
put("fuzz_npy", "f32_2d.npy", read("tests", "fixtures", "01_self_h1", "x.npy"))
put("fuzz_npy", "f32_3d.npy", read("tests", "fixtures", "01_self_h1", "weights.npy"))
put("fuzz_npy", "f64_1d.npy", npy_bytes(np.array([0.5, -2.0, 1e-3], dtype="<f8")))
put("fuzz_npy", "f32_0d.npy", npy_bytes(np.array(3.0, dtype="<f4")))
v2 = npy_bytes(np.zeros((2, 3), dtype="<f4"))
put("fuzz_npy", "f32_v2.npy", b"\x93NUMPY\x02\x00" + struct.pack("<I", struct.unpack("<H", v2[8:10])[0]) + v2[10:])

# settings.txt as the app writes it.
put("fuzz_settings", "settings.txt", """# attnviz settings (written by the app; key = value)
version = 1
kv_text = I go home.
query_text = Ich gehe nach Hause.
sentence_file = assets/sentences.txt
recent_file = a.txt
mode = cross
n_head = 4
d_model = 64
d_k = 16
d_v = 16
scale = false
temperature = 0.5
mask = causal
seed = 7
positional = true
qkv = separate
colormap = magma
color_scale = log
auto_range = true
hidden_heads = 0,1
selected_head = 2
enlarged = true
side_by_side = false
export_target = 1
export_format = svg
export_dir = /tmp
source = model
recent_model = tests/fixtures/models/bert
model_hide_special = true
model_no_scale = false
model_dir = tests/fixtures/models/gpt2
model_layer = 1
model_temperature = 2
model_whatif_layers = 0,1
model_role_filter = induction >= 0.4
window_x = 10
window_y = 20
window_w = 1024
window_h = 700
""")
put("fuzz_settings", "escapes.txt", "kv_text = line\\none\\\\two\nquery_text =\n")

# Command lines: arguments separated by NUL bytes.
for name, argv in {
    "compute": ["--text", "I go home.", "--heads", "4", "--dk", "16", "--dv", "8", "--no-scale", "--seed", "7"],
    "cross": ["--query-text", "나는", "--text", "I go home.", "--mask", "causal", "--temperature", "0.25"],
    "file": ["--text-file", "assets/sentences.txt", "--line", "3", "--qkv", "separate", "--no-positional"],
    "values": ["--d-model", "64", "viridis", "log", "0,2,5", "18446744073709551615", "1e-3"],
}.items():
    put("fuzz_options", name, "\0".join(argv))

# config.json of each model family.
for family in ("bert", "gpt2", "llama", "qwen2", "mistral_sharded"):
    put("fuzz_model_config", family + ".json", read("tests", "fixtures", "models", family, "config.json"))

# safetensors: each float dtype, a scalar, metadata, an integer buffer.
rng = np.random.default_rng(0)
put("fuzz_safetensors", "f32.safetensors", safetensors_bytes(
    {"wte.weight": ("F32", rng.standard_normal((4, 3)).astype("<f4")), "ln.bias": ("F32", np.zeros(3, "<f4"))},
    {"format": "pt"}))
put("fuzz_safetensors", "f16_bf16.safetensors", safetensors_bytes(
    {"a": ("F16", rng.standard_normal((2, 2)).astype("<f2")),
     "b": ("BF16", (rng.standard_normal(4).astype("<f4").view("<u4") >> 16).astype("<u2"))}))
put("fuzz_safetensors", "scalar_i64.safetensors", safetensors_bytes(
    {"step": ("I64", np.array(5, "<i8")), "s": ("F32", np.array(1.5, "<f4"))}))

# Deep nesting and long values (issue 25): refused at parse (depth 64) and quoted capped, never dump()ed.
put("fuzz_model_config", "regress-deep-nesting.json",
    '{"model_type": "llama", "num_key_value_heads": ' + "[" * 5000 + "]" * 5000 + "}")
put("fuzz_model_config", "regress-long-model-type.json", '{"model_type": "' + "m" * 20000 + '"}')
deep = ("{\"t\": {\"dtype\": \"F32\", \"shape\": " + "[" * 3000 + "]" * 3000 + ", \"data_offsets\": [0, 0]}}").encode()
deep += b" " * (-len(deep) % 8)
put("fuzz_safetensors", "regress-deep-header.safetensors", struct.pack("<Q", len(deep)) + deep)
# An empty tensor between two overlapping ones (the overlap must still be found).
hidden = json.dumps({"a": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]},
                     "e": {"dtype": "F32", "shape": [0], "data_offsets": [6, 6]},
                     "b": {"dtype": "F32", "shape": [2], "data_offsets": [8, 16]}}).encode()
hidden += b" " * (-len(hidden) % 8)
put("fuzz_safetensors", "regress-overlap-behind-empty.safetensors", struct.pack("<Q", len(hidden)) + hidden + bytes(16))

# Shard index: the index JSON, a NUL, then shard-0.safetensors.
shard = safetensors_bytes({"w": ("F32", np.zeros((2, 2), "<f4")), "b": ("F32", np.zeros(2, "<f4"))})
put("fuzz_shard_index", "one_shard", json.dumps(
    {"metadata": {"total_size": 24}, "weight_map": {"w": "shard-0.safetensors", "b": "shard-0.safetensors"}}).encode()
    + b"\0" + shard)
put("fuzz_shard_index", "elsewhere", json.dumps({"weight_map": {"w": "shard-1.safetensors"}}).encode() + b"\0" + shard)
put("fuzz_shard_index", "many_names", json.dumps(
    {"weight_map": {"t%d" % i: "s%d.safetensors" % (i % 50) for i in range(2000)}}).encode())
put("fuzz_shard_index", "regress-deep", ('{"weight_map": ' + "[" * 4000 + "]" * 4000 + "}").encode())

# Tokenizer files.
for case in ("bert_json", "llama_style", "metaspace_split", "split_isolated", "wordpiece_misc",
             "pretokenizers_misc"):
    put("fuzz_tokenizer_json", case + ".json", read("tests", "fixtures", "tokenize", case, "tokenizer.json"))
# Issue 25's hostile tokenizer.json shapes (small: the harness's inputs are kept under a few KB).
def tokenizer_json(**sections):
    root = {"version": "1.0", "added_tokens": [], "normalizer": None, "pre_tokenizer": None, "post_processor": None,
            "decoder": None, "model": {"type": "WordLevel", "vocab": {"[UNK]": 0, "a": 1}, "unk_token": "[UNK]"}}
    root.update(sections)
    return json.dumps(root)


def nested(list_key, depth, inner):
    for _ in range(depth):
        inner = {"type": "Sequence", list_key: [inner]}
    return inner


doubling = {"type": "Replace", "pattern": {"String": "a"}, "content": "aa"}
put("fuzz_tokenizer_json", "regress-sequence-17-deep.json",
    tokenizer_json(normalizer=nested("normalizers", 17, {"type": "Lowercase"})))
put("fuzz_tokenizer_json", "regress-replace-doubling.json",
    tokenizer_json(normalizer={"type": "Sequence", "normalizers": [doubling] * 40}))
put("fuzz_tokenizer_json", "regress-lookahead-split.json", tokenizer_json(
    pre_tokenizer={"type": "Split", "pattern": {"Regex": "a(?=[\\s\\S]*#)"}, "behavior": "Isolated"}))
put("fuzz_tokenizer_json", "regress-id-past-32-bits.json", tokenizer_json(
    added_tokens=[{"id": 4294967296, "content": "a", "special": False}],
    post_processor={"type": "BertProcessing", "cls": ["a", 4294967297], "sep": ["a", 1]}))
put("fuzz_tokenizer_json", "regress-wordpiece-max-chars.json", tokenizer_json(
    model={"type": "WordPiece", "vocab": {"[UNK]": 0, "a": 1, "##a": 2}, "unk_token": "[UNK]",
           "max_input_chars_per_word": 18446744073709551615}))
put("fuzz_tokenizer_json", "regress-json-2000-deep.json", "[" * 2000 + "]" * 2000)
put("fuzz_tokenizer_json", "regress-nul-in-value.json", tokenizer_json(
    pre_tokenizer={"type": "Metaspace", "replacement": "x", "prepend_scheme": "a\0" + "b" * 200}))
# The nesting harness: section byte, depth byte, one step byte per level, then the text.
put("fuzz_tokenizer_nesting", "normalizer-16-doubling", bytes([0, 16]) + bytes([2] * 16) + "aaaa bbb 나는".encode())
put("fuzz_tokenizer_nesting", "pre-tokenizer-17-bytelevel", bytes([1, 17]) + bytes([1] * 17) + "나는 사과".encode())
put("fuzz_tokenizer_nesting", "post-processor-5", bytes([2, 5, 1, 2, 0, 1, 4]) + b"a b a")
put("fuzz_tokenizer_nesting", "decoder-40", bytes([3, 40]) + bytes(range(40)) + b"ab")

put("fuzz_gpt2_files", "tiny", read("assets", "models", "tiny", "vocab.json") + b"\0" +
    read("assets", "models", "tiny", "merges.txt"))
for case in ("bert_cased", "bert_uncased"):
    put("fuzz_bert_files", case, read("tests", "fixtures", "tokenize", case, "vocab.txt") + b"\0" +
        read("tests", "fixtures", "tokenize", case, "tokenizer_config.json"))

# GGUF files: the small fixtures of tests/fixtures/gguf (a model, quantized tensors, one unsupported type, keys only).
for rel in ("models/qwen2_mixed.gguf", "quant/q4_K.gguf", "quant/q3_K.gguf", "quant/q5_1.gguf", "quant/iq2_xxs.gguf",
            "tokenizers/llama_style.gguf", "tokenizers/llama3_style.gguf"):
    put("fuzz_gguf", rel.replace("/", "_"), read("tests", "fixtures", "gguf", rel))

# GGUF header bounds (issue 44): an array of many one-byte items (what the parse holds is about a hundred bytes an
# item) and keys and a string value near their own bounds, for the fuzzer to grow past them.
def gguf_kv(key, type_id, payload):
    return struct.pack("<Q", len(key)) + key + struct.pack("<I", type_id) + payload


def gguf_header(n_tensors, kvs):
    return b"GGUF" + struct.pack("<IQQ", 3, n_tensors, len(kvs)) + b"".join(kvs)


put("fuzz_gguf", "header-array-4096-u8", gguf_header(0, [
    gguf_kv(b"tokenizer.ggml.token_type", 9, struct.pack("<IQ", 0, 4096) + b"\x01" * 4096)]))
put("fuzz_gguf", "header-long-key-and-string", gguf_header(0, [
    gguf_kv(b"k" * 4000, 4, struct.pack("<I", 7)),
    gguf_kv(b"tokenizer.chat_template", 8, struct.pack("<Q", 3000) + b"{" * 3000)]))

# A SentencePiece vocabulary whose tokens are runs of one letter (each run has every split as a merge: the merges cost
# the vocabulary's bytes, not the square of each token's), for the fuzzer to grow.
def gguf_str(s):
    return struct.pack("<Q", len(s)) + s


spm_tokens = [b"<unk>", b"<s>", b"</s>", "\u2581".encode()] + [b"a" * n for n in range(1, 65)] + ["\u2581a".encode()]
put("fuzz_gguf", "spm-runs-64", gguf_header(0, [
    gguf_kv(b"tokenizer.ggml.model", 8, gguf_str(b"llama")),
    gguf_kv(b"tokenizer.ggml.tokens", 9, struct.pack("<IQ", 8, len(spm_tokens)) + b"".join(gguf_str(t) for t in spm_tokens)),
    gguf_kv(b"tokenizer.ggml.scores", 9, struct.pack("<IQ", 6, len(spm_tokens)) +
            b"".join(struct.pack("<f", -float(len(t))) for t in spm_tokens)),
    gguf_kv(b"tokenizer.ggml.token_type", 9, struct.pack("<IQ", 5, len(spm_tokens)) +
            struct.pack("<3i", 2, 3, 3) + struct.pack("<i", 1) * (len(spm_tokens) - 3))]))


def spm_seed(text, scored):
    """fuzz_spm_vocab: the text, then each piece after its score byte (signed), NUL between."""
    parts = [text.encode()] + [struct.pack("<b", s) + p.encode() for p, s in scored]
    return b"\0".join(parts)


put("fuzz_spm_vocab", "prefix-not-piece", spm_seed("the mat matters", [
    ("\u2581", -1), ("\u2581m", -2), ("\u2581mat", -3), ("at", -4), ("a", -5), ("t", -6), ("th", -8), ("he", -9),
    ("\u2581the", -7), ("er", -16), ("tter", -19), ("\u2581matter", -18), ("s", -13)]))
put("fuzz_spm_vocab", "ties-and-cjk", spm_seed("abcd 日本語 한국어 🙂x", [
    ("ab", -5), ("bc", -5), ("cd", -5), ("abc", -5), ("\u2581日", -2), ("\u2581日本", -3), ("本語", -4),
    ("한국", -9), ("국어", -10), ("\u2581한국어", -11), ("🙂x", -7)]))
