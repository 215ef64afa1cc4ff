// A SentencePiece GGUF vocabulary (tokenizer.ggml.model "llama") from the input: parts split on NUL, the first the
// text, each other a piece whose first byte is its score (the bytes after it the piece). Every <0xNN> byte token is
// there too, so no text needs the unknown token. The ids must be the ones a plain transcription of llama.cpp's SPM
// merge gives (every step rescans the neighbouring pairs: the best-scoring pair whose text is a piece, ties leftmost,
// merges), and the pieces and bytes must spell the text back ("▁" for each space).
#include <string>
#include <unordered_map>
#include <vector>

#include "fuzz_util.h"
#include "tokenize/gguf_tokenizer.h"
#include "tokenize/unicode.h"

using namespace attnviz;

namespace {

constexpr char kSpace[] = "\xE2\x96\x81";  // U+2581

// llama.cpp's SPM merge, quadratic and obvious: symbols are characters; while some neighbouring pair's text is a
// piece, merge the best-scoring one (ties: the leftmost); then each symbol is its piece or its bytes.
std::vector<int> ReferenceIds(const std::string& text, const std::unordered_map<std::string, int>& ids,
                              const std::vector<float>& scores, const int* byte_ids) {
  std::vector<std::string> symbols;
  for (size_t i = 0; i < text.size();) {
    size_t n = 1;
    const unsigned char c = (unsigned char)text[i];
    if (c >= 0xF0) n = 4; else if (c >= 0xE0) n = 3; else if (c >= 0xC0) n = 2;
    symbols.push_back(text.substr(i, n));
    i += n;
  }
  for (;;) {
    int best = -1;
    float best_score = 0;
    for (size_t i = 0; i + 1 < symbols.size(); ++i) {
      auto it = ids.find(symbols[i] + symbols[i + 1]);
      if (it == ids.end()) continue;
      if (best < 0 || scores[(size_t)it->second] > best_score) best = (int)i, best_score = scores[(size_t)it->second];
    }
    if (best < 0) break;
    symbols[(size_t)best] += symbols[(size_t)best + 1];
    symbols.erase(symbols.begin() + best + 1);
  }
  std::vector<int> out;
  for (const std::string& s : symbols) {
    if (auto it = ids.find(s); it != ids.end()) {
      out.push_back(it->second);
      continue;
    }
    for (unsigned char b : s) out.push_back(byte_ids[b]);
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto parts = fuzz::SplitOnNul(fuzz::AsText(data, size));
  if (parts.size() > 4096) return 0;
  tokenize::GgufVocab v;
  v.where = "spm.gguf";
  v.model = "llama";
  v.add_bos = false;
  v.add_space_prefix = false;
  std::unordered_map<std::string, int> ids;
  int byte_ids[256];
  auto add = [&](const std::string& piece, float score, tokenize::GgufTokenType type) {
    if (piece.empty() || ids.count(piece)) return -1;
    ids.emplace(piece, (int)v.tokens.size());
    v.tokens.push_back(piece);
    v.scores.push_back(score);
    v.types.push_back(type);
    return (int)v.tokens.size() - 1;
  };
  for (int b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    byte_ids[b] = add(name, 0.0f, tokenize::GgufTokenType::kByte);
  }
  for (size_t i = 1; i < parts.size(); ++i)
    if (parts[i].size() >= 2) add(parts[i].substr(1), (float)(signed char)parts[i][0], tokenize::GgufTokenType::kNormal);
  auto tokenizer = tokenize::MakeGgufTokenizer(v);
  FUZZ_EXPECT(tokenizer.ok());
  auto tokens = (*tokenizer)->Encode(parts[0], /*add_special_tokens=*/false);
  if (!tokens) {
    FUZZ_EXPECT(!tokens.message().empty());
    return 0;
  }
  std::string spaced;
  for (char c : parts[0]) spaced += c == ' ' ? std::string(kSpace) : std::string(1, c);
  std::vector<int> got;
  std::string spelled;
  for (const auto& t : *tokens) {
    FUZZ_EXPECT(t.id >= 0 && (size_t)t.id < v.tokens.size());
    got.push_back(t.id);
    const std::string& piece = v.tokens[(size_t)t.id];
    if (t.id < 256) spelled += (char)t.id;  // <0xNN> is byte NN
    else spelled += piece;
  }
  FUZZ_EXPECT(spelled == spaced);
  FUZZ_EXPECT(got == ReferenceIds(spaced, ids, v.scores, byte_ids));
  return 0;
}
