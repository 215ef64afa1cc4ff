#!/usr/bin/python3
"""Trains attnviz's bundled model: a tiny GPT-2 (2 layers x 4 heads, d_model 128, 256 positions) whose heads a
learner can recognise (previous-token, induction, first-token sink, ...).

    make tiny-model            (= /usr/bin/python3 scripts/train_tiny_model.py)

Needs Debian's python3-torch (1.13), python3-numpy and python3-regex, plus the corpus packages below (the Makefile
target installs what is missing). Never run by `make test`; its outputs are committed.

Corpus (text that Debian packages ship; nothing is downloaded):
  * fortunes + fortunes-min (fortune-mod 1.99.1): /usr/share/games/fortunes/* -- English quotations, jokes,
    poems. License: BSD (the University of California's 3-clause licence, see /usr/share/doc/fortunes/copyright).
  * debian-faq-ko (11.1): /usr/share/doc/debian/FAQ/debian-faq.ko.txt.gz -- the Debian FAQ in Korean.
    License: the Debian FAQ's permissive notice (verbatim and modified copies allowed with the notice kept;
    Copyright (C) 1996-2003 Software in the Public Interest, see /usr/share/doc/debian-faq-ko/copyright).
Every 20th fortune and every 20th Korean paragraph are held out (never trained on); held-out text for the tests
comes from them. Every training window also gets synthetic segments: a sequence of random corpus words
copied 2-4 times, and a skip-bigram chain (see WINDOW below), so that previous-token and induction heads form.

Tokenizer: GPT-2's byte-level BPE (GPT-2's regex pre-tokenizer, bytes_to_unicode alphabet), with 768 merges
learned here on the training text; written as vocab.json + merges.txt in GPT-2's format, which attnviz's
tokenizer (core/tokenize, LoadGpt2Tokenizer) reads. The test compares the ids it makes with the ones below.

Model: the GPT-2 module tree of tests/fixtures/models/make_model_fixtures.py (HF names, Conv1D weights [in, out]),
tied lm_head (not saved, as HF does), written as F32 safetensors by hand (torch 1.13 has no writer).

Reproducible: seed 1234 for everything (Python, torch, numpy), torch.use_deterministic_algorithms(True), a fixed
number of threads (1) and steps, documents in sorted file order. The same machine and torch give the same bytes.

Outputs:
  assets/models/tiny/{config.json, model.safetensors, vocab.json, merges.txt, README.md}
  tests/fixtures/models/tiny_heldout.txt            one line: held-out prose + a random-word sequence, repeated
  tests/fixtures/models/tiny_heldout.json           ids, the layer stored, role scores (Python's reference)
  tests/fixtures/models/tiny_heldout_probs.npy      [n_head, n, n] float32: the last layer's probs in float64 math
"""
import os

# One thread everywhere: on a loaded 2-core machine, torch's and OpenBLAS's thread pools spin at every barrier waiting
# for a descheduled thread (measured here: a training step 10x slower with 2 threads than with 1). Set before numpy.
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import collections
import gzip
import json
import math
import random
import struct
import sys
import time

import numpy as np
import regex
import torch
from torch import nn

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT_DIR = os.path.join(ROOT, "assets", "models", "tiny")
FIXTURES = os.path.join(ROOT, "tests", "fixtures", "models")

