// The one list of what stays in Latin letters under --lang ko, and the check that finds any other English word in a
// Korean text. Both the widget labels (PanelTest.KoreanLabelsCarryNoEnglishWordOutsideTheKeptNames) and every Korean
// table entry and help text (I18n.KoreanTextsCarryNoEnglishWordOutsideTheKeptNames) are held to it, and docs/app.md's
// section "What stays in English under --lang ko" lists exactly these words (I18n.DocsListTheKeptLatinWordsExactly).
#pragma once
#include <cctype>
#include <set>
#include <utility>
#include <string>
#include <vector>

namespace attnviz {

// Grouped as docs/app.md groups them; a command-line option as typed (--text, --model, ...) is kept by its leading
// "--" and is not listed.
inline const std::vector<std::pair<std::string, std::vector<std::string>>>& KeptLatinGroups() {
  static const std::vector<std::pair<std::string, std::vector<std::string>>> kGroups = {
      {"math", {"d_k", "d_v", "d_q", "d_model", "d_head", "d_ff", "n_head", "n_kv_head", "n_q", "n_k", "n_vocab",
                "n_layer", "nb", "W_q", "W_k", "W_v", "W_o", "W_qkv", "QKV", "z_i", "p_ij", "q_i", "k_j", "v_j",
                "softmax", "sqrt", "log", "log10", "nats", "NaN", "Inf", "top-k", "tanh", "gelu", "erf", "silu", "relu",
                "swish", "RMS"}},
      {"tensors", {"probs", "batch", "seq", "head", "view", "transpose", "float32", "float64", "RoPE", "LM", "dict",
                   "PyTorch", "Linear"}},
      {"units", {"dpi", "pt", "px", "in", "cm", "mm", "ms", "MiB", "Ctrl", "UTF-8", "FIFO"}},
      {"formats", {"PNG", "SVG", "PDF", "CSV", "NPY", "JSON", "png", "svg", "pdf", "csv", "npy", "json", ".png", ".svg",
                   ".pdf", ".csv", ".npy", ".json", ".gguf", ".ppm", "GGUF", "safetensors", "pHYs", "x93NUMPY",
                   "Helvetica"}},
      {"files", {"config.json", "model.safetensors", "model.safetensors.index.json", "pytorch_model.bin",
                 "tokenizer.json", "vocab.json", "vocab.txt", "merges.txt", "tokens.json", "metrics.json", "logits.npy",
                 "probs.npy", "x.npy", "xq.npy", "q.npy", "k.npy", "v.npy", "z.npy", "out.npy", "weights.npy", "wq.npy",
                 "wk.npy", "wv.npy", "wo.npy", "attention.npy", "hidden.npy", "value_norm.npy", "rollout.npy",
                 "rollout.json", "roles.csv", "heatmap.vert", "heatmap.frag", "share", "shaders"}},
      {"programs", {"attnviz", "attnviz-cli", "tiny", "apt-get", "install", "stb_truetype", "StandardSweepOptions",
                    "SIGUSR1", "ATTNVIZ_FONT_DIR", "ATTNVIZ_MEMORY_LIMIT", "LANG", "LC_ALL", "LC_MESSAGES"}},
      {"models", {"GPT-2", "BERT", "Llama", "Qwen2", "Mistral", "Qwen3", "OLMo", "Gemma", "gpt2", "bert", "llama", "qwen2", "mistral", "gpt_neox", "gptneox", "phi3",
                  "roberta", "xlm-roberta", "llama3",
                  "Hugging", "Face", "save_pretrained", "llama.cpp", "Ollama", "Studio", "BPE", "SentencePiece", "gemma2", "gemma3", "gemma3_text", "qwen3", "olmo2",
                  "bart", "mbart", "marian", "mt5", "umt5"}},
      {"keys", {"model_type", "hidden_size", "num_attention_heads", "head_dim", "position_embedding_type", "absolute",
                "rope_scaling", "rope_type", "type", "rope", "high_freq_factor", "low_freq_factor", "default", "linear",
                "null", "true", "false", "use_sliding_window", "layer_norm_epsilon", "max_position_embeddings",
                "gelu_new", "gelu_pytorch_tanh", "gelu_fast", "__metadata__", "dtype", "shape", "data_offsets", "begin",
                "end", "weight_map", "BF16", "bf16", "BOOL", "F8_E4M3", "F8_E5M2", "special_tokens", "vocab", "id",
                "ids", "tokens", "model", "pattern", "String", "Regex", "behavior", "Removed", "Isolated",
                "MergedWithPrevious", "MergedWithNext", "Contiguous", "prepend_scheme", "always", "first", "never",
                "add_prefix_space", "dropout", "SpecialToken", "Sequence", "max_input_chars_per_word", "descr",
                "fortran_order", "Fortran", "general.alignment", "general.architecture", "ggml", "q2_K", "q3_K", "q4_K",
                "q5_K", "q6_K", "tokenizer.ggml.model", "tokenizer.ggml.pre", "rope_freqs.weight", "lm_head.weight",
                "cls.predictions", "ne", "attn_logit_softcapping", "final_logit_softcapping", "full_attention", "sliding_attention", "layer_types", "num_hidden_layers", "q_norm", "k_norm", "text_config", "query_pre_attn_scalar"}},
      {"command line", {"compute", "sweep", "export", "ablate", "FILE", "DIR", "OUT", "TEXT", "LIST", "NAME", "PX",
                        "WxH", "MODEL_DIR", "FILE.gguf", "FILE.csv", "FILE.png", "OUT.png", "OUT.svg", "OUT.pdf", "A-B", "a..g", "POS", "TOKEN", "CLEAN",
                        "1e-06..1e", "3.3x3in", "8x7cm", "8.4x7.6cm", "all", "fixed", "auto", "none", "causal",
                        "fused", "separate", "embedding", "length", "position", "onehot", "dot", "scaled-dot",
                        "additive", "cosine", "neg-distance", "en", "ko", "layer", "heads", "loss", "delta",
                        "previous_token", "induction", "first_token", "same_token", "local", "broad", "strongest",
                        "strongest_score", "attention", "rollout", "value_weighted", "zero", "mean", "max", "encoder",
                        "decoder", "cross", "SOURCE", "TARGET"}},
      {"colormaps", {"viridis", "magma", "inferno", "plasma", "cividis", "gray", "turbo", "blue-white-red"}},
      {"tokens", {"CLS", "SEP", "BOS", "MASK"}},
      {"citations", {"Abnar", "Zuidema", "Kobayashi", "et", "al"}},
      {"language", {"English"}},
  };
  return kGroups;
}

inline const std::set<std::string>& KeptLatinWords() {
  static const std::set<std::string> kKept = [] {
    std::set<std::string> kept;
    for (const auto& [group, words] : KeptLatinGroups()) kept.insert(words.begin(), words.end());
    return kept;
  }();
  return kKept;
}

// The words of `text` in Latin letters (2+ letters; '_', '-' and '.' join a word, as in d_model, GPT-2, config.json)
// that are not kept on purpose.
inline std::vector<std::string> EnglishWords(const std::string& text) {
  const std::set<std::string>& kept = KeptLatinWords();
  std::vector<std::string> found;
  std::string word;
  auto flush = [&] {
    while (!word.empty() && (word.back() == '.' || word.back() == '-')) word.pop_back();  // a sentence's full stop
    int letters = 0;
    for (char c : word) letters += std::isalpha((unsigned char)c) != 0;
    const bool option = word.rfind("--", 0) == 0;  // a command-line option, as typed
    if (letters >= 2 && !option && !kept.count(word)) found.push_back(word);
    word.clear();
  };
  for (char c : text + " ") {
    if ((unsigned char)c < 0x80 && (std::isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.')) word += c;
    else flush();
  }
  return found;
}

}  // namespace attnviz
