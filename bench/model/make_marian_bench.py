#!/usr/bin/python3
"""A random checkpoint of Helsinki-NLP/opus-mt-en-de's shape for the encoder-decoder benchmark (bench/model/seq2seq.sh),
written at bench time into a build folder, never committed:

  /usr/bin/python3 bench/model/make_marian_bench.py OUT_DIR [--n-src 512] [--n-tgt 64] [--seed 40]

OUT_DIR/config.json        MarianMTModel's config (d_model 512, 6 + 6 layers, 8 heads, d_ff 2048, vocab 58101,
                           max_position_embeddings 512, swish, scale_embedding, static sinusoidal positions, shared
                           embeddings tied to the LM head, pad = decoder_start = 58100, eos 0)
OUT_DIR/model.safetensors  F32, in MarianMTModel's save_pretrained names (model.shared.weight, final_logits_bias,
                           model.{encoder,decoder}.layers.L.{self_attn,encoder_attn,fc1,fc2,...}); the sinusoidal
                           tables are computed, not stored (as attnviz's loader skips them anyway)
OUT_DIR/ids.json           {"source": n_src ids ending with eos, "decoder": n_tgt ids starting with decoder_start}

Seeded: a rerun writes identical bytes. Weight scales keep the maps spread (q/k std 0.06, 0.08 in cross-attention:
scores of std ~2-3 after the d_head^-0.5 multiplier) so the softmax is neither one-hot nor flat, and the maps check
(torch_marian.py --check) compares rows that differ.
"""
import argparse
import collections
import json
import os
import struct

import numpy as np

CONFIG = collections.OrderedDict([
    ("activation_dropout", 0.0), ("activation_function", "swish"), ("architectures", ["MarianMTModel"]),
    ("attention_dropout", 0.0), ("bos_token_id", 0), ("classifier_dropout", 0.0), ("d_model", 512),
    ("decoder_attention_heads", 8), ("decoder_ffn_dim", 2048), ("decoder_layerdrop", 0.0), ("decoder_layers", 6),
    ("decoder_start_token_id", 58100), ("decoder_vocab_size", 58101), ("dropout", 0.1),
    ("encoder_attention_heads", 8), ("encoder_ffn_dim", 2048), ("encoder_layerdrop", 0.0), ("encoder_layers", 6),
    ("eos_token_id", 0), ("init_std", 0.02), ("is_encoder_decoder", True), ("max_position_embeddings", 512),
    ("model_type", "marian"), ("normalize_before", False), ("normalize_embedding", False), ("num_hidden_layers", 6),
    ("pad_token_id", 58100), ("scale_embedding", True), ("share_encoder_decoder_embeddings", True),
    ("static_position_embeddings", True), ("tie_word_embeddings", True), ("torch_dtype", "float32"),
    ("transformers_version", "4.40.0"), ("use_cache", True), ("vocab_size", 58101)])


def weights(cfg, rng):
    """name -> float32 array, in the order save_pretrained writes MarianMTModel's state dict."""
    d, V = cfg["d_model"], cfg["vocab_size"]
    W = collections.OrderedDict()

    def normal(shape, std, mean=0.0):
        return (rng.standard_normal(shape, dtype=np.float32) * np.float32(std) + np.float32(mean))

    def lin(prefix, n_out, n_in, std):
        W[prefix + ".weight"] = normal((n_out, n_in), std)  # nn.Linear: [out, in]
        W[prefix + ".bias"] = normal((n_out,), 0.02)

    def ln(prefix):
        W[prefix + ".weight"] = normal((d,), 0.1, 1.0)
        W[prefix + ".bias"] = normal((d,), 0.02)

    W["model.shared.weight"] = normal((V, d), 0.05)  # x sqrt(d_model) = 22.6: embeddings of std ~1.1
    W["final_logits_bias"] = normal((1, V), 0.5)
    for stack in ("encoder", "decoder"):
        ffn = cfg[stack + "_ffn_dim"]
        for i in range(cfg[stack + "_layers"]):
            lp = "model.%s.layers.%d" % (stack, i)
            for attn in (("self_attn", "encoder_attn") if stack == "decoder" else ("self_attn",)):
                qk_std = 0.08 if attn == "encoder_attn" else 0.06  # cross rows over 512 keys: sharper, as trained ones
                lin(lp + "." + attn + ".k_proj", d, d, qk_std)
                lin(lp + "." + attn + ".v_proj", d, d, d ** -0.5)
                lin(lp + "." + attn + ".q_proj", d, d, qk_std)
                lin(lp + "." + attn + ".out_proj", d, d, d ** -0.5)
                ln(lp + "." + attn + "_layer_norm")
            lin(lp + ".fc1", ffn, d, d ** -0.5)
            lin(lp + ".fc2", d, ffn, ffn ** -0.5)
            ln(lp + ".final_layer_norm")
    return W


def write_safetensors(path, tensors):
    """8-byte LE header length, the JSON header (space padded to 8 bytes), raw little-endian F32 data in order."""
    header = collections.OrderedDict([("__metadata__", {"format": "pt"})])
    offset = 0
    for name, t in tensors.items():
        n = t.size * 4
        header[name] = {"dtype": "F32", "shape": list(t.shape), "data_offsets": [offset, offset + n]}
        offset += n
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * ((8 - len(h) % 8) % 8)
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for t in tensors.values():
            f.write(np.ascontiguousarray(t, dtype="<f4").tobytes())
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--n-src", type=int, default=512)
    ap.add_argument("--n-tgt", type=int, default=64)
    ap.add_argument("--seed", type=int, default=40)
    a = ap.parse_args()
    cfg = CONFIG
    assert 2 <= a.n_src <= cfg["max_position_embeddings"] and 1 <= a.n_tgt <= cfg["max_position_embeddings"]
    os.makedirs(a.out, exist_ok=True)
    rng = np.random.default_rng(a.seed)
    write_safetensors(os.path.join(a.out, "model.safetensors"), weights(cfg, rng))
    with open(os.path.join(a.out, "config.json"), "w") as f:
        json.dump(cfg, f, indent=1)
        f.write("\n")
    # Ids of ordinary tokens (1 .. pad - 1): the source ends with eos as MarianTokenizer's do; the decoder input
    # starts with decoder_start_token_id as shift_tokens_right makes it.
    pad = cfg["pad_token_id"]
    ids = {"source": [int(i) for i in rng.integers(1, pad, a.n_src - 1)] + [cfg["eos_token_id"]],
           "decoder": [cfg["decoder_start_token_id"]] + [int(i) for i in rng.integers(1, pad, a.n_tgt - 1)]}
    with open(os.path.join(a.out, "ids.json"), "w") as f:
        json.dump(ids, f)
        f.write("\n")
    print("wrote %s (%d source, %d decoder ids)" % (a.out, a.n_src, a.n_tgt))


if __name__ == "__main__":
    main()
