// A token as the app shows it: the id the model sees, the vocabulary string, a readable form, and the bytes of
// the user's text it came from. Byte-level tokenizers can cut a character in two ("나" is 3 bytes; GPT-2 may
// give 2 tokens for it); JoinBytePieces groups such tokens back into whole characters for display.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace attnviz::tokenize {

struct Token {
  int id = 0;
  std::string piece;    // the vocabulary string, e.g. "Ġthe", "##ing", "▁the", "<0xEB>", "[CLS]"
  std::string bytes;    // what the piece stands for as raw bytes: "Ġthe" -> " the", "<0xEB>" -> "\xEB"; may be
                        // an incomplete UTF-8 character for byte-level pieces; the piece itself for special tokens
  std::string display;  // readable UTF-8: `bytes` with any byte that is not a whole character shown as <0xNN>
  size_t byte_begin = 0;  // span [byte_begin, byte_end) in the input text; empty for tokens a post-processor
  size_t byte_end = 0;    // added ([CLS], <s>), which then sit at the position where they were inserted
  bool special = false;   // a special token (post-processor or added token marked special)
};

// Consecutive tokens whose bytes together make whole UTF-8 characters.
struct TokenGroup {
  size_t first = 0;   // index of the first token of the group
  size_t count = 0;   // number of tokens (1 for a token that is whole characters by itself)
  std::string display;  // the characters the group spells (or its tokens' displays when they never complete)
  size_t byte_begin = 0;
  size_t byte_end = 0;
};

// Groups tokens so that every group's bytes are whole characters: a Hangul syllable split across two byte
// tokens becomes one group displayed as the syllable. Special tokens are always alone. A run that never
// completes a character (the text ended inside one) stays a group shown with <0xNN> for the loose bytes.
std::vector<TokenGroup> JoinBytePieces(const std::vector<Token>& tokens);

// `bytes` for display: valid UTF-8 kept, every byte of an incomplete or invalid sequence shown as <0xNN>.
std::string ReadableBytes(const std::string& bytes);

}  // namespace attnviz::tokenize

namespace attnviz {
// The project's one token type: a model's tokens, the sandbox's words (sandbox/text.h WordToken) and the maps'
// labels (maps/layer_maps.h) alike. Labels and the sandbox's words read `display`.
using tokenize::Token;
}  // namespace attnviz
