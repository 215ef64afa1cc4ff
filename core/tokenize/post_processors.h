// Post-processors add the special tokens a model expects around a single text: BERT's [CLS] ... [SEP],
// RoBERTa's <s> ... </s>, a template's BOS. ByteLevel's post-processor only trims offsets, so it changes no id.
// Added tokens get an empty byte span at the place they were inserted.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "tokenize/token.h"

namespace attnviz::tokenize {

// One special token of a template; a template item is either one of these or the text's own tokens.
struct SpecialTokens {
  std::vector<int> ids;
  std::vector<std::string> pieces;  // same length as ids
};
struct TemplateItem {
  bool is_sequence = false;  // the text's tokens ("$A")
  SpecialTokens special;     // else: these tokens
};

class PostProcessor {
 public:
  virtual ~PostProcessor() = default;
  virtual void Process(std::vector<Token>* tokens, size_t text_bytes) const = 0;
};

// TemplateProcessing's "single" template; BertProcessing and RobertaProcessing are the template cls $A sep.
std::unique_ptr<PostProcessor> MakeTemplateProcessor(std::vector<TemplateItem> single);
// T5Tokenizer's _add_eos_if_not_present: the token appended unless the text's tokens already end with its id.
std::unique_ptr<PostProcessor> MakeAppendIfAbsentProcessor(int id, std::string piece);
std::unique_ptr<PostProcessor> MakeNoOpProcessor();
std::unique_ptr<PostProcessor> MakeProcessorSequence(std::vector<std::unique_ptr<PostProcessor>> steps);

}  // namespace attnviz::tokenize