SEED = 1234
THREADS = 1
N_MERGES = 768
CONFIG = {
    "model_type": "gpt2",
    "architectures": ["GPT2LMHeadModel"],
    "n_layer": 2,
    "n_head": 4,
    "n_embd": 128,
    "n_inner": 256,
    "n_positions": 256,
    "n_ctx": 256,
    "vocab_size": None,  # 256 bytes + N_MERGES + <|endoftext|>
    "layer_norm_epsilon": 1e-5,
    "activation_function": "gelu_new",
    "scale_attn_weights": True,  # as saved; training runs unscaled (TRAIN_UNSCALED), see fold_attention_scale
    "scale_attn_by_inverse_layer_idx": False,
    "tie_word_embeddings": True,
    "bos_token_id": None,
    "eos_token_id": None,
}
# Training windows: WINDOWS_PER_STEP windows of WINDOW corpus tokens a step, each starting at a random position (half
# of them at 0, so all 256 positions are trained). Two synthetic segments go into the windows at random offsets, so
# that the heads a learner should see pay off in the loss, and so that no fixed period or offset gives a shortcut:
#   * repeats: REPEAT_TOKENS tokens of random corpus words, copied 2-4 times with random gaps of corpus text between
#     the copies. Only an induction head (layer 1, reading a layer-0 previous-token head) predicts the later copies.
#   * skip-bigram chains (in SKIP_BIGRAM_FRACTION of the windows): random tokens where each token repeats the one two
#     back with probability 1/2. A head that copies the previous token predicts half of them.
# Measured on the held-out text (training.log): the previous-token head passes 0.6 at step ~1600, the induction head
# 0.5 at step ~1400. The old recipe (scaled logits, lr 3e-3, short windows filled with a periodic repeat, then
# 128-token windows) was at 0.11 and 0.06 after 2000 steps. With every window carrying a skip-bigram chain and lr
# 2e-3 the previous-token head formed sooner but stalled at 0.52, and induction had not started after 1200 steps.
# Training runs with unscaled q.k: attention logits then move sqrt(d_head) = 5.7x faster under Adam, so the heads
# sharpen within the few thousand steps that 30 minutes allow. The saved model is an ordinary scaled GPT-2 (q's
# weights and bias multiplied by sqrt(d_head), the same attention), so the app's "no 1/sqrt(d_head)" what-if applies.
TRAIN_UNSCALED = True
WINDOW = 128
WINDOWS_PER_STEP = 16
REPEAT_TOKENS = (10, 60)
SKIP_BIGRAM_FRACTION = 0.5
SKIP_BIGRAM_TOKENS = (16, 64)
STEPS = 3000
LR = 1e-3
WARMUP = 100

