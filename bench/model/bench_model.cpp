// Times RunModel (every layer's probs and hidden kept) on a checkpoint folder; without --dir, on a random
// GPT-2-small-shaped checkpoint (12 layers, 12 heads, d_model 768, vocab 50257) written once to
// /tmp/attnviz_bench_gpt2_small. Compare with: /usr/bin/python3 bench/model/torch_gpt2.py (same folder).
//
//   attnviz_model_bench [--dir DIR | --arch gpt2|llama|smollm2|qwen3|gemma2] [--n 1024] [--reps 3]
//                       [--compare TORCH_DIR] [--ids-file IDS.json] [--long [--roles-csv FILE]]
//                       [--no-stream] [--cli-forward-only [--gemms]] [--patching] [--json FILE]
// --arch llama: a random llama of the same width (12 layers, 12 heads on 4 kv heads, d_ff 2048, llama3 rope)
// written once to /tmp/attnviz_bench_llama_small.
// --arch smollm2: a random llama shaped as HuggingFaceTB/SmolLM2-135M (30 layers, d_model 576, 9 query heads on 3
// kv heads, d_ff 1536, vocab 49152, tied embeddings, rope_theta 1e5) written once to /tmp/attnviz_bench_smollm2.
// --arch qwen3: Qwen3-0.6B's shape (28 layers, hidden 1024, 16 query heads on 8 kv heads of 128, q/k norms, d_ff
// 3072, rope_theta 1e6, tied) in /tmp/attnviz_bench_qwen3; --arch gemma2: Gemma-2-2B's shape cut to 6 layers (hidden
// 2304, 8 heads on 4 of 256, d_ff 9216, soft-caps 50 and 30, query_pre_attn_scalar 256, window 4096) in
// /tmp/attnviz_bench_gemma2. Both with the vocabulary cut to 49152 (the forward never runs the LM head).
// --json: the timings and the peak RSS (getrusage) against the budget weights + maps + 300 MB, for bench/run.sh.
// --no-stream: skip the second timing (a sink that keeps nothing).
// --cli-forward-only: the CLI's forward alone (CliForwardRows); with --gemms, the same GEMMs alone after each timed
// run too, and the ratio of the two.
// --long: instead of keeping every map, the app's streamed run (first layer, all layers, peak RSS) beside the CLI's
// forward (each layer's maps made, not kept) and the same GEMMs alone, for inputs too long to keep (bench/model/long.sh).
// --ids-file: a JSON array of token ids to run instead of the made-up ones; --roles-csv: the streamed run's head
// roles as the app's session scores them (HeadRolesCsv), for tests/session.
// --compare: max |difference| to the maps torch_gpt2.py --save TORCH_DIR wrote (same checkpoint, same n).
// --make-gguf DIR: writes DIR/smollm2_q4k.gguf, a random llama of SmolLM2-135M's shape quantized as llama.cpp's
//   Q4_K_M leaves that shape (Q4_K where a row is whole 256-element super-blocks: ffn_down; llama.cpp's fallback
//   Q5_0 for the 576-wide rows; norms F32), and DIR/smollm2_f32/, the same weights dequantized as an F32
//   safetensors folder; then runs both on 64 tokens and prints the largest map difference (0: the same model).
// --gguf FILE: time that GGUF file (dequantized per layer) instead of a folder.
// --patching: activation patching of every head (core/model/patching.h, heads only; the corrupted text is the
//   made-up one with its first token changed, so every head differs) beside 2 x n_layer x n_head forwards, the
//   cost of patching each head by running a clean and a patched forward from the start (one forward timed, times
//   that count). Small check: --dir tests/fixtures/models/gpt2 --n 16 --reps 1 --patching.
// --stream-only: only the runs into a sink that keeps nothing (peak RSS = weights + one layer's maps + workspace).
#include <omp.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/matmul.h"
#include "io/file_io.h"
#include "maps/pyramid.h"
#include "session/layer_collector.h"
#include "model/roles.h"
#include "model/patching.h"
#include "model/run.h"
#include "model/gguf_weights.h"
#include "io/npy.h"

using namespace attnviz;
using namespace attnviz::model;

