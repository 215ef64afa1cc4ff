// attnviz-cli compute: run the forward pass and dump every tensor.
#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "cli_commands.h"
#include "i18n/help_ko.h"
#include "i18n/localized.h"
#include "cli_util.h"
#include "sandbox/exact_maps.h"
#include "io/file_io.h"
#include "io/npy.h"
#include "options.h"

namespace attnviz {
namespace {

const char* kComputeHelp =
    "usage: attnviz-cli compute (--text TEXT | --text-file FILE [--line N]) [options] [--dump DIR]\n"
    "Runs one multi-head attention layer and prints shapes and saturation figures per head.\n"
    "  --dump DIR             write tokens.json, x.npy, xq.npy, q.npy, k.npy, v.npy, logits.npy,\n"
    "                         probs.npy (the softmax output; weights.npy links to it), z.npy, out.npy\n"
    "                         (float32, PyTorch order) and metrics.json. Long inputs (more than 2^24 map cells)\n"
    "                         keep no full map: logits.npy and probs.npy are then streamed, a band of rows at a time\n";

// The maps [n_head, n_q, n_k] the run did not keep (long inputs, pooled mode): streamed into the .npy files
// head by head, a band of rows at a time, recomputed from q and k (StreamExactMaps: the same bits as a full
// map). Both probs.npy and logits.npy come from one recomputation per band.
Status StreamMaps(const AttentionTensors& t, const AttentionConfig& config, const std::string& probs_path,
                  const std::string& logits_path) {
  const size_t n_head = t.n_head(), n_q = t.n_q(), n_k = t.n_k();
  NpyStreamWriter probs_out, logits_out;
  if (Status s = probs_out.Open(probs_path, {n_head, n_q, n_k}); !s) return s;
  if (Status s = logits_out.Open(logits_path, {n_head, n_q, n_k}); !s) return s;
  std::vector<int> heads((size_t)n_head);
  for (size_t h = 0; h < n_head; ++h) heads[h] = (int)h;
  if (Status s = StreamExactMaps(t, heads, &probs_out, &logits_out); !s) return s;
  if (Status s = probs_out.Close(); !s) return s;
  return logits_out.Close();
}

// Every file goes into a staging folder first (DumpFolder): a dump that fails part-way leaves none.
Status Dump(const std::string& dir, const AttentionTensors& t, const AttentionConfig& config) {
  DumpFolder out;
  if (Status s = out.Begin(dir); !s) return s;
  const std::string tokens = "{\n  \"mode\": \"" + std::string(ToString(config.mode)) + "\",\n  \"query_tokens\": " +
                             TokensJson(t.query_tokens) + ",\n  \"key_tokens\": " + TokensJson(t.kv_tokens) + "\n}\n";
  if (Status s = WriteFileAtomic(out.Path("tokens.json"), tokens); !s) return s;
  std::vector<std::pair<const char*, const Tensor*>> files = {
      {"x.npy", t.x.get()}, {"xq.npy", t.xq.get()}, {"q.npy", t.q.get()},  {"k.npy", t.k.get()},
      {"v.npy", t.v.get()}, {"z.npy", t.z.get()},   {"out.npy", t.out.get()}};
  if (t.pooled) {
    if (Status s = StreamMaps(t, config, out.Path("probs.npy"), out.Path("logits.npy")); !s) return s;
  } else {
    files.push_back({"logits.npy", t.logits.get()});
    files.push_back({"probs.npy", t.probs.get()});
  }
  for (const auto& [name, tensor] : files) {
    if (Status s = WriteNpy(out.Path(name), *tensor); !s) return s;
  }
  if (Status s = WriteFileAtomic(out.Path("metrics.json"), MetricsJson(t, config)); !s) return s;
  // weights.npy: the name the softmax output had before round 2, kept working as a link to probs.npy.
  if (::symlink("probs.npy", out.Path("weights.npy").c_str()) != 0)
    return Status::Error(dir + "/weights.npy: cannot create the link to probs.npy");
  return out.Commit();
}

}  // namespace

int RunCompute(const std::vector<std::string>& args) {
  InputOptions options;
  std::string dump_dir;
  for (size_t i = 0; i < args.size(); ++i) {
    Status error;
    if (ParseInputOption(args, &i, &options, &error)) {
      if (!error) return UsageError("compute", Localized(error));
      continue;
    }
    if (args[i] == "--help" || args[i] == "-h") {
      std::printf("%s%s", HelpText(Help::kCompute, kComputeHelp),
                  HelpText(Help::kInputOptions, InputOptionsHelp().c_str()));
      return 0;
    }
    if (args[i] == "--dump") {
      auto v = TakePathValue(args, &i);
      if (!v) return UsageError("compute", Localized(v));
      dump_dir = *v;
      continue;
    }
    return UsageError("compute", Trf(Str::kCliUnknownOption, {CappedValue(args[i]), "compute"}));
  }
  if (Status s = RefuseModelFolder(options, "compute"); !s) return UsageError("compute", Localized(s));
  Pipeline pipeline;
  if (Status s = PreparePipeline(options, &pipeline); !s) return UsageError("compute", Localized(s));
  if (Status s = pipeline.Run(Stage::kOutput); !s) return UsageError("compute", Localized(s));
  const AttentionTensors& t = pipeline.tensors();
  const AttentionConfig& c = pipeline.config();
  const Str mode = c.mode == AttentionMode::kCross ? Str::kModeCross : Str::kModeSelf;
  const Str mask = c.mask == MaskKind::kCausal ? Str::kMaskCausal : Str::kMaskNone;
  // Describe() opens with "d_k=N · ", which the line already says beside d_v: the rest (scaling, T, sources).
  std::string described = LocalizedDescribe(c);
  if (const size_t dot = described.find(kTitleDot); described.rfind("d_k=", 0) == 0 && dot != std::string::npos)
    described.erase(0, dot + std::string(kTitleDot).size());
  // The widths the run has: q and k from word length or position are 1 wide whatever --dk says.
  const size_t d_k = t.q ? t.q->dim(2) : (size_t)c.head_dim_k(), d_v = t.v ? t.v->dim(2) : (size_t)c.head_dim_v();
  std::printf("%s\n", Trf(Str::kCliComputeSummary, {Tr(mode), std::to_string(t.n_q()), std::to_string(t.n_k()),
                                                    std::to_string(c.d_model), std::to_string(c.n_head),
                                                    std::to_string(d_k), std::to_string(d_v), described, Tr(mask)}).c_str());
  if (t.pooled) {
    char mib[32];
    std::snprintf(mib, sizeof mib, "%.1f", t.pyramid ? t.pyramid->bytes() / 1048576.0 : 0.0);
    std::printf("%s\n", Trf(Str::kCliPooled, {std::to_string(t.n_head()), std::to_string(t.n_q()), std::to_string(t.n_k()),
                                               mib}).c_str());
  }
  std::printf("x %s  xq %s  q %s  k %s  v %s\nlogits %s  probs %s  z %s  out %s\n", ShapeString(t.x->shape).c_str(),
              ShapeString(t.xq->shape).c_str(), ShapeString(t.q->shape).c_str(), ShapeString(t.k->shape).c_str(),
              ShapeString(t.v->shape).c_str(), ShapeString(t.logits->shape).c_str(), ShapeString(t.probs->shape).c_str(),
              ShapeString(t.z->shape).c_str(), ShapeString(t.out->shape).c_str());
  std::printf("%-6s %10s %10s %12s %10s %10s\n", "head", "max_w", "entropy", "norm_entropy", "grad", "logit_std");
  for (size_t h = 0; h < t.metrics.size(); ++h) {
    const HeadMetrics& m = t.metrics[h];
    std::printf("%-6zu %10.4f %10.4f %12.4f %10.4f %10.4f\n", h, m.max_weight, m.entropy, m.norm_entropy,
                m.grad_norm, m.logit_std);
  }
  if (!dump_dir.empty()) {
    if (Status s = Dump(dump_dir, t, c); !s) return UsageError("compute", Localized(s));
    std::printf("%s\n", Trf(Str::kCliDumpWritten, {dump_dir}).c_str());
  }
  return 0;
}

}  // namespace attnviz
