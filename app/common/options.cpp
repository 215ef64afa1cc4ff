#include "options.h"

#include <pwd.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "data_dir.h"
#include "i18n/app_messages.h"
#include "io/file_io.h"
#include "base/parse_number.h"
#include "sandbox/weights.h"

namespace attnviz {

Result<std::string> TakeValue(const std::vector<std::string>& args, size_t* i) {
  if (*i + 1 >= args.size()) return AppError(AppMsgId::kMissingValue, {args[*i]});
  ++*i;
  return args[*i];
}

bool OptionTakesValue(const std::string& option) {
  static const char* const kValued[] = {
      // the shared input options (ParseInputOption)
      "--text", "--text-file", "--line", "--query-text", "--weights", "--d-model", "--heads", "--dk", "--dv",
      "--temperature", "--mask", "--seed", "--qkv", "--query-from", "--key-from", "--value-from", "--score",
      "--softcap",
      // attnviz-cli compute, export, sweep, model and the figure options (cli_figure_options.h)
      "--dump", "--out", "--format", "--head", "--plot", "--seeds", "--dks", "--random-tokens", "--model", "--layers",
      "--predict", "--ablate", "--ablate-mode", "--logit-lens", "--attribute", "--patch-from", "--metric", "--neuron", "--kind",
      "--scan-at", "--target-text", "--generate", "--stack", "--figure", "--layer", "--colormap", "--color-scale", "--range", "--cell-size", "--width", "--title", "--size",
      "--dpi", "--pool", "--pool-mode",
      // attnviz (app/gui/app.cpp ParseAppOptions)
      "--shader-dir", "--screenshot", "--frames", "--widgets-json", "--snapshot-path", "--bench-frames", "--lang"};
  for (const char* v : kValued)
    if (option == v) return true;
  return false;
}

std::string ExpandHome(const std::string& path) {
  if (path.empty() || path[0] != '~') return path;
  size_t slash = path.find('/');
  std::string user = path.substr(1, slash == std::string::npos ? std::string::npos : slash - 1);
  std::string rest = slash == std::string::npos ? "" : path.substr(slash);
  std::string home;
  if (user.empty()) {
    const char* env = std::getenv("HOME");
    if (env && *env) home = env;
    else if (const passwd* pw = getpwuid(getuid())) home = pw->pw_dir ? pw->pw_dir : "";
  } else if (const passwd* pw = getpwnam(user.c_str())) {
    home = pw->pw_dir ? pw->pw_dir : "";
  }
  if (home.empty()) return path;
  if (home.size() > 1 && home.back() == '/') home.pop_back();
  return home + rest;
}

Result<std::string> TakePathValue(const std::vector<std::string>& args, size_t* i) {
  Result<std::string> v = TakeValue(args, i);
  if (!v) return v;
  return ExpandHome(*v);
}

Result<int> ParseIntValue(const std::string& option, const std::string& value, int lo, int hi) {
  Result<long long> v = ParseInteger(value, lo, hi);
  if (!v) return Status::Prefixed(MsgId::kPrefixContext, {option}, v.status());
  return (int)*v;
}

Result<double> ParseDoubleValue(const std::string& option, const std::string& value, double lo, double hi) {
  Result<double> v = ParseReal(value, lo, hi);
  if (!v) return Status::Prefixed(MsgId::kPrefixContext, {option}, v.status());
  return *v;
}

bool IsGgufFile(const std::string& path) {
  if (!IsRegularFile(path)) return false;
  if (path.size() > 5) {
    std::string ext = path.substr(path.size() - 5);
    for (char& ch : ext) ch = (char)std::tolower((unsigned char)ch);
    if (ext == ".gguf") return true;
  }
  char magic[4] = {};
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  const size_t got = std::fread(magic, 1, 4, f);
  std::fclose(f);
  return got == 4 && std::memcmp(magic, "GGUF", 4) == 0;
}

namespace {

// A positional path: a model folder (config.json inside), a .gguf file (IsGgufFile) or a sentence file. One of each
// at most.
Status ParsePositional(const std::string& path, InputOptions* o) {
  if (IsFolder(path) || IsGgufFile(path)) {
    if (IsFolder(path) && !IsRegularFile(path + "/config.json"))
      return AppError(AppMsgId::kFolderWithoutConfig, {path});
    if (!o->model_dir.empty() && o->model_dir != path)
      return AppError(AppMsgId::kTwoModelFolders, {o->model_dir, path});
    o->model_dir = path;
    return Status::Ok();
  }
  if (!o->text_file.empty() && o->text_file != path)
    return AppError(AppMsgId::kTwoSentenceFiles, {o->text_file, path});
  o->text_file = path;
  return Status::Ok();
}

}  // namespace

bool ParseInputOption(const std::vector<std::string>& args, size_t* i, InputOptions* o, Status* error) {
  const std::string& a = args[*i];
  if (!a.empty() && a[0] != '-') {
    *error = ParsePositional(ExpandHome(a), o);
    return true;
  }
  AttentionConfig& c = o->config;
  auto value = [&]() -> Result<std::string> { return TakeValue(args, i); };
  auto set_string = [&](std::string* dst) {
    auto v = value();
    if (!v) *error = v.status(); else *dst = *v;
  };
  auto set_path = [&](std::string* dst) {
    auto v = TakePathValue(args, i);
    if (!v) *error = v.status(); else *dst = *v;
  };
  auto set_int = [&](int* dst, int lo, int hi) {
    auto v = value();
    if (!v) { *error = v.status(); return; }
    auto n = ParseIntValue(a, *v, lo, hi);
    if (!n) *error = n.status(); else *dst = *n;
  };
  // Enum-valued options: parse(value) -> Result<T>.
  auto set_choice = [&](auto* dst, auto parse) {
    auto v = value();
    if (!v) { *error = v.status(); return; }
    auto parsed = parse(*v);
    if (!parsed) *error = Status::Prefixed(MsgId::kPrefixContext, {a}, parsed.status()); else *dst = *parsed;
  };
  if (a == "--text") {
    set_string(&o->text);
  } else if (a == "--text-file") {
    set_path(&o->text_file);
  } else if (a == "--samples") {
    const DataDir& data = FindDataDir();
    if (data.root.empty())
      *error = Status::Error("--samples: the sample sentences were not found (looked in " + data.searched + ")");
    else
      o->text_file = data.samples();
  } else if (a == "--line") {
    set_int(&o->line, 1, 1 << 30);
  } else if (a == "--query-text") {
    set_string(&o->query_text);
  } else if (a == "--weights") {
    set_path(&o->weights_dir);
  } else if (a == "--d-model") {
    set_int(&c.d_model, 1, kMaxDModel);
  } else if (a == "--heads") {
    set_int(&c.n_head, 1, kMaxHeads);
  } else if (a == "--dk") {
    set_int(&c.d_k, 1, kMaxHeadDim);
    o->d_k_set = true;
  } else if (a == "--dv") {
    set_int(&c.d_v, 1, kMaxHeadDim);
    o->d_v_set = true;
  } else if (a == "--no-scale") {
    c.scale = false;
  } else if (a == "--scale") {
    c.scale = true;
  } else if (a == "--temperature") {
    auto v = value();
    if (!v) { *error = v.status(); return true; }
    auto t = ParseDoubleValue(a, *v, kMinTemperature, kMaxTemperature);
    if (!t) *error = t.status(); else c.temperature = (float)*t;
  } else if (a == "--qk-norm") {
    c.qk_norm = true;
  } else if (a == "--softcap") {
    auto v = value();
    if (!v) { *error = v.status(); return true; }
    auto t = ParseDoubleValue(a, *v, 0.0, kMaxSoftcap);
    if (!t) *error = t.status(); else c.softcap = (float)*t;
  } else if (a == "--mask") {
    set_choice(&c.mask, ParseMask);
  } else if (a == "--seed") {
    auto v = value();
    if (!v) { *error = v.status(); return true; }
    auto seed = ParseUnsigned64(*v);
    if (!seed) *error = Status::Prefixed(MsgId::kPrefixContext, {a}, seed.status()); else c.seed = *seed;
  } else if (a == "--no-positional") {
    c.positional = false;
  } else if (a == "--qkv") {
    set_choice(&c.qkv, ParseQkvLayout);
  } else if (a == "--query-from") {
    set_choice(&c.query_from, ParseFeatureSource);
  } else if (a == "--key-from") {
    set_choice(&c.key_from, ParseFeatureSource);
  } else if (a == "--value-from") {
    set_choice(&c.value_from, ParseFeatureSource);
  } else if (a == "--score") {
    set_choice(&c.score, ParseScoreKind);
  } else {
    return false;
  }
  return true;
}

std::string InputOptionsHelp() {
  return "Text (one of):\n"
         "  --text TEXT            the sentence (keys and values; queries too in self mode)\n"
         "  --text-file FILE       a sentence file (one item per line; QUERY ||| KEY/VALUE for cross)\n"
         "  FILE                   the same as --text-file FILE\n"
         "  --samples              the sample sentences that come with attnviz (see --print-paths)\n"
         "  --line N               the item on line N of --text-file (default: the first item)\n"
         "  --query-text TEXT      cross mode: queries from TEXT, keys and values from --text\n"
         "Attention config:\n"
         "  --d-model N            embedding width, 1..4096 (default 64)\n"
         "  --heads N              number of heads, 1..64 (default 4)\n"
         "  --dk N                 query/key width per head, 1..4096 (default d_model/heads)\n"
         "  --dv N                 value width per head, 1..4096 (default d_k)\n"
         "  --no-scale             do not divide logits by sqrt(d_k)\n"
         "  --temperature T        logits divided by T, 1e-06..1e+06 (default 1)\n"
         "  --qk-norm              RMS-norm every q and k over d_k before the score (Qwen3, OLMo 2, Gemma 3)\n"
         "  --softcap C            logits capped to C * tanh(logit / C) (Gemma 2), 0..10000 (default 0: none)\n"
         "  --mask none|causal     causal: query i sees keys 0..i (self mode only)\n"
         "  --seed N               embeddings and weight init (default 0)\n"
         "  --no-positional        no sinusoidal positional encoding\n"
         "  --qkv fused|separate   one [d_model, n_head*(2*d_k+d_v)] matrix or three (default fused)\n"
         "  --query-from F         where queries come from: embedding (projected, default), length (characters,\n"
         "                         width 1), position (index, width 1), onehot (token identity, width n_vocab);\n"
         "                         raw features skip the projection. A score needs d_q = d_k\n"
         "  --key-from F           where keys come from (the same choices)\n"
         "  --value-from F         where values come from (the same choices; d_v may differ)\n"
         "  --score S              scaled-dot (default), dot, additive (v^T tanh(W_q q + W_k k)), cosine,\n"
         "                         neg-distance (-|q - k|)\n"
         "  --weights DIR          load wq.npy wk.npy wv.npy wo.npy (float32/float64, C order)\n"
         "  MODEL_DIR              a model folder (with config.json) or a .gguf file\n";
}

Result<SentenceItem> ResolveInputText(const InputOptions& o) {
  if (!o.text.empty() && !o.text_file.empty()) return AppError(AppMsgId::kTextAndTextFile, {});
  if (o.line != 0 && o.text_file.empty()) return AppError(AppMsgId::kLineNeedsTextFile, {});
  SentenceItem chosen;
  if (!o.text_file.empty()) {
    auto items = LoadSentenceFile(o.text_file);
    if (!items) return items.status();
    const SentenceItem* found = &items->front();
    if (o.line != 0) {
      found = nullptr;
      std::string lines;
      for (const SentenceItem& item : *items) {
        if (item.line == o.line) found = &item;
        if (lines.size() < 60) lines += (lines.empty() ? "" : ", ") + std::to_string(item.line);
      }
      if (!found) {
        return AppError(AppMsgId::kNoSentenceOnLine, {o.text_file, std::to_string(o.line), lines});
      }
    }
    chosen = *found;
  } else if (o.text.empty()) {
    return AppError(AppMsgId::kNoText, {});
  } else {
    chosen.kv_text = o.text;
  }
  if (!o.query_text.empty()) chosen.query_text = o.query_text;
  return chosen;
}

Status PreparePipeline(const InputOptions& o, Pipeline* pipeline) {
  Result<SentenceItem> item = ResolveInputText(o);
  if (!item) return item.status();
  const std::string& kv_text = item->kv_text;
  const std::string& query_text = item->query_text;
  AttentionConfig config = o.config;
  config.mode = query_text.empty() ? AttentionMode::kSelf : AttentionMode::kCross;
  if (Status s = Validate(config); !s) return s;
  if (Status s = pipeline->SetText(kv_text, query_text); !s) {
    return Status::Prefixed(MsgId::kPrefixContext, {o.text_file.empty() ? std::string("--text") : o.text_file}, s);
  }
  if (Status s = pipeline->SetConfig(config); !s) return s;
  if (!o.weights_dir.empty()) {
    ProjectionWeights w;
    if (Status s = LoadWeights(o.weights_dir, config, &w); !s) return s;
    pipeline->SetLoadedWeights(w);
  }
  return Status::Ok();
}

}  // namespace attnviz
