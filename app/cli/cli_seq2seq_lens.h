// attnviz-cli model's issue-41 views on an encoder-decoder folder (core/model/seq2seq_lens.h,
// seq2seq_attribution.h, seq2seq_patching.h), in the decoder-only options' JSON shapes (docs/analysis.md):
//   --logit-lens K                 the decoder's stream after every layer through the LM head: top K and p(label)
//   --attribute POS[:TOKEN]        direct logit attribution at decoder position POS (TOKEN: the label there when
//                                  absent); head and attn_bias entries name their "stack" (decoder or cross)
//   --patch-from CLEAN --metric A,B  activation patching: --text is the corrupted source, CLEAN the clean one, the
//                                  same target; heads of every stack, both residual streams
#pragma once
#include <string>
#include <vector>

#include "base/status.h"
#include "cli_seq2seq_analysis.h"  // Seq2SeqAnalysisInput
#include "model/seq2seq_run.h"
#include "tokenize/seq2seq_tokenizers.h"

namespace attnviz {

struct Seq2SeqLensOptions {
  bool logit_lens = false;
  int lens_k = 0;                     // --logit-lens K
  std::string attribute;              // --attribute POS[:TOKEN]
  bool attribute_set = false;
  std::string patch_from, metric;     // --patch-from CLEAN --metric A,B
  bool patch_set = false, metric_set = false;
  bool Any() const { return logit_lens || attribute_set || patch_set; }
  const char* Name() const { return logit_lens ? "--logit-lens" : attribute_set ? "--attribute" : "--patch-from"; }
};

// Takes args[*i] when it is one of these options (and its value); false for any other argument. *st: its error.
bool ParseSeq2SeqLensOption(const std::vector<std::string>& args, size_t* i, Seq2SeqLensOptions* o, Status* st);
// --patch-from and --metric together; --attribute and --patch-from run the model as it is (no --ablate).
Status CheckSeq2SeqLensOptions(const Seq2SeqLensOptions& o, bool what_ifs);

// The view's JSON or text. run: the run of `in` (the lens reads its decoder_hidden); tok: both sides' tokenizers.
Result<std::string> Seq2SeqLensOutput(const Seq2SeqLensOptions& o, bool json, const Seq2SeqAnalysisInput& in,
                                      const model::Seq2SeqRun& run, const tokenize::Seq2SeqTokenizers& tok);

}  // namespace attnviz