FORTUNE_DIR = "/usr/share/games/fortunes"
KOREAN_FAQ = "/usr/share/doc/debian/FAQ/debian-faq.ko.txt.gz"
GPT2_PATTERN = regex.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""")


# ----------------------------------------------------------------------------------------------------------------
# Corpus

def read_corpus():
    """-> (train documents, held-out documents), English fortunes and Korean FAQ paragraphs."""
    if not os.path.isdir(FORTUNE_DIR) or not os.path.exists(KOREAN_FAQ):
        sys.exit("missing corpus: apt-get install fortunes fortunes-min debian-faq-ko")
    fortunes = []
    for name in sorted(os.listdir(FORTUNE_DIR)):
        path = os.path.join(FORTUNE_DIR, name)
        if name.endswith(".dat") or name.endswith(".u8") or os.path.islink(path) or not os.path.isfile(path):
            continue
        with open(path, encoding="utf-8", errors="replace") as f:
            for doc in f.read().split("\n%\n"):
                doc = doc.strip("%\n ")
                if 20 <= len(doc) <= 2000:
                    fortunes.append(doc)
    with gzip.open(KOREAN_FAQ, "rt", encoding="utf-8") as f:
        paragraphs = [" ".join(line.strip() for line in p.splitlines()) for p in f.read().split("\n\n")]
    korean = [p for p in paragraphs if len(p) >= 20]
    train, held = [], []
    for docs in (fortunes, korean):
        for i, d in enumerate(docs):
            (held if i % 20 == 7 else train).append(d)
    return train, held


# ----------------------------------------------------------------------------------------------------------------
# Byte-level BPE (GPT-2's encoder.py, and a merge learner)

def bytes_to_unicode():
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, [chr(c) for c in cs]))


BYTE_ENCODER = bytes_to_unicode()


def pretokens(text):
    return ["".join(BYTE_ENCODER[b] for b in m.encode("utf-8")) for m in GPT2_PATTERN.findall(text)]


def learn_merges(texts, n_merges):
    """Classic BPE on pre-token counts with incremental pair counts. Ties break on the smallest pair (sorted),
    so the result does not depend on dict order."""
    word_counts = collections.Counter()
    for t in texts:
        word_counts.update(pretokens(t))
    words = [list(w) for w in sorted(word_counts)]
    counts = [word_counts[w] for w in sorted(word_counts)]
    pair_counts = collections.Counter()
    where = collections.defaultdict(set)
    for wi, w in enumerate(words):
        for a, b in zip(w, w[1:]):
            pair_counts[(a, b)] += counts[wi]
            where[(a, b)].add(wi)
    merges = []
    for _ in range(n_merges):
        if not pair_counts:
            break
        best = max(pair_counts.items(), key=lambda kv: (kv[1], kv[0]))[0]  # ties: the largest pair, always
        merges.append(best)
        a, b = best
        for wi in sorted(where.pop(best, ())):
            w = words[wi]
            c = counts[wi]
            for p in zip(w, w[1:]):
                pair_counts[p] -= c
                if pair_counts[p] <= 0:
                    del pair_counts[p]
            out, i = [], 0
            while i < len(w):
                if i + 1 < len(w) and w[i] == a and w[i + 1] == b:
                    out.append(a + b)
                    i += 2
                else:
                    out.append(w[i])
                    i += 1
            words[wi] = out
            for p in zip(out, out[1:]):
                pair_counts[p] += c
                where[p].add(wi)
        pair_counts.pop(best, None)
    return merges


class Encoder:
    """GPT-2's encoder: lowest-rank merge first, per pre-token."""

    def __init__(self, merges):
        self.ranks = {m: i for i, m in enumerate(merges)}
        self.vocab = {}
        for ch in BYTE_ENCODER.values():  # GPT-2's order: the printable bytes first, as bytes_to_unicode lists them
            self.vocab[ch] = len(self.vocab)
        for a, b in merges:
            self.vocab.setdefault(a + b, len(self.vocab))
        self.vocab["<|endoftext|>"] = len(self.vocab)
        self.cache = {}

    def bpe(self, token):
        if token in self.cache:
            return self.cache[token]
        word = list(token)
        while len(word) > 1:
            pairs = [(self.ranks.get((x, y), math.inf), i) for i, (x, y) in enumerate(zip(word, word[1:]))]
            rank, _ = min(pairs)
            if rank == math.inf:
                break
            first, second = word[min(pairs)[1]], word[min(pairs)[1] + 1]
            out, i = [], 0
            while i < len(word):
                if i + 1 < len(word) and word[i] == first and word[i + 1] == second:
                    out.append(first + second)
                    i += 2
                else:
                    out.append(word[i])
                    i += 1
            word = out
        self.cache[token] = word
        return word

    def encode(self, text):
        return [self.vocab[p] for t in pretokens(text) for p in self.bpe(t)]


# ----------------------------------------------------------------------------------------------------------------
# GPT-2 (the module tree of make_model_fixtures.py; state_dict names are HF's)

class Conv1D(nn.Module):
    # weight [nx (in), nf (out)]: y = x @ W + b
    def __init__(self, nf, nx, std=0.02):
        super().__init__()
        self.nf = nf
        self.weight = nn.Parameter(torch.randn(nx, nf) * std)
        self.bias = nn.Parameter(torch.zeros(nf))

    def forward(self, x):
        return (matmul(x.reshape(-1, x.size(-1)), self.weight) + self.bias).view(x.size()[:-1] + (self.nf,))


