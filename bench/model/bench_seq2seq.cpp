// attnviz_seq2seq_bench: times the encoder-decoder forward pass as attnviz-cli model --dump makes it (RunSeq2Seq,
// every map of the three stacks and both residual streams kept) plus the LM head on every decoder position
// (Seq2SeqLogits), on a checkpoint folder written by bench/model/make_marian_bench.py (config.json,
// model.safetensors, ids.json). bench/model/torch_marian.py times PyTorch on the same folder; bench/model/seq2seq.sh
// alternates the two. Not part of CTest.
//
//   attnviz_seq2seq_bench --dir DIR [--reps 1] [--json FILE] [--dump OUT]
// --reps: timed runs after one warm-up (each printed; the median in the JSON).
// --dump OUT: after the runs, OUT/{encoder,decoder,cross}_attention.npy ([n_layer, n_head, n_q, n_k], as the
//   CLI's --dump names them) and OUT/logits.npy [n_tgt, decoder_vocab], for torch_marian.py --check OUT.
// --stages: also time the encoder alone (RunSeq2Seq over the same source and a 1-token decoder input) and the LM
//   head alone, to see where the time goes.
#include <omp.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/file_io.h"
#include "io/npy.h"
#include "model/seq2seq.h"
#include "model/seq2seq_run.h"

using namespace attnviz;
using namespace attnviz::model;

