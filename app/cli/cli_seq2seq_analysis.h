// attnviz-cli model's analyses on an encoder-decoder folder (cli_seq2seq.cpp runs the model; these write what
// core/model/seq2seq_analysis.h computes):
//   --neuron L:H:I:J --stack S   how query I meets key J in head H of layer L of stack S
//   --dump OUT --rollout         OUT/encoder_rollout.npy [n_enc_layer, n_src, n_src], OUT/decoder_rollout.npy
//                                [n_dec_layer, n_tgt, n_tgt] (no cross-attention rollout: its maps do not chain)
//   --dump OUT --value-norm      OUT/encoder_value_norm.npy, decoder_value_norm.npy, cross_value_norm.npy, shaped
//                                as the attention dumps
//   --ablate-scan [--scan-at P]  each head of each stack ablated once: CSV stack,layer,head,loss,delta (or JSON)
#pragma once
#include <string>
#include <vector>

#include "base/status.h"
#include "io/file_io.h"
#include "model/seq2seq_run.h"
#include "tokenize/token.h"

namespace attnviz {

struct Seq2SeqAnalysisOptions {
  bool neuron = false;
  int neuron_at[4] = {0, 0, 0, 0};  // L, H, I, J
  bool rollout = false, value_norm = false;
  std::string first_dump_option;  // --rollout or --value-norm, named when --dump is missing
  bool ablate_scan = false;
  std::string scan_at;  // --scan-at POS,... (decoder positions, checked against the target's tokens)
  bool scan_at_set = false;
};

// Takes args[*i] when it is one of these options (and its value); false for any other argument. *st: its error.
bool ParseSeq2SeqAnalysisOption(const std::vector<std::string>& args, size_t* i, Seq2SeqAnalysisOptions* o, Status* st);
// What the options need together: --stack with --neuron, --dump with --rollout / --value-norm, --ablate-scan with
// --scan-at. stack: --stack's value (-1: not given).
Status CheckSeq2SeqAnalysisOptions(const Seq2SeqAnalysisOptions& o, bool dump, int stack);

// What a run read: the ids, the labels, the what-ifs, and the tokens (named by the neuron view).
struct Seq2SeqAnalysisInput {
  const model::Seq2SeqModel* model = nullptr;
  std::vector<int> source_ids, decoder_ids, labels;
  std::vector<model::Seq2SeqAblatedHead> ablate;
  const std::vector<tokenize::Token>* source = nullptr;
  const std::vector<tokenize::Token>* decoder = nullptr;
};

// --neuron's table or JSON.
Result<std::string> Seq2SeqNeuronOutput(const Seq2SeqAnalysisOptions& o, int stack, bool json,
                                        const Seq2SeqAnalysisInput& in);
// --ablate-scan's CSV or JSON; each scanned head ablated with `mode` on top of in.ablate.
Result<std::string> Seq2SeqScanOutput(const Seq2SeqAnalysisOptions& o, bool json, model::AblateMode mode,
                                      const Seq2SeqAnalysisInput& in);
// --rollout's and --value-norm's files into the dump being written (run: the maps of the same input).
Status WriteSeq2SeqAnalysisDumps(const Seq2SeqAnalysisOptions& o, const Seq2SeqAnalysisInput& in,
                                 const model::Seq2SeqRun& run, DumpFolder* dump);

}  // namespace attnviz