class _OpenBlasMatmul(torch.autograd.Function):
    """a @ b for float32 through numpy (OpenBLAS): Debian's torch 1.13 is built without a BLAS (BLAS_INFO=generic)
    and its own float32 GEMM runs about 10x slower than numpy's here. Same values up to summation order."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return torch.from_numpy(np.matmul(a.detach().numpy(), b.detach().numpy()))

    @staticmethod
    def backward(ctx, g):
        a, b = (t.detach().numpy() for t in ctx.saved_tensors)
        g = g.contiguous().numpy()
        return (torch.from_numpy(np.matmul(g, np.swapaxes(b, -1, -2))),
                torch.from_numpy(np.matmul(np.swapaxes(a, -1, -2), g)))


def matmul(a, b):
    """a @ b (same shapes, no broadcasting); float32 goes through OpenBLAS, float64 (the reference run) through torch."""
    return _OpenBlasMatmul.apply(a, b) if a.dtype == torch.float32 else a @ b


def gelu_new(x):
    return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


class Attention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        d, self.n_head = cfg["n_embd"], cfg["n_head"]
        self.d_head = d // self.n_head
        self.scale = 1.0 / math.sqrt(self.d_head) if cfg["scale_attn_weights"] else 1.0
        proj_std = 0.02 / math.sqrt(2 * cfg["n_layer"])
        self.c_attn = Conv1D(3 * d, d)
        self.c_proj = Conv1D(d, d, proj_std)

    def forward(self, x):
        # x: [B, n, d] -> q, k, v: [B, n_head, n, d_head]; probs: [B, n_head, n, n]
        B, n, d = x.shape
        q, k, v = self.c_attn(x).split(d, dim=2)
        q, k, v = (t.view(B, n, self.n_head, self.d_head).transpose(1, 2) for t in (q, k, v))
        # (q * scale) k^T: the same numbers as HF's (q k^T) * scale, scaled on the smaller tensor
        logits = matmul(q * self.scale if self.scale != 1.0 else q, k.transpose(-1, -2))
        mask = torch.full((n, n), float("-inf"), dtype=logits.dtype).triu(1)  # 0 on and below the diagonal
        probs = torch.softmax(logits + mask, dim=-1)
        z = matmul(probs, v).transpose(1, 2).reshape(B, n, d)
        return self.c_proj(z), probs


class MLP(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.c_fc = Conv1D(cfg["n_inner"], cfg["n_embd"])
        self.c_proj = Conv1D(cfg["n_embd"], cfg["n_inner"], 0.02 / math.sqrt(2 * cfg["n_layer"]))

    def forward(self, x):
        return self.c_proj(gelu_new(self.c_fc(x)))


class Block(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.ln_1 = nn.LayerNorm(cfg["n_embd"], eps=cfg["layer_norm_epsilon"])
        self.attn = Attention(cfg)
        self.ln_2 = nn.LayerNorm(cfg["n_embd"], eps=cfg["layer_norm_epsilon"])
        self.mlp = MLP(cfg)

    def forward(self, x):
        a, probs = self.attn(self.ln_1(x))
        x = x + a
        return x + self.mlp(self.ln_2(x)), probs


class Transformer(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.wte = nn.Embedding(cfg["vocab_size"], cfg["n_embd"])
        self.wpe = nn.Embedding(cfg["n_positions"], cfg["n_embd"])
        nn.init.normal_(self.wte.weight, std=0.02)
        # Sinusoidal start for the (learned) positions: relative offsets such as "one back" are then one linear
        # map away, so the previous-token head the induction circuit needs forms in few steps. Twice wte's size.
        pos = torch.arange(cfg["n_positions"]).unsqueeze(1).float()
        freq = torch.exp(-math.log(10000.0) * torch.arange(0, cfg["n_embd"], 2).float() / cfg["n_embd"])
        with torch.no_grad():
            self.wpe.weight[:, 0::2] = 0.06 * torch.sin(pos * freq)
            self.wpe.weight[:, 1::2] = 0.06 * torch.cos(pos * freq)
        self.h = nn.ModuleList([Block(cfg) for _ in range(cfg["n_layer"])])
        self.ln_f = nn.LayerNorm(cfg["n_embd"], eps=cfg["layer_norm_epsilon"])


class GPT2LMHeadModel(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.transformer = Transformer(cfg)

    def forward(self, ids, pos0=None):
        # ids: [B, n] -> logits [B, n, vocab] (lm_head tied to wte), probs per layer [n_layer][B, n_head, n, n]
        # pos0: [B] first position of each row (training only; inference starts at 0 as HF does)
        t = self.transformer
        pos = torch.arange(ids.size(1)).unsqueeze(0)
        if pos0 is not None:
            pos = pos + pos0.unsqueeze(1)
        x = t.wte(ids) + t.wpe(pos)
        all_probs = []
        for block in t.h:
            x, p = block(x)
            all_probs.append(p)
        return matmul(t.ln_f(x), t.wte.weight.t()), all_probs


# ----------------------------------------------------------------------------------------------------------------
# Head roles (the reference for core/model/roles.cpp: the same definitions, in numpy)

def role_scores(probs, ids):
    """probs: [n_head, n, n] (causal), ids: [n] -> dict role -> [n_head] scores in [0, 1]."""
    H, n, _ = probs.shape
    ids = list(ids)
    prev = probs[:, np.arange(1, n), np.arange(0, n - 1)].mean(axis=1)
    ind_rows = []
    for i, t in enumerate(ids):
        earlier = [j for j in range(i) if ids[j] == t]
        if earlier:
            ind_rows.append((i, [j + 1 for j in earlier]))
    induction = np.zeros(H)
    for i, cols in ind_rows:
        induction += probs[:, i, sorted(set(cols))].sum(axis=1)
    induction = induction / max(1, len(ind_rows))
    return {"previous_token": prev, "induction": induction}


# ----------------------------------------------------------------------------------------------------------------
# safetensors

def write_safetensors(path, tensors, metadata):
    header = collections.OrderedDict(__metadata__=metadata)
    blobs, offset = [], 0
    for name, t in tensors:
        b = t.detach().to(torch.float32).contiguous().numpy().astype("<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [offset, offset + len(b)]}
        blobs.append(b)
        offset += len(b)
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)


# ----------------------------------------------------------------------------------------------------------------

def fold_attention_scale(state, cfg):
    """The state of a model trained with unscaled q.k, as weights for a scaled one: q = x W_q + b_q times
    sqrt(d_head) (c_attn's first n_embd output columns), so that (q' k^T) / sqrt(d_head) = q k^T."""
    d = cfg["n_embd"]
    s = math.sqrt(d // cfg["n_head"])
    out = {k: v.detach().clone() for k, v in state.items()}
    for k, v in out.items():
        if k.endswith("attn.c_attn.weight"):
            v[:, :d] *= s  # weight: [n_embd (in), 3 * n_embd (out: q, k, v)]
        elif k.endswith("attn.c_attn.bias"):
            v[:d] *= s
    return out


def make_heldout(held_docs, words, enc, n_ctx):
    """Held-out text: two held-out fortunes and a held-out Korean paragraph, then 24 random words twice.
    -> (text, ids, the random words)"""
    hrng = random.Random(SEED + 1)
    held_en = [d for d in held_docs if d.isascii() and 60 <= len(d) <= 160 and "\t" not in d]
    held_ko = [d for d in held_docs if not d.isascii() and 30 <= len(d) <= 90]
    prose = " ".join(" ".join(d.split()) for d in hrng.sample(held_en, 2) + hrng.sample(held_ko, 1))
    random_words = " ".join(hrng.choice(words[:1500]) for _ in range(24))
    heldout = prose + " " + random_words + " " + random_words
    heldout_ids = enc.encode(heldout)
    while len(heldout_ids) > n_ctx:  # keep it within the context: shorten the prose
        prose = prose[: int(len(prose) * 0.9)].rsplit(" ", 1)[0]
        heldout = prose + " " + random_words + " " + random_words
        heldout_ids = enc.encode(heldout)
    return heldout, heldout_ids, random_words


def write_readme(out_dir, summary, scores):
    """assets/models/tiny/README.md: where the text came from, its licence, how to remake it, what the heads do."""
    cfg = json.load(open(os.path.join(out_dir, "config.json")))
    size = os.path.getsize(os.path.join(out_dir, "model.safetensors"))
    rows = "\n".join(f"| {r['layer']} | {r['head']} | {r['previous_token']:.3f} | {r['induction']:.3f} |" for r in scores)
    bp, bi = summary["best_previous_token"], summary["best_induction"]
    text = f"""# tiny: attnviz's bundled model

