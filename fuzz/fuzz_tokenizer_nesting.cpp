// tokenizer.json with nested Sequences (normalizer, pre_tokenizer, post_processor, decoder) built from the input:
// byte 0 picks the section, byte 1 the depth (0..47, past the limit of 16), one byte per level the step beside
// the nested Sequence (doubling Replaces, a lookahead Split, ...); the rest is the text. A file nested past the
// limit must be refused naming tokenizer.json; one that loads must encode within the growth and work bounds.
#include <string>

#include "tokenizer_check.h"

using namespace attnviz;

namespace {

struct Section {
  const char* key;
  const char* list;
  const char* steps[6];
};

const Section kSections[] = {
    {"normalizer", "normalizers",
     {R"({"type":"Lowercase"})", R"({"type":"NFKD"})", R"({"type":"Replace","pattern":{"String":"a"},"content":"aa"})",
      R"({"type":"Prepend","prepend":"\u2581"})", R"({"type":"BertNormalizer"})",
      R"({"type":"Replace","pattern":{"Regex":"\\s"},"content":"  "})"}},
    {"pre_tokenizer", "pretokenizers",
     {R"({"type":"Whitespace"})", R"({"type":"ByteLevel"})", R"({"type":"Digits","individual_digits":true})",
      R"j({"type":"Split","pattern":{"Regex":"a(?=[\\s\\S]*b)"},"behavior":"Isolated"})j", R"({"type":"Punctuation"})",
      R"({"type":"Metaspace","replacement":"\u2581"})"}},
    {"post_processor", "processors",
     {R"({"type":"ByteLevel"})", R"({"type":"BertProcessing","cls":["a",1],"sep":["b",2]})",
      R"({"type":"RobertaProcessing","cls":["a",1],"sep":["b",4294967298]})", R"({"type":"ByteLevel"})",
      R"({"type":"BertProcessing","cls":["a",1],"sep":["b",2]})", R"({"type":"ByteLevel"})"}},
    {"decoder", "decoders",
     {R"({"type":"ByteLevel"})", R"({"type":"ByteFallback"})", R"({"type":"Metaspace","replacement":"\u2581"})",
      R"({"type":"Fuse"})", R"({"type":"Strip","content":" ","start":1,"stop":0})", R"({"type":"ByteLevel"})"}},
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const Section& section = kSections[data[0] % 4];
  const size_t depth = data[1] % 48;
  size_t pos = 2;
  std::string open, close;
  for (size_t level = 0; level < depth; ++level) {
    const char* step = section.steps[pos < size ? data[pos++] % 6 : 0];
    open += std::string(R"({"type":"Sequence",")") + section.list + "\":[" + step + ",";
    close += "]}";
  }
  const std::string nested = open + section.steps[0] + close;
  const std::string file = std::string(R"({"version":"1.0","added_tokens":[],")") + section.key + "\":" + nested +
                           R"(,"model":{"type":"WordLevel","vocab":{"[UNK]":0,"a":1,"b":2},"unk_token":"[UNK]"}})";
  auto tokenizer = tokenize::LoadTokenizerJson(fuzz::WriteScratch("tokenizer.json", file));
  if (!tokenizer) {
    FUZZ_EXPECT(tokenizer.message().find("tokenizer.json") != std::string::npos);
    return 0;
  }
  FUZZ_EXPECT(depth <= 16);  // deeper Sequences are refused
  fuzz::CheckEncodes(**tokenizer, fuzz::AsText(data + pos, size - pos));
  return 0;
}