namespace {

double PeakRssMb() {
  struct rusage ru;
  ::getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss / 1024.0;  // KiB on Linux
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

double MsSince(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

// ids.json: {"source": [...], "decoder": [...]}. False (message on stderr) when it is not that.
bool ReadIds(const std::string& path, std::vector<int>* source, std::vector<int>* decoder) {
  Result<std::string> text = ReadFile(path, size_t(1) << 20, "token ids file");
  if (!text) return std::fprintf(stderr, "%s\n", text.message().c_str()), false;
  nlohmann::json j = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  for (const char* key : {"source", "decoder"}) {
    if (!j.is_object() || !j.contains(key) || !j[key].is_array() || j[key].empty()) {
      std::fprintf(stderr, "%s: expected {\"source\": [ids], \"decoder\": [ids]}, \"%s\" missing or empty\n",
                   path.c_str(), key);
      return false;
    }
    for (const auto& id : j[key]) {
      if (!id.is_number_integer()) return std::fprintf(stderr, "%s: \"%s\" holds a non-integer\n", path.c_str(), key), false;
    }
  }
  *source = j["source"].get<std::vector<int>>();
  *decoder = j["decoder"].get<std::vector<int>>();
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir, json_path, dump_dir;
  int reps = 1;
  bool stages = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--dir" && i + 1 < argc) dir = argv[++i];
    else if (a == "--reps" && i + 1 < argc) reps = std::max(1, std::atoi(argv[++i]));
    else if (a == "--json" && i + 1 < argc) json_path = argv[++i];
    else if (a == "--dump" && i + 1 < argc) dump_dir = argv[++i];
    else if (a == "--stages") stages = true;
    else {
      std::fprintf(stderr, "usage: %s --dir DIR [--reps 1] [--json FILE] [--dump OUT] [--stages]\n", argv[0]);
      return 2;
    }
  }
  if (dir.empty()) return std::fprintf(stderr, "--dir DIR (written by bench/model/make_marian_bench.py)\n"), 2;
  std::vector<int> source, decoder;
  if (!ReadIds(dir + "/ids.json", &source, &decoder)) return 2;
  const auto t_load = std::chrono::steady_clock::now();
  auto model = LoadSeq2SeqModel(dir);
  if (!model) return std::fprintf(stderr, "%s\n", model.message().c_str()), 2;
  const double load_ms = MsSince(t_load);
  const Seq2SeqModel& m = **model;
  std::printf("%s\nload %.0f ms; %d OpenMP threads; %zu source, %zu decoder tokens\n", m.Describe().c_str(), load_ms,
              omp_get_max_threads(), source.size(), decoder.size());

  // 1. The forward as the CLI's --dump makes it, plus the logits of every decoder position (what torch's
  //    MarianMTModel returns beside the maps). One warm-up, then `reps` timed runs.
  std::vector<double> ms;
  Seq2SeqRun last_run;
  Tensor last_logits;
  for (int r = 0; r < reps + 1; ++r) {
    const auto t = std::chrono::steady_clock::now();
    auto run = RunSeq2Seq(m, source, decoder);
    if (!run) return std::fprintf(stderr, "forward: %s\n", run.message().c_str()), 2;
    const int n_tgt = (int)decoder.size();
    const float* y = run->decoder_hidden.data.data() + (size_t)m.config().decoder.n_layer * n_tgt * m.config().d_model;
    auto logits = Seq2SeqLogits(m, y, n_tgt);
    if (!logits) return std::fprintf(stderr, "logits: %s\n", logits.message().c_str()), 2;
    if (r > 0) ms.push_back(MsSince(t));
    last_run = std::move(*run);
    last_logits = std::move(*logits);
  }
  std::printf("attnviz forward (every map kept) + logits: median %.0f ms (runs:", Median(ms));
  for (double v : ms) std::printf(" %.0f", v);
  std::printf(")\n");

  // 2. Where the time goes: the encoder with a 1-token decoder, and the LM head alone.
  nlohmann::json j = {{"median_ms", Median(ms)}, {"runs_ms", ms}, {"threads", omp_get_max_threads()},
                      {"n_src", source.size()}, {"n_tgt", decoder.size()}};
  if (stages) {
    std::vector<double> enc_ms, head_ms;
    const int n_tgt = (int)decoder.size();
    const float* y = last_run.decoder_hidden.data.data() +
                     (size_t)m.config().decoder.n_layer * n_tgt * m.config().d_model;
    for (int r = 0; r < reps; ++r) {
      auto t = std::chrono::steady_clock::now();
      auto run = RunSeq2Seq(m, source, {decoder[0]});
      if (!run) return std::fprintf(stderr, "encoder: %s\n", run.message().c_str()), 2;
      enc_ms.push_back(MsSince(t));
      t = std::chrono::steady_clock::now();
      auto logits = Seq2SeqLogits(m, y, n_tgt);
      if (!logits) return std::fprintf(stderr, "logits: %s\n", logits.message().c_str()), 2;
      head_ms.push_back(MsSince(t));
    }
    std::printf("stages: encoder (+ a 1-token decoder) median %.0f ms; LM head median %.0f ms; the rest of the "
                "decoder ~%.0f ms\n", Median(enc_ms), Median(head_ms), Median(ms) - Median(enc_ms) - Median(head_ms));
    j["encoder_ms"] = Median(enc_ms), j["lm_head_ms"] = Median(head_ms);
  }
  j["peak_rss_mb"] = PeakRssMb();
  std::printf("attnviz peak RSS %.0f MB\n", PeakRssMb());

  // 3. The maps and logits for torch_marian.py --check.
  if (!dump_dir.empty()) {
    if (Status s = MakeDirs(dump_dir); !s) return std::fprintf(stderr, "%s\n", s.message().c_str()), 2;
    const std::pair<const char*, const Tensor*> files[] = {{"encoder_attention.npy", &last_run.encoder_probs},
                                                           {"decoder_attention.npy", &last_run.decoder_probs},
                                                           {"cross_attention.npy", &last_run.cross_probs},
                                                           {"logits.npy", &last_logits}};
    for (const auto& [name, tensor] : files) {
      if (Status s = WriteNpy(dump_dir + "/" + name, *tensor); !s) return std::fprintf(stderr, "%s\n", s.message().c_str()), 2;
    }
    std::printf("wrote %s\n", dump_dir.c_str());
  }
  if (json_path.empty()) return 0;
  if (Status s = WriteFileAtomic(json_path, j.dump() + "\n"); !s) return std::fprintf(stderr, "%s\n", s.message().c_str()), 2;
  return 0;
}