A GPT-2-architecture model small enough to ship ({cfg['n_layer']} layers x {cfg['n_head']} heads, d_model {cfg['n_embd']},
{cfg['n_positions']} positions, {cfg['vocab_size']} tokens, {summary['parameters']} parameters, F32 safetensors of
{size} bytes), trained so that its heads show patterns a learner can recognise. `--model tiny` opens it in
`attnviz` and `attnviz-cli`. A Hugging Face folder: config.json, model.safetensors, vocab.json + merges.txt
(GPT-2's byte-level BPE format, {len(open(os.path.join(out_dir, 'merges.txt')).read().splitlines()) - 1} merges learned on the corpus).

## Training text (Debian packages; nothing downloaded)

* `fortunes` + `fortunes-min` (fortune-mod 1.99.1): /usr/share/games/fortunes -- English quotations, jokes and
  poems. License: BSD (University of California), see /usr/share/doc/fortunes/copyright.
* `debian-faq-ko` (11.1): /usr/share/doc/debian/FAQ/debian-faq.ko.txt.gz -- the Debian FAQ in Korean.
  License: the Debian FAQ's permissive notice, Copyright (C) 1996-2003 Software in the Public Interest
  (verbatim and modified copies allowed with the notice kept), see /usr/share/doc/debian-faq-ko/copyright.
* Synthetic, in every training window: {REPEAT_TOKENS[0]}-{REPEAT_TOKENS[1]} tokens of random corpus words copied 2-4 times at random
  offsets (so that induction heads form), and in {SKIP_BIGRAM_FRACTION:.0%} of them a chain of random tokens that each repeat
  the one two back with probability 1/2 (so that previous-token heads form).

Every 20th fortune and Korean paragraph was held out and never trained on.

## Remaking it

`make tiny-model` (= `/usr/bin/python3 scripts/train_tiny_model.py`; Debian's python3-torch 1.13, python3-numpy,
python3-regex). Seed {summary['seed']}, deterministic algorithms, {summary['threads']} threads, {summary['steps']} steps
of {WINDOWS_PER_STEP} windows x {WINDOW} tokens, learning rate {LR} (cosine), trained with unscaled attention logits
(the 1/sqrt(d_head) scale folded into q's weights when saved); on the same machine and torch the same bytes. Measured here: {summary['train_seconds']} s of
training, {summary['total_seconds']} s in all, on 2 cores shared with other builds (final loss {summary['final_loss']}).

## Heads, on held-out text

On tests/fixtures/models/tiny_heldout.txt (held-out fortunes and Korean FAQ text, then 24 random words twice),
scored as core/model/roles.h defines (previous-token: mean P[i, i-1]; induction: for queries whose token occurred
before, the mean mass on the token after the earlier occurrence):

* best previous-token head: layer {bp['layer']} head {bp['head']}, {bp['previous_token']:.3f}
* best induction head: layer {bi['layer']} head {bi['head']}, {bi['induction']:.3f}

| layer | head | previous-token | induction |
|---|---|---|---|
{rows}

All six roles: `attnviz-cli model --model tiny --text-file tests/fixtures/models/tiny_heldout.txt --roles`.
"""
    with open(os.path.join(out_dir, "README.md"), "w") as f:
        f.write(text)


def main():
    global LR
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=STEPS)
    ap.add_argument("--lr", type=float, default=LR)
    ap.add_argument("--n-embd", type=int, default=CONFIG["n_embd"])
    ap.add_argument("--out", default=OUT_DIR)
    ap.add_argument("--fixtures", default=FIXTURES)
    args = ap.parse_args()
    LR = args.lr
    CONFIG["n_embd"] = args.n_embd
    t_start = time.time()
    random.seed(SEED)
    np.random.seed(SEED)
    torch.manual_seed(SEED)
    torch.set_num_threads(THREADS)
    torch.use_deterministic_algorithms(True)

    train_docs, held_docs = read_corpus()
    print(f"corpus: {len(train_docs)} training documents ({sum(map(len, train_docs))} chars), "
          f"{len(held_docs)} held out", flush=True)
    merges = learn_merges(train_docs, N_MERGES)
    enc = Encoder(merges)
    CONFIG["vocab_size"] = len(enc.vocab)
    print(f"tokenizer: {len(merges)} merges, vocab {len(enc.vocab)} ({time.time() - t_start:.0f} s)", flush=True)

    # One token stream of the training documents, separated by <|endoftext|>.
    eot = enc.vocab["<|endoftext|>"]
    order = list(range(len(train_docs)))
    random.Random(SEED).shuffle(order)
    stream = []
    for i in order:
        stream.extend(enc.encode(train_docs[i]))
        stream.append(eot)
    stream = np.array(stream, dtype=np.int64)
    # Words for the synthetic repeats: the training text's frequent words (letters only, Latin or Hangul).
    word_counts = collections.Counter(w for d in train_docs for w in regex.findall(r"\p{L}{2,}", d))
    words = [w for w, _ in word_counts.most_common(3000)]
    word_ids = [np.array(enc.encode(" " + w), dtype=np.int64) for w in words]
    print(f"stream: {len(stream)} tokens ({time.time() - t_start:.0f} s)", flush=True)

    n_ctx = CONFIG["n_positions"]
    heldout, heldout_ids, random_words = make_heldout(held_docs, words, enc, n_ctx)
    rng = np.random.default_rng(SEED)

    def random_words_segment(n_tokens):
        out, n = [], 0
        while n < n_tokens:
            out.append(word_ids[rng.integers(len(word_ids))])
            n += len(out[-1])
        return np.concatenate(out)[:n_tokens]

    def skip_bigram_chain(n_tokens):
        t = list(rng.integers(0, eot, 2))
        while len(t) < n_tokens:
            t.append(t[-2] if rng.random() < 0.5 else int(rng.integers(0, eot)))
        return np.array(t)

    def batch():
        # -> x, y: [WINDOWS_PER_STEP, WINDOW] token ids (y = x shifted by one), pos0: [WINDOWS_PER_STEP] first positions
        w = WINDOW + 1
        x = np.stack([stream[s:s + w] for s in rng.integers(0, len(stream) - w, WINDOWS_PER_STEP)])
        pos0 = [0 if rng.random() < 0.5 else int(rng.integers(0, n_ctx - WINDOW + 1)) for _ in range(WINDOWS_PER_STEP)]
        for row in x:
            n = int(rng.integers(REPEAT_TOKENS[0], REPEAT_TOKENS[1] + 1))
            copies = min(int(rng.integers(2, 5)), w // n)
            seg = random_words_segment(n)
            gaps = np.sort(rng.integers(0, w - copies * n + 1, copies))  # copy k starts at gaps[k] + k * n
            for k in range(copies):
                row[gaps[k] + k * n:gaps[k] + (k + 1) * n] = seg
            if rng.random() < SKIP_BIGRAM_FRACTION:
                n = int(rng.integers(SKIP_BIGRAM_TOKENS[0], SKIP_BIGRAM_TOKENS[1] + 1))
                at = int(rng.integers(0, w - n + 1))
                row[at:at + n] = skip_bigram_chain(n)
        x = torch.from_numpy(x)
        return x[:, :-1], x[:, 1:], torch.tensor(pos0)

    probe = torch.tensor([heldout_ids])
    model = GPT2LMHeadModel(dict(CONFIG, scale_attn_weights=not TRAIN_UNSCALED))
    # No weight decay on the embeddings (as on biases and LayerNorms): it would pull the positions the heads key on to 0.
    decay = [p for n, p in model.named_parameters() if p.dim() >= 2 and ".wte." not in n and ".wpe." not in n]
    no_decay = [p for n, p in model.named_parameters() if not (p.dim() >= 2 and ".wte." not in n and ".wpe." not in n)]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1}, {"params": no_decay, "weight_decay": 0.0}],
                            lr=LR, betas=(0.9, 0.95))
    n_params = sum(p.numel() for p in model.parameters())
    print(f"model: {n_params} parameters; {args.steps} steps of {WINDOWS_PER_STEP} x {WINDOW} tokens", flush=True)
    t_train = time.time()
    for step in range(args.steps):
        lr = LR * min(1.0, (step + 1) / WARMUP) * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * step / args.steps)))
        for g in opt.param_groups:
            g["lr"] = lr
        x, y, pos0 = batch()
        logits, _ = model(x, pos0)
        loss = nn.functional.cross_entropy(logits.reshape(-1, logits.size(-1)), y.reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if step % 50 == 0 or step == args.steps - 1:
            el = time.time() - t_train
            with torch.no_grad():  # progress: the best previous-token and induction heads on the held-out text
                _, p = model(probe)
            best = {k: max(float(v.max()) for v in (role_scores(q[0].numpy(), heldout_ids)[k] for q in p))
                    for k in ("previous_token", "induction")}
            print(f"step {step:5d} loss {loss.item():.3f} lr {lr:.2e} {el:.0f} s ({el / (step + 1):.2f} s/step) "
                  f"held-out: previous-token {best['previous_token']:.2f} induction {best['induction']:.2f}", flush=True)
    train_seconds = time.time() - t_train

    # Reference probs in float64 from the stored (float32) weights, which have the scale folded into q.
    model.eval()
    state = fold_attention_scale(model.state_dict(), CONFIG) if TRAIN_UNSCALED else model.state_dict()
    m64 = GPT2LMHeadModel(CONFIG).double()
    m64.load_state_dict({k: v.double() for k, v in state.items()})
    with torch.no_grad():
        _, probs64 = m64(torch.tensor([heldout_ids]))
        _, probs32 = model(torch.tensor([heldout_ids]))
    probs64 = [p[0].numpy() for p in probs64]
    worst = max(float(np.abs(p64 - p32[0].double().numpy()).max()) for p64, p32 in zip(probs64, probs32))
    assert worst < 2.5e-5, f"float32 vs float64 probs differ by {worst}"

    scores = []
    for layer, p in enumerate(probs64):
        s = role_scores(p, heldout_ids)
        for h in range(CONFIG["n_head"]):
            scores.append({"layer": layer, "head": h, "previous_token": round(float(s["previous_token"][h]), 4),
                           "induction": round(float(s["induction"][h]), 4)})
    best_prev = max(scores, key=lambda r: r["previous_token"])
    best_ind = max(scores, key=lambda r: r["induction"])
    print("held-out roles:", json.dumps(scores), flush=True)
    print(f"best previous-token: L{best_prev['layer']}H{best_prev['head']} {best_prev['previous_token']}; "
          f"best induction: L{best_ind['layer']}H{best_ind['head']} {best_ind['induction']}", flush=True)

    # Write the model folder.
    os.makedirs(args.out, exist_ok=True)
    cfg = dict(CONFIG)
    with open(os.path.join(args.out, "config.json"), "w") as f:
        json.dump(cfg, f, indent=2)
        f.write("\n")
    write_safetensors(os.path.join(args.out, "model.safetensors"), [(k, state[k]) for k in state],
                      {"format": "pt", "source": "scripts/train_tiny_model.py", "seed": str(SEED)})
    with open(os.path.join(args.out, "vocab.json"), "w", encoding="utf-8") as f:
        json.dump(enc.vocab, f, ensure_ascii=False)
    with open(os.path.join(args.out, "merges.txt"), "w", encoding="utf-8") as f:
        f.write("#version: 0.2\n")
        for a, b in merges:
            f.write(f"{a} {b}\n")

    os.makedirs(args.fixtures, exist_ok=True)
    with open(os.path.join(args.fixtures, "tiny_heldout.txt"), "w", encoding="utf-8") as f:
        f.write(heldout + "\n")
    last = CONFIG["n_layer"] - 1
    np.save(os.path.join(args.fixtures, "tiny_heldout_probs.npy"), probs64[last].astype(np.float32))
    with open(os.path.join(args.fixtures, "tiny_heldout.json"), "w", encoding="utf-8") as f:
        json.dump({"ids": heldout_ids, "probs_layer": last, "roles": scores,
                   "random_words": random_words}, f, ensure_ascii=False)
        f.write("\n")
    recipe = {"window": WINDOW, "windows_per_step": WINDOWS_PER_STEP, "repeat_tokens": REPEAT_TOKENS,
              "skip_bigram_fraction": SKIP_BIGRAM_FRACTION, "skip_bigram_tokens": SKIP_BIGRAM_TOKENS, "lr": LR,
              "warmup": WARMUP}
    summary = {"seed": SEED, "steps": args.steps, "recipe": recipe, "threads": THREADS, "parameters": n_params,
               "train_seconds": round(train_seconds), "total_seconds": round(time.time() - t_start),
               "final_loss": round(loss.item(), 3), "best_previous_token": best_prev, "best_induction": best_ind}
    with open(os.path.join(args.out, "training.json"), "w") as f:
        json.dump(summary, f, indent=2)
        f.write("\n")
    write_readme(args.out, summary, scores)
    print("summary:", json.dumps(summary), flush=True)


if __name__ == "__main__":
    main()
