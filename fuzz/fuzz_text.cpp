// Sentence text (Tokenize) and sentence files (ParseSentences): any bytes give tokens or a message.
#include "fuzz_util.h"
#include "sandbox/text.h"

using namespace attnviz;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = fuzz::AsText(data, size);
  auto tokens = Tokenize(text);
  if (tokens) {
    FUZZ_EXPECT(ValidateUtf8(text).ok());
    FUZZ_EXPECT(!tokens->empty() && tokens->size() <= kMaxTokens);
    size_t previous_end = 0;
    for (const Token& t : *tokens) {
      FUZZ_EXPECT(t.byte_begin >= previous_end && t.byte_begin < t.byte_end && t.byte_end <= text.size());
      FUZZ_EXPECT(text.compare(t.byte_begin, t.byte_end - t.byte_begin, t.display) == 0);
      previous_end = t.byte_end;
    }
  } else {
    FUZZ_EXPECT(!tokens.message().empty());
  }
  auto items = ParseSentences(text, "fuzz.txt");
  if (items) {
    for (const SentenceItem& item : *items) {
      FUZZ_EXPECT(item.line >= 1 && !item.kv_text.empty());
      // Every item is a text; only the sandbox's token cap may refuse it (a model takes longer ones).
      auto texts = TokenizeTexts(item.kv_text, item.query_text);
      FUZZ_EXPECT(texts.ok() || texts.message().find("tokens (allowed 1..") != std::string::npos);
    }
  } else {
    FUZZ_EXPECT(items.message().rfind("fuzz.txt", 0) == 0);  // the message names the file
  }
  return 0;
}