namespace {

// A timings file for bench/model/run.sh and long.sh: serialized by nlohmann-json, written atomically. 2 when it
// could not be written (the message on stderr).
int WriteJson(const std::string& path, const nlohmann::json& j) {
  if (Status s = WriteFileAtomic(path, j.dump() + "\n"); !s) return std::fprintf(stderr, "%s\n", s.message().c_str()), 2;
  return 0;
}

struct RandomTensor {
  std::string name;
  std::vector<int64_t> shape;
  float scale, offset;
};

// The F32 safetensors header of `tensors` (name and shape each, in file order) written to `f`: the 8-byte length,
// then the JSON padded to 8 bytes. The data follows in the same order.
template <typename Tensors>
void WriteF32SafetensorsHeader(std::ofstream& f, const Tensors& ts) {
  std::string header = "{";
  uint64_t off = 0;
  for (size_t i = 0; i < ts.size(); ++i) {
    uint64_t count = 1;
    std::string shape = "[";
    for (size_t k = 0; k < ts[i].shape.size(); ++k)
      count *= ts[i].shape[k], shape += (k ? "," : "") + std::to_string(ts[i].shape[k]);
    header += (i ? ",\"" : "\"") + ts[i].name + "\":{\"dtype\":\"F32\",\"shape\":" + shape +
              "],\"data_offsets\":[" + std::to_string(off) + "," + std::to_string(off + 4 * count) + "]}";
    off += 4 * count;
  }
  header += "}";
  header.append((8 - header.size() % 8) % 8, ' ');
  uint64_t n = header.size();
  f.write(reinterpret_cast<const char*>(&n), 8);
  f.write(header.data(), (std::streamsize)header.size());
}

// A random checkpoint in HF layout, F32: config.json text + tensors (values offset + scale * N(0, 1)).
bool WriteRandom(const std::string& dir, const std::string& config, const std::vector<RandomTensor>& ts) {
  ::mkdir(dir.c_str(), 0755);
  std::ofstream(dir + "/config.json") << config;
  std::ofstream f(dir + "/model.safetensors.tmp", std::ios::binary);
  WriteF32SafetensorsHeader(f, ts);
  std::mt19937 rng(1);
  std::normal_distribution<float> nd;
  std::vector<float> buf;
  for (const RandomTensor& t : ts) {
    uint64_t count = 1;
    for (int64_t s : t.shape) count *= s;
    // In pieces of 1M floats: writing the checkpoint must not raise this process's peak RSS.
    for (uint64_t done = 0; done < count;) {
      const uint64_t k = std::min<uint64_t>(count - done, 1 << 20);
      buf.resize(k);
      for (float& x : buf) x = t.offset + t.scale * nd(rng);
      f.write(reinterpret_cast<const char*>(buf.data()), (std::streamsize)(4 * k));
      done += k;
    }
  }
  f.close();
  return f.good() && std::rename((dir + "/model.safetensors.tmp").c_str(), (dir + "/model.safetensors").c_str()) == 0;
}

// GPT-2 small: 12 layers, 12 heads, d_model 768, vocab 50257 (GPT2Model names).
bool WriteRandomGpt2(const std::string& dir) {
  const int n_layer = 12, d = 768, vocab = 50257, positions = 1024;
  const std::string config = "{\"model_type\": \"gpt2\", \"n_layer\": 12, \"n_head\": 12, \"n_embd\": 768, "
                             "\"vocab_size\": 50257, \"n_positions\": 1024, \"layer_norm_epsilon\": 1e-05, "
                             "\"activation_function\": \"gelu_new\"}\n";
  const float s = 1.0f / std::sqrt((float)d);
  std::vector<RandomTensor> ts = {{"wte.weight", {vocab, d}, 0.5f, 0}, {"wpe.weight", {positions, d}, 0.1f, 0}};
  for (int l = 0; l < n_layer; ++l) {
    const std::string h = "h." + std::to_string(l) + ".";
    ts.push_back({h + "ln_1.weight", {d}, 0.1f, 1});
    ts.push_back({h + "ln_1.bias", {d}, 0.1f, 0});
    ts.push_back({h + "attn.c_attn.weight", {d, 3 * d}, 2 * s, 0});
    ts.push_back({h + "attn.c_attn.bias", {3 * d}, 0.1f, 0});
    ts.push_back({h + "attn.c_proj.weight", {d, d}, s, 0});
    ts.push_back({h + "attn.c_proj.bias", {d}, 0.1f, 0});
    ts.push_back({h + "ln_2.weight", {d}, 0.1f, 1});
    ts.push_back({h + "ln_2.bias", {d}, 0.1f, 0});
    ts.push_back({h + "mlp.c_fc.weight", {d, 4 * d}, s, 0});
    ts.push_back({h + "mlp.c_fc.bias", {4 * d}, 0.1f, 0});
    ts.push_back({h + "mlp.c_proj.weight", {4 * d, d}, 0.5f * s, 0});
    ts.push_back({h + "mlp.c_proj.bias", {d}, 0.1f, 0});
  }
  ts.push_back({"ln_f.weight", {d}, 0.1f, 1});
  ts.push_back({"ln_f.bias", {d}, 0.1f, 0});
  return WriteRandom(dir, config, ts);
}

// One llama-style block's attention projections: q ([q_dim, d]), k and v ([kv_dim, d]) and o ([d, q_dim]).
void PushAttentionProjections(std::vector<RandomTensor>* ts, const std::string& h, int d, int q_dim, int kv_dim) {
  const float s = 1.0f / std::sqrt((float)d);
  ts->push_back({h + "self_attn.q_proj.weight", {q_dim, d}, 2 * s, 0});
  ts->push_back({h + "self_attn.k_proj.weight", {kv_dim, d}, 2 * s, 0});
  ts->push_back({h + "self_attn.v_proj.weight", {kv_dim, d}, s, 0});
  ts->push_back({h + "self_attn.o_proj.weight", {d, q_dim}, 1.0f / std::sqrt((float)q_dim), 0});
}

// One llama-style block's gated MLP: gate and up ([ff, d]), down ([d, ff]).
void PushGatedMlp(std::vector<RandomTensor>* ts, const std::string& h, int d, int ff) {
  const float s = 1.0f / std::sqrt((float)d);
  ts->push_back({h + "mlp.gate_proj.weight", {ff, d}, s, 0});
  ts->push_back({h + "mlp.up_proj.weight", {ff, d}, s, 0});
  ts->push_back({h + "mlp.down_proj.weight", {d, ff}, 0.5f / std::sqrt((float)ff), 0});
}

// A llama of the same width: 12 layers, 12 query heads on 4 kv heads (GQA), d_ff 2048, vocab 32000, llama3 rope.
bool WriteRandomLlama(const std::string& dir) {
  const int n_layer = 12, d = 768, kv = 4 * 64, ff = 2048, vocab = 32000;
  const std::string config =
      "{\"model_type\": \"llama\", \"num_hidden_layers\": 12, \"num_attention_heads\": 12, "
      "\"num_key_value_heads\": 4, \"hidden_size\": 768, \"intermediate_size\": 2048, \"vocab_size\": 32000, "
      "\"max_position_embeddings\": 4096, \"rms_norm_eps\": 1e-05, \"hidden_act\": \"silu\", "
      "\"rope_theta\": 500000.0, \"rope_scaling\": {\"rope_type\": \"llama3\", \"factor\": 8.0, "
      "\"low_freq_factor\": 1.0, \"high_freq_factor\": 4.0, \"original_max_position_embeddings\": 1024}}\n";
  std::vector<RandomTensor> ts = {{"model.embed_tokens.weight", {vocab, d}, 1.0f, 0}};
  for (int l = 0; l < n_layer; ++l) {
    const std::string h = "model.layers." + std::to_string(l) + ".";
    ts.push_back({h + "input_layernorm.weight", {d}, 0.1f, 1});
    PushAttentionProjections(&ts, h, d, d, kv);
    ts.push_back({h + "post_attention_layernorm.weight", {d}, 0.1f, 1});
    PushGatedMlp(&ts, h, d, ff);
  }
  ts.push_back({"model.norm.weight", {d}, 0.1f, 1});
  return WriteRandom(dir, config, ts);
}

// HuggingFaceTB/SmolLM2-135M in shape: 30 layers, hidden 576, 9 query heads on 3 kv heads (head_dim 64),
// intermediate 1536, vocab 49152, tied embeddings (no lm_head stored), rope_theta 100000.
bool WriteRandomSmolLM2(const std::string& dir) {
  const int n_layer = 30, d = 576, kv = 3 * 64, ff = 1536, vocab = 49152;
  const std::string config =
      "{\"model_type\": \"llama\", \"architectures\": [\"LlamaForCausalLM\"], \"num_hidden_layers\": 30, "
      "\"num_attention_heads\": 9, \"num_key_value_heads\": 3, \"hidden_size\": 576, \"intermediate_size\": 1536, "
      "\"vocab_size\": 49152, \"max_position_embeddings\": 8192, \"rms_norm_eps\": 1e-05, \"hidden_act\": \"silu\", "
      "\"rope_theta\": 100000.0, \"tie_word_embeddings\": true, \"attention_bias\": false, \"mlp_bias\": false}\n";
  std::vector<RandomTensor> ts = {{"model.embed_tokens.weight", {vocab, d}, 1.0f, 0}};
  for (int l = 0; l < n_layer; ++l) {
    const std::string h = "model.layers." + std::to_string(l) + ".";
    ts.push_back({h + "input_layernorm.weight", {d}, 0.1f, 1});
    PushAttentionProjections(&ts, h, d, d, kv);
    ts.push_back({h + "post_attention_layernorm.weight", {d}, 0.1f, 1});
    PushGatedMlp(&ts, h, d, ff);
  }
  ts.push_back({"model.norm.weight", {d}, 0.1f, 1});
  return WriteRandom(dir, config, ts);
}

// Qwen/Qwen3-0.6B in shape: 28 layers, hidden 1024, 16 query heads on 8 kv heads, head_dim 128 (q_dim 2048, not
// hidden), per-head q_norm/k_norm, intermediate 3072, rms_norm_eps 1e-6, rope_theta 1e6, tied embeddings (no lm_head
// stored), no sliding window (use_sliding_window false, as Qwen3-0.6B's config). The vocabulary is cut from 151936 to
// SmolLM2's 49152: the forward only gathers 2048 rows of the embeddings and never runs the (tied) LM head.
bool WriteRandomQwen3(const std::string& dir) {
  const int n_layer = 28, d = 1024, q = 16 * 128, kv = 8 * 128, dh = 128, ff = 3072, vocab = 49152;
  const std::string config =
      "{\"model_type\": \"qwen3\", \"architectures\": [\"Qwen3ForCausalLM\"], \"num_hidden_layers\": 28, "
      "\"num_attention_heads\": 16, \"num_key_value_heads\": 8, \"head_dim\": 128, \"hidden_size\": 1024, "
      "\"intermediate_size\": 3072, \"vocab_size\": 49152, \"max_position_embeddings\": 40960, "
      "\"rms_norm_eps\": 1e-06, \"hidden_act\": \"silu\", \"rope_theta\": 1000000.0, \"rope_scaling\": null, "
      "\"tie_word_embeddings\": true, \"attention_bias\": false, \"use_sliding_window\": false, "
      "\"sliding_window\": null, \"max_window_layers\": 28, \"torch_dtype\": \"float32\"}\n";
  std::vector<RandomTensor> ts = {{"model.embed_tokens.weight", {vocab, d}, 1.0f, 0}};
  for (int l = 0; l < n_layer; ++l) {
    const std::string h = "model.layers." + std::to_string(l) + ".";
    ts.push_back({h + "input_layernorm.weight", {d}, 0.1f, 1});
    PushAttentionProjections(&ts, h, d, q, kv);
    // q and k normalized per head: a gain around 1 leaves the scaled scores at about unit spread.
    ts.push_back({h + "self_attn.q_norm.weight", {dh}, 0.1f, 1});
    ts.push_back({h + "self_attn.k_norm.weight", {dh}, 0.1f, 1});
    ts.push_back({h + "post_attention_layernorm.weight", {d}, 0.1f, 1});
    PushGatedMlp(&ts, h, d, ff);
  }
  ts.push_back({"model.norm.weight", {d}, 0.1f, 1});
  return WriteRandom(dir, config, ts);
}

// google/gemma-2-2b in shape, cut from 26 layers to 6: hidden 2304, 8 query heads on 4 kv heads, head_dim 256,
// intermediate 9216 (gated gelu_pytorch_tanh), query_pre_attn_scalar 256, attention soft-cap 50, final soft-cap 30,
// sliding_window 4096 on the even layers (as the real model; longer than the 2048 tokens run, so every layer sees
// every earlier key), rope_theta 1e4, four (1 + w) RMSNorms a block (w stored around 0), embeddings times
// sqrt(2304), tied. The vocabulary is cut from 256000 to 49152 (as --arch qwen3).
bool WriteRandomGemma2(const std::string& dir) {
  const int n_layer = 6, d = 2304, q = 8 * 256, kv = 4 * 256, ff = 9216, vocab = 49152;
  const std::string config =
      "{\"model_type\": \"gemma2\", \"architectures\": [\"Gemma2ForCausalLM\"], \"num_hidden_layers\": 6, "
      "\"num_attention_heads\": 8, \"num_key_value_heads\": 4, \"head_dim\": 256, \"hidden_size\": 2304, "
      "\"intermediate_size\": 9216, \"vocab_size\": 49152, \"max_position_embeddings\": 8192, "
      "\"rms_norm_eps\": 1e-06, \"hidden_act\": \"gelu_pytorch_tanh\", \"hidden_activation\": \"gelu_pytorch_tanh\", "
      "\"rope_theta\": 10000.0, \"query_pre_attn_scalar\": 256, \"sliding_window\": 4096, "
      "\"attn_logit_softcapping\": 50.0, \"final_logit_softcapping\": 30.0, \"tie_word_embeddings\": true, "
      "\"attention_bias\": false, \"cache_implementation\": \"hybrid\", \"torch_dtype\": \"float32\"}\n";
  // Embeddings small, as Gemma's are: times sqrt(2304) = 48 they come out near unit size.
  std::vector<RandomTensor> ts = {{"model.embed_tokens.weight", {vocab, d}, 0.02f, 0}};
  for (int l = 0; l < n_layer; ++l) {
    const std::string h = "model.layers." + std::to_string(l) + ".";
    ts.push_back({h + "input_layernorm.weight", {d}, 0.1f, 0});
    PushAttentionProjections(&ts, h, d, q, kv);
    ts.push_back({h + "post_attention_layernorm.weight", {d}, 0.1f, 0});
    ts.push_back({h + "pre_feedforward_layernorm.weight", {d}, 0.1f, 0});
    PushGatedMlp(&ts, h, d, ff);
    ts.push_back({h + "post_feedforward_layernorm.weight", {d}, 0.1f, 0});
  }
  ts.push_back({"model.norm.weight", {d}, 0.1f, 0});
  return WriteRandom(dir, config, ts);
}

// A sink that keeps nothing: each layer's maps go into the run's one reused buffer, so a timing is the compute alone
// (no n_layer maps allocated, no first touches of fresh memory).
struct Discard : LayerSink {
  Status OnLayer(const LayerOutput&) override { return Status::Ok(); }
};

// CPU seconds of this process so far (user + system): a busy machine stretches wall time, much less this.
double CpuSeconds() {
  struct rusage ru;
  ::getrusage(RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

// The GGUF of --make-gguf, written in pieces (this process's memory stays small).
bool WriteSmolLM2Gguf(const std::string& path) {
  const uint64_t n_layer = 30, d = 576, kv = 192, ff = 1536, vocab = 49152;
  struct T {
    std::string name;
    std::vector<uint64_t> ne;
    uint32_t type;  // 0 f32, 6 q5_0, 12 q4_K
  };
  std::vector<T> ts = {{"token_embd.weight", {d, vocab}, 6}};
  for (uint64_t l = 0; l < n_layer; ++l) {
    const std::string b = "blk." + std::to_string(l) + ".";
    ts.push_back({b + "attn_norm.weight", {d}, 0});
    ts.push_back({b + "attn_q.weight", {d, d}, 6});
    ts.push_back({b + "attn_k.weight", {d, kv}, 6});
    ts.push_back({b + "attn_v.weight", {d, kv}, 6});
    ts.push_back({b + "attn_output.weight", {d, d}, 6});
    ts.push_back({b + "ffn_norm.weight", {d}, 0});
    ts.push_back({b + "ffn_gate.weight", {d, ff}, 6});
    ts.push_back({b + "ffn_up.weight", {d, ff}, 6});
    ts.push_back({b + "ffn_down.weight", {ff, d}, 12});
  }
  ts.push_back({"output_norm.weight", {d}, 0});
  auto bytes_of = [](const T& t) {
    uint64_t n = 1;
    for (uint64_t e : t.ne) n *= e;
    return t.type == 0 ? 4 * n : t.type == 6 ? n / 32 * 22 : n / 256 * 144;
  };
  std::string h = "GGUF";
  auto put = [&](auto v) { h.append(reinterpret_cast<const char*>(&v), sizeof v); };
  auto str = [&](const std::string& v) { put((uint64_t)v.size()), h += v; };
  put((uint32_t)3), put((uint64_t)ts.size()), put((uint64_t)10);
  str("general.architecture"), put((uint32_t)8), str("llama");
  const std::pair<const char*, uint32_t> ints[] = {{"llama.block_count", 30},        {"llama.embedding_length", 576},
                                                   {"llama.feed_forward_length", 1536}, {"llama.context_length", 8192},
                                                   {"llama.attention.head_count", 9},  {"llama.attention.head_count_kv", 3},
                                                   {"llama.rope.dimension_count", 64}};
  for (const auto& [k, v] : ints) str(k), put((uint32_t)4), put(v);
  str("llama.rope.freq_base"), put((uint32_t)6), put(100000.0f);
  str("llama.attention.layer_norm_rms_epsilon"), put((uint32_t)6), put(1e-5f);
  uint64_t off = 0;
  for (const T& t : ts) {
    str(t.name), put((uint32_t)t.ne.size());
    for (uint64_t e : t.ne) put(e);
    put(t.type), put(off);
    off += (bytes_of(t) + 31) / 32 * 32;
  }
  h.append((32 - h.size() % 32) % 32, '\0');
  std::ofstream f(path + ".tmp", std::ios::binary);
  f.write(h.data(), (std::streamsize)h.size());
  std::mt19937 rng(7);
  std::string buf;
  for (const T& t : ts) {
    const uint64_t bytes = bytes_of(t);
    const uint64_t block = t.type == 0 ? 4 : t.type == 6 ? 22 : 144;
    for (uint64_t done = 0; done < bytes;) {
      const uint64_t k = std::min<uint64_t>(bytes - done, block * 8192);
      buf.resize(k);
      for (char& c : buf) c = (char)(rng() >> 24);
      for (uint64_t b = 0; b < k; b += block) {
        if (t.type == 0) {  // a norm: 1.0
          const float one = 1.0f;
          std::memcpy(&buf[b], &one, 4);
        } else if (t.type == 6) {  // q5_0: d = 2^-8, values d * (q - 16) in [-0.0625, 0.06]
          const uint16_t dh = 0x1C00;
          std::memcpy(&buf[b], &dh, 2);
        } else {  // q4_K: d = 2^-13, dmin = 7.5 d (mean about 0), values in [-0.115, 0.115]
          const uint16_t dh = 0x0800, mh = 0x1380;
          std::memcpy(&buf[b], &dh, 2), std::memcpy(&buf[b + 2], &mh, 2);
        }
      }
      f.write(buf.data(), (std::streamsize)k);
      done += k;
    }
    const uint64_t pad = (32 - bytes % 32) % 32;
    f.write("\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", (std::streamsize)pad);
  }
  f.close();
  return f.good() && std::rename((path + ".tmp").c_str(), path.c_str()) == 0;
}

// The GGUF's weights dequantized whole (its q/k rows unpermuted) as an F32 Hugging Face folder.
bool WriteF32Folder(const Model& m, const std::string& dir) {
  const ModelConfig& c = m.config();
  const ModelParams& p = m.params();
  struct W {
    std::string name;
    std::vector<int64_t> shape;
    const float* data;
  };
  const int64_t d = c.d_model, q = c.q_dim(), kv = c.kv_dim(), ff = c.d_ff;
  std::vector<W> ws = {{"model.embed_tokens.weight", {c.vocab, d}, p.tok_emb}};
  for (int l = 0; l < c.n_layer; ++l) {
    const std::string h = "model.layers." + std::to_string(l) + ".";
    const BlockParams& b = p.blocks[l];
    ws.push_back({h + "input_layernorm.weight", {d}, b.attn_norm.w});
    ws.push_back({h + "self_attn.q_proj.weight", {q, d}, b.q.w});
    ws.push_back({h + "self_attn.k_proj.weight", {kv, d}, b.k.w});
    ws.push_back({h + "self_attn.v_proj.weight", {kv, d}, b.v.w});
    ws.push_back({h + "self_attn.o_proj.weight", {d, q}, b.o.w});
    ws.push_back({h + "post_attention_layernorm.weight", {d}, b.mlp_norm.w});
    ws.push_back({h + "mlp.gate_proj.weight", {ff, d}, b.gate.w});
    ws.push_back({h + "mlp.up_proj.weight", {ff, d}, b.up.w});
    ws.push_back({h + "mlp.down_proj.weight", {d, ff}, b.down.w});
  }
  ws.push_back({"model.norm.weight", {d}, p.final_norm.w});
  ::mkdir(dir.c_str(), 0755);
  std::ofstream(dir + "/config.json")
      << "{\"model_type\": \"llama\", \"architectures\": [\"LlamaForCausalLM\"], \"num_hidden_layers\": 30, "
         "\"num_attention_heads\": 9, \"num_key_value_heads\": 3, \"hidden_size\": 576, \"intermediate_size\": 1536, "
         "\"vocab_size\": 49152, \"max_position_embeddings\": 8192, \"rms_norm_eps\": 1e-05, \"hidden_act\": \"silu\", "
         "\"rope_theta\": 100000.0, \"tie_word_embeddings\": true, \"attention_bias\": false, \"mlp_bias\": false}\n";
  std::ofstream f(dir + "/model.safetensors.tmp", std::ios::binary);
  WriteF32SafetensorsHeader(f, ws);
  for (const W& w : ws) {
    uint64_t count = 1;
    for (int64_t s : w.shape) count *= s;
    f.write(reinterpret_cast<const char*>(w.data), (std::streamsize)(4 * count));
  }
  f.close();
  return f.good() && std::rename((dir + "/model.safetensors.tmp").c_str(), (dir + "/model.safetensors").c_str()) == 0;
}

int MakeGguf(const std::string& out) {
  ::mkdir(out.c_str(), 0755);
  const std::string gguf = out + "/smollm2_q4k.gguf", folder = out + "/smollm2_f32";
  struct stat st;
  if (::stat(gguf.c_str(), &st) != 0) {
    std::printf("writing %s ...\n", gguf.c_str());
    if (!WriteSmolLM2Gguf(gguf)) return std::fprintf(stderr, "cannot write %s\n", gguf.c_str()), 2;
  }
  auto whole = LoadGgufModel(gguf, GgufWeights::kWhole);
  if (!whole) return std::fprintf(stderr, "%s\n", whole.message().c_str()), 2;
  if (::stat((folder + "/model.safetensors").c_str(), &st) != 0) {
    std::printf("writing %s ...\n", folder.c_str());
    if (!WriteF32Folder(**whole, folder)) return std::fprintf(stderr, "cannot write %s\n", folder.c_str()), 2;
  }
  auto lazy = LoadGgufModel(gguf);
  auto f32 = LoadModel(folder);
  if (!lazy || !f32) return std::fprintf(stderr, "%s\n", (lazy ? f32.message() : lazy.message()).c_str()), 2;
  std::vector<int> ids(64);
  for (int i = 0; i < 64; ++i) ids[i] = (int)((i * 7919L) % 49152);
  auto a = RunModel(**lazy, ids);
  auto b = RunModel(**f32, ids);
  if (!a || !b) return std::fprintf(stderr, "%s\n", (a ? b.message() : a.message()).c_str()), 2;
  double worst = 0;
  for (size_t i = 0; i < a->probs.size(); ++i)
    worst = std::max(worst, (double)std::fabs(a->probs.data[i] - b->probs.data[i]));
  std::printf("%s\nGGUF (per layer) vs its F32 folder, 64 tokens: largest map difference %.3g\n",
              (*lazy)->Describe().c_str(), worst);
  return worst == 0 ? 0 : 3;
}

double PeakRssMb() {
  struct rusage ru;
  ::getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss / 1024.0;  // KiB on Linux
}

}  // namespace

namespace {
double FlopsPerRun(const ModelConfig& c, int n) {
  // Dense layers (2 flops per multiply-add) + q k^T and probs v over the visible keys.
  const double proj = 2.0 * n * c.d_model * (c.q_dim() + 2.0 * c.kv_dim()) + 2.0 * n * c.q_dim() * c.d_model;
  const double mlp = 2.0 * n * c.d_model * c.d_ff * (c.recipe.gated_mlp ? 3 : 2);
  const double keys = c.recipe.bidirectional ? (double)n * n : n * (n + 1) / 2.0;
  const double attn = 2.0 * 2.0 * keys * c.d_head * c.n_head;
  return c.n_layer * (proj + mlp + attn);
}


// ---- --long: what the app does with a long input, beside the CLI's forward and the GEMMs alone ----

// The app's streamed run: the session's own collector (core/session/layer_collector.h, CollectPlan::ForSession),
// every block into a pyramid and role rows, each layer's input kept (the app makes q and k of the layer it shows
// from it), the coarser levels kept. Tokens without text: the bench runs ids.
std::vector<attnviz::tokenize::Token> BareTokens(const std::vector<int>& ids) {
  std::vector<attnviz::tokenize::Token> tokens(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) tokens[i].id = ids[i];
  return tokens;
}

double GemmLayerMs(const ModelConfig& c, int n);

// The forward's GEMMs alone, with Eigen on the same shapes (one layer timed, times n_layer): the projections,
// the MLP, and per head q k^T and probs v over the keys each block of 256 query rows may see (causal: a triangle).
// The layer is timed three times and the fastest kept: one timing times n_layer carried its noise n_layer-fold
// (two runs of the same code at long inputs gave floors far apart).
double GemmFloorMs(const ModelConfig& c, int n) {
  double best = 0;
  for (int rep = 0; rep < 3; ++rep) {
    const double ms = GemmLayerMs(c, n);
    best = rep == 0 ? ms : std::min(best, ms);
  }
  return c.n_layer * best;
}

// One layer of GemmFloorMs.
double GemmLayerMs(const ModelConfig& c, int n) {
  auto rnd = [](int r, int k) { RowMatrix m = RowMatrix::Random(r, k); return m; };
  const int d = c.d_model, qkv = c.q_dim() + 2 * c.kv_dim(), ff = c.d_ff, dh = c.d_head;
  const RowMatrix x = rnd(n, d), w_qkv = rnd(d, qkv), w_o = rnd(c.q_dim(), d), w_up = rnd(d, ff),
                  w_down = rnd(ff, d), z = rnd(n, c.q_dim()), h = rnd(n, ff), q = rnd(n, dh), kk = rnd(n, dh);
  RowMatrix out_qkv(n, qkv), out_o(n, d), out_up(n, ff), out_down(n, d);
  const bool causal = !c.recipe.bidirectional;
  const int blocks = (n + 255) / 256;
  const auto t = std::chrono::steady_clock::now();
  // The projections and the MLP through the engine's one product (MatMulTiled: tiles over the team; Eigen never
  // threads a product in this project), as the forward runs them.
  auto product = [](const RowMatrix& a, const RowMatrix& b, RowMatrix* out) {
    MatMulTiled(a.data(), (size_t)a.cols(), (size_t)a.rows(), (size_t)a.cols(), b.data(), (size_t)b.cols(),
                WeightLayout::kInOut, (size_t)b.cols(), out->data(), (size_t)out->cols());
  };
  product(x, w_qkv, &out_qkv);
  product(z, w_o, &out_o);
  for (int g = 0; g < (c.recipe.gated_mlp ? 2 : 1); ++g) product(x, w_up, &out_up);
  product(h, w_down, &out_down);
  // (head, block of rows) items over the team, one-thread products inside (as the attention kernel runs them)
#pragma omp parallel
  {
    RowMatrix s(256, n), pv(256, dh);
#pragma omp for schedule(dynamic)
    for (int item = 0; item < c.n_head * blocks; ++item) {
      const int r0 = item % blocks * 256;
      const int rows = std::min(256, n - r0), keys = causal ? std::min(n, r0 + rows) : n;
      s.topLeftCorner(rows, keys).noalias() = q.middleRows(r0, rows) * kk.topRows(keys).transpose();
      pv.topRows(rows).noalias() = s.topLeftCorner(rows, keys) * kk.topRows(keys);
    }
  }
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

// The CLI's forward alone (as LongRows' step 2): one warm-up, then `reps` timed; prints "CLI forward: median M ms
// (runs: ...)". long.sh runs it right before each app run, so each app time has a CLI time of the same minute;
// run.sh beside PyTorch (issue 22's "CLI's forward with every map made"). json_path: {"median_ms", "runs_ms"}.
// --patching: PatchActivations over every head against 2 x n_layer x n_head forwards (median of reps each).
int PatchingRows(const Model& model, const std::vector<int>& ids, int reps, const std::string& json_path) {
  const ModelConfig& c = model.config();
  std::vector<int> clean = ids;
  clean[0] = (clean[0] + 1) % c.vocab;
  RunOptions o;
  o.stream_maps = true;  // as the patching's runs: no maps
  Discard discard;
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  PatchingOptions po;
  po.residual = false;
  // Alternated pairs (a forward, then the patching), the first pair a warm-up: the machine's drift between minutes
  // falls on both sides of each pair's ratio.
  std::vector<double> forward_ms, patch_ms, ratios;
  for (int r = 0; r < reps + 1; ++r) {
    auto s = std::chrono::steady_clock::now();
    if (Status st = RunModel(model, ids, o, &discard); !st) return std::fprintf(stderr, "%s\n", st.message().c_str()), 2;
    const double f = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - s).count();
    s = std::chrono::steady_clock::now();
    auto p = PatchActivations(model, clean, ids, 1, 2, po);
    const double t = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - s).count();
    if (!p) return std::fprintf(stderr, "%s\n", p.message().c_str()), 2;
    if (r == 0) continue;
    forward_ms.push_back(f);
    patch_ms.push_back(t);
    ratios.push_back(2.0 * c.n_layer * c.n_head * f / t);
  }
  const double forward = median(forward_ms), patching = median(patch_ms);
  const double naive = 2.0 * c.n_layer * c.n_head * forward;
  std::vector<double> sorted = ratios;
  std::sort(sorted.begin(), sorted.end());
  std::printf("patching every head (%d x %d) on %zu tokens: median %.1f ms; 2 x %d x %d forwards of %.1f ms: %.1f ms; "
              "(2 n_layer n_head forwards) / patching, median of %zu pairs: %.2fx (%.2f..%.2f)\n", c.n_layer, c.n_head,
              ids.size(), patching, c.n_layer, c.n_head, forward, naive, ratios.size(), median(ratios),
              sorted.front(), sorted.back());
  if (!json_path.empty())
    return WriteJson(json_path, {{"model_type", c.model_type}, {"n_layer", c.n_layer}, {"n_head", c.n_head},
                                 {"n", ids.size()}, {"threads", omp_get_max_threads()}, {"patching_ms", patching},
                                 {"forward_ms", forward}, {"naive_ms", naive}, {"runs_ms", patch_ms},
                                 {"ratio_median", median(ratios)}, {"ratios", ratios}});
  return 0;
}

// gemms (--gemms): after each timed run, the same GEMMs alone (GemmFloorMs, as --long's step 3), so that each CLI
// forward has its floor of the same minute; prints "CLI forward / GEMMs alone: median R (runs: ...)" and adds
// "gemm_floor_ms", "gemm_runs_ms" and "gemm_ratio" (the median of the runs' ratios) to the JSON.
int CliForwardRows(const Model& model, const std::vector<int>& ids, int reps, const std::string& json_path,
                   bool gemms = false) {
  Discard discard;
  RunOptions full;
  full.row_figures = true;
  std::vector<double> ms, gemm_ms, ratios;
  for (int r = 0; r < reps + 1; ++r) {
    const auto t = std::chrono::steady_clock::now();
    if (Status s = RunModel(model, ids, full, &discard); !s) {
      std::fprintf(stderr, "CLI forward: %s\n", s.message().c_str());
      return 2;
    }
    if (r > 0) ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count());
    if (r > 0 && gemms) {
      gemm_ms.push_back(GemmFloorMs(model.config(), (int)ids.size()));
      ratios.push_back(ms.back() / gemm_ms.back());
    }
  }
  auto median = [](std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; };
  std::printf("CLI forward: median %.0f ms (runs:", median(ms));
  for (double v : ms) std::printf(" %.0f", v);
  std::printf(")\n");
  if (gemms) {
    std::printf("GEMMs alone: median %.0f ms; CLI forward / GEMMs alone: median %.2fx (runs:", median(gemm_ms),
                median(ratios));
    for (double v : ratios) std::printf(" %.2f", v);
    std::printf(")\n");
  }
  if (json_path.empty()) return 0;
  nlohmann::json j = {{"median_ms", median(ms)}, {"runs_ms", ms}};
  if (gemms) j["gemm_floor_ms"] = median(gemm_ms), j["gemm_runs_ms"] = gemm_ms, j["gemm_ratio"] = median(ratios);
  return WriteJson(json_path, j);
}

int LongRows(const Model& model, const ModelConfig& c, const std::vector<int>& ids, int reps, const std::string& dir,
             const std::string& json_path, const std::string& roles_csv) {
  const int n = (int)ids.size();
  std::vector<double> app_first, app_all, cli_all, gemm, layer_qk;
  double app_rss = 0;
  for (int r = 0; r < reps + 1; ++r) {  // the first round warms up
    // 1. The app's way: maps streamed into pyramids, each layer's input kept.
    RunOptions o;
    o.stream_maps = true;
    o.row_figures = true;
    const std::vector<attnviz::tokenize::Token> tokens = BareTokens(ids);
    const attnviz::CollectPlan plan = attnviz::CollectPlan::ForSession(/*stream=*/true);
    o.caller_bytes = (size_t)attnviz::CollectedBytes(c, n, plan);
    const auto t0 = std::chrono::steady_clock::now();
    double first_ms = 0;
    attnviz::LayerCollector sink(model, o, tokens, plan, {}, [&](const attnviz::LayerCollector& so_far) {
      if (so_far.collected().layers_done == 1)
        first_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    });
    const double cpu0 = CpuSeconds();
    if (Status s = RunModel(model, ids, o, &sink); !s) {
      std::fprintf(stderr, "%s\n", s.message().c_str());
      return 2;
    }
    const double all = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    const double cpu_app = CpuSeconds() - cpu0;
    // The head roles of the streamed run, as the app's session scores them (a test compares the two).
    if (r == 0 && !roles_csv.empty())
      if (Status s = WriteFileAtomic(roles_csv, HeadRolesCsv(sink.collected().roles)); !s) {
        std::fprintf(stderr, "%s\n", s.message().c_str());
        return 2;
      }
    app_rss = std::max(app_rss, PeakRssMb());
    //    The layer the app shows: its q and k made from its input (WithExactRows), once per layer chosen.
    const int mid = c.n_layer / 2;
    Tensor q, k;
    const auto tq = std::chrono::steady_clock::now();
    if (Status s = LayerQk(model, mid, sink.collected().resume_inputs[(size_t)mid]->data(), n, &q, &k); !s) {
      std::fprintf(stderr, "LayerQk: %s\n", s.message().c_str());
      return 2;
    }
    const double qk = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - tq).count();
    // 2. The CLI's forward (attnviz-cli model --dump without the disk): each layer's whole maps made into one
    //    reused buffer, the row figures too.
    Discard discard;
    RunOptions full;
    full.row_figures = true;
    const auto t1 = std::chrono::steady_clock::now();
    const double cpu1 = CpuSeconds();
    if (Status s = RunModel(model, ids, full, &discard); !s) {
      std::fprintf(stderr, "CLI forward: %s\n", s.message().c_str());
      return 2;
    }
    const double cli = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t1).count();
    const double cpu_cli = CpuSeconds() - cpu1;
    // 3. The GEMMs alone.
    const double g = GemmFloorMs(c, n);
    std::printf("  round %d: app-like first layer %.0f ms, all %.0f ms (CPU %.1f s), a shown layer's q and k %.0f ms; "
                "CLI forward %.0f ms (CPU %.1f s); GEMMs alone %.0f ms%s\n", r, first_ms, all, cpu_app, qk, cli,
                cpu_cli, g, r == 0 ? " (warm-up)" : "");
    std::fflush(stdout);
    if (r == 0) continue;
    app_first.push_back(first_ms), app_all.push_back(all), cli_all.push_back(cli), gemm.push_back(g);
    layer_qk.push_back(qk);
  }
  auto median = [](std::vector<double> v) { std::sort(v.begin(), v.end()); return v[v.size() / 2]; };
  struct stat st;
  const double weights_mb = ::stat((dir + "/model.safetensors").c_str(), &st) == 0 ? st.st_size / 1048576.0 : 0;
  const double first = median(app_first), all = median(app_all), cli = median(cli_all), g = median(gemm);
  std::printf("n = %d: streamed first layer %.0f ms, all layers %.0f ms (%.2fx the CLI forward %.0f ms); CLI forward "
              "%.2fx its GEMMs alone (%.0f ms); peak RSS while streaming %.0f MB (weights %.0f MB)\n",
              n, first, all, all / cli, cli, cli / g, g, app_rss, weights_mb);
  if (!json_path.empty())
    return WriteJson(json_path, {{"model_type", c.model_type}, {"n_layer", c.n_layer}, {"n_head", c.n_head}, {"n", n},
                                 {"threads", omp_get_max_threads()}, {"first_layer_ms", first}, {"all_layers_ms", all},
                                 {"cli_forward_ms", cli}, {"gemm_floor_ms", g}, {"streamed_peak_rss_mb", app_rss},
                                 {"weights_mb", weights_mb}, {"layer_qk_ms", median(layer_qk)}});
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir, compare, arch = "gpt2", json_path, gguf, ids_file, roles_csv;
  int n = 1024, reps = 3;
  bool stream = true, long_rows = false, stream_only = false, cli_forward_only = false, patching = false, gemms = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--dir" && i + 1 < argc) dir = argv[++i];
    else if (a == "--n" && i + 1 < argc) n = std::atoi(argv[++i]);
    else if (a == "--reps" && i + 1 < argc) reps = std::atoi(argv[++i]);
    else if (a == "--compare" && i + 1 < argc) compare = argv[++i];
    else if (a == "--arch" && i + 1 < argc) arch = argv[++i];
    else if (a == "--json" && i + 1 < argc) json_path = argv[++i];
    else if (a == "--no-stream") stream = false;
    else if (a == "--long") long_rows = true;
    else if (a == "--stream-only") stream_only = true;
    else if (a == "--cli-forward-only") cli_forward_only = true;
    else if (a == "--gemms") gemms = true;
    else if (a == "--patching") patching = true;
    else if (a == "--gguf" && i + 1 < argc) gguf = argv[++i];
    else if (a == "--ids-file" && i + 1 < argc) ids_file = argv[++i];
    else if (a == "--roles-csv" && i + 1 < argc) roles_csv = argv[++i];
    else if (a == "--make-gguf" && i + 1 < argc) return MakeGguf(argv[++i]);
    else {
      std::fprintf(stderr, "usage: %s [--dir DIR | --arch gpt2|llama|smollm2|qwen3|gemma2] [--n 1024] [--reps 3] [--compare DIR] "
                   "[--no-stream] [--stream-only] [--long [--roles-csv FILE]] [--cli-forward-only [--gemms]] [--patching] [--gguf FILE] [--make-gguf FILE] "
                   "[--json FILE] [--ids-file FILE]\n", argv[0]);
      return 2;
    }
  }
  if (dir.empty() && gguf.empty()) {
    if (arch != "gpt2" && arch != "llama" && arch != "smollm2" && arch != "qwen3" && arch != "gemma2") {
      std::fprintf(stderr, "--arch gpt2, llama, smollm2, qwen3 or gemma2\n");
      return 2;
    }
    dir = arch == "gpt2"      ? "/tmp/attnviz_bench_gpt2_small"
          : arch == "llama"   ? "/tmp/attnviz_bench_llama_small"
          : arch == "smollm2" ? "/tmp/attnviz_bench_smollm2"
          : arch == "qwen3"   ? "/tmp/attnviz_bench_qwen3"
                              : "/tmp/attnviz_bench_gemma2";
    struct stat st;
    if (::stat((dir + "/model.safetensors").c_str(), &st) != 0) {
      std::printf("writing a random %s checkpoint to %s ...\n", arch.c_str(), dir.c_str());
      std::fflush(stdout);
      const bool written = arch == "gpt2"      ? WriteRandomGpt2(dir)
                           : arch == "llama"   ? WriteRandomLlama(dir)
                           : arch == "smollm2" ? WriteRandomSmolLM2(dir)
                           : arch == "qwen3"   ? WriteRandomQwen3(dir)
                                               : WriteRandomGemma2(dir);
      if (!written) {
        std::fprintf(stderr, "cannot write %s\n", dir.c_str());
        return 2;
      }
    }
  }
  auto t0 = std::chrono::steady_clock::now();
  auto model = gguf.empty() ? LoadModel(dir) : LoadGgufModel(gguf);
  if (!model) {
    std::fprintf(stderr, "%s\n", model.message().c_str());
    return 2;
  }
  const double load_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  const ModelConfig& c = (*model)->config();
  std::printf("%s\nload %.1f ms; %d OpenMP threads; n = %d\n", (*model)->Describe().c_str(), load_ms,
              omp_get_max_threads(), n);
  std::vector<int> ids(n);
  for (int i = 0; i < n; ++i) ids[i] = (int)((i * 7919L) % c.vocab);
  if (!ids_file.empty()) {  // a JSON array of token ids instead (n is its length)
    // Bounded like every file the programs read: an ids file of the longest input is well under this.
    constexpr size_t kMaxIdsFileBytes = size_t(16) << 20;
    Result<std::string> text = ReadFile(ids_file, kMaxIdsFileBytes, "token ids file");
    if (!text) return std::fprintf(stderr, "%s\n", text.message().c_str()), 2;
    nlohmann::json parsed = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
    if (!parsed.is_array() || parsed.empty()) {
      std::fprintf(stderr, "%s: not a JSON array of token ids\n", ids_file.c_str());
      return 2;
    }
    ids.clear();
    for (const nlohmann::json& id : parsed) {
      if (!id.is_number_integer() || id.get<long>() < 0 || id.get<long>() >= c.vocab) {
        std::fprintf(stderr, "%s: %s is not a token id of the model (0..%d)\n", ids_file.c_str(), id.dump().c_str(),
                     c.vocab - 1);
        return 2;
      }
      ids.push_back(id.get<int>());
    }
    n = (int)ids.size();
  }
  if (long_rows) return LongRows(**model, c, ids, std::max(1, reps), dir, json_path, roles_csv);
  if (patching) return PatchingRows(**model, ids, std::max(1, reps), json_path);
  if (cli_forward_only) return CliForwardRows(**model, ids, std::max(1, reps), json_path, gemms);
  std::vector<double> ms;
  for (int r = 0; r < (stream_only ? 0 : reps + 1); ++r) {  // the first run warms up (page faults of the map, allocations)
    auto s = std::chrono::steady_clock::now();
    auto run = RunModel(**model, ids);
    const double t = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - s).count();
    if (!run) {
      std::fprintf(stderr, "%s\n", run.message().c_str());
      return 2;
    }
    if (r > 0) ms.push_back(t);
    if (r == 0 && !compare.empty()) {
      const size_t per = (size_t)c.n_head * n * n, nd = (size_t)n * c.d_model;
      const struct {
        const char* file;
        const float* got;
        size_t count;
      } checks[] = {{"probs_first.npy", run->probs.data.data(), per},
                    {"probs_last.npy", run->probs.data.data() + (size_t)(c.n_layer - 1) * per, per},
                    {"hidden_last.npy", run->hidden.data.data() + (size_t)c.n_layer * nd, nd}};
      for (const auto& ch : checks) {
        auto want = ReadNpy(compare + "/" + ch.file);
        if (!want || want->size() != ch.count) {
          std::fprintf(stderr, "%s: %s\n", ch.file, want ? "size differs" : want.message().c_str());
          return 2;
        }
        double worst = 0;
        for (size_t i = 0; i < ch.count; ++i) worst = std::max(worst, (double)std::fabs(ch.got[i] - want->data[i]));
        std::printf("  vs torch %s: max |diff| %.2e\n", ch.file, worst);
      }
    }
    std::printf("  run %d: %.1f ms%s\n", r, t, r == 0 ? " (warm-up)" : "");
  }
  // The same into a sink that keeps nothing (Discard).
  Discard discard;
  std::vector<double> ms_stream;
  for (int r = 0; r < (stream || stream_only ? reps + stream_only : 0); ++r) {  // --stream-only: + a warm-up
    auto s = std::chrono::steady_clock::now();
    if (Status st = RunModel(**model, ids, RunOptions{}, &discard); !st) return 2;
    ms_stream.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - s).count());
  }
  if (stream_only && !ms_stream.empty()) ms_stream.erase(ms_stream.begin());  // the warm-up
  std::sort(ms_stream.begin(), ms_stream.end());
  if (!ms_stream.empty())
    std::printf("attnviz forward, streamed to a sink that keeps nothing: median %.1f ms, %.1f GFLOP/s\n",
                ms_stream[ms_stream.size() / 2], FlopsPerRun(c, n) / ms_stream[ms_stream.size() / 2] / 1e6);
  if (stream_only) ms = ms_stream;
  std::sort(ms.begin(), ms.end());
  const double med = ms[ms.size() / 2];
  if (!stream_only) std::printf("attnviz forward, all probs [%d, %d, %d, %d] + hidden kept: median %.1f ms, %.1f GFLOP/s\n", c.n_layer,
              c.n_head, n, n, med, FlopsPerRun(c, n) / med / 1e6);
  // Memory: the checkpoint's bytes (F32 here: mapped in place), the kept maps, and the peak RSS of this process.
  struct stat st;
  const std::string weights_file = gguf.empty() ? dir + "/model.safetensors" : gguf;
  const double weights_mb = ::stat(weights_file.c_str(), &st) == 0 ? st.st_size / 1048576.0 : 0;
  const double maps_mb = stream_only ? (double)c.n_head * n * n * 4 / 1048576.0  // one layer's maps, reused
                                     : ((double)c.n_layer * c.n_head * n * n + (double)(c.n_layer + 1) * n * c.d_model) * 4 / 1048576.0;
  const double rss_mb = PeakRssMb(), budget_mb = weights_mb + maps_mb + 300;
  std::printf("peak RSS %.0f MB; budget weights %.0f + maps %.0f + 300 = %.0f MB: %s\n", rss_mb, weights_mb, maps_mb,
              budget_mb, rss_mb <= budget_mb ? "within" : "OVER");
  if (!json_path.empty())
    return WriteJson(json_path, {{"model_type", c.model_type}, {"n_layer", c.n_layer}, {"n_head", c.n_head},
                                 {"n_kv_head", c.n_kv_head}, {"d_model", c.d_model}, {"n", n},
                                 {"threads", omp_get_max_threads()}, {"median_ms", med}, {"runs_ms", ms},
                                 {"load_ms", load_ms}, {"peak_rss_mb", rss_mb}, {"weights_mb", weights_mb},
                                 {"maps_mb", maps_mb}, {"format", (*model)->format()},
                                 {"types", (*model)->TensorTypes()},
                                 {"resident_float_mb", (*model)->ResidentFloatBytes(true) / 1048576.0},
                                 {"stream_only", stream_only}});
  return 0;
}
