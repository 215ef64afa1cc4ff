// Seed (g): attention as a soft dictionary lookup (keys, values, a query, a temperature -> weights, blend).
//
// The query is scored against every key, the scores go through a
// softmax at a temperature, and the answer is the weights' blend of the values. As the temperature goes to 0
// the weights become one-hot on the best-matching key (an exact lookup); a query that matches no key gets a
// blend of the values.
//
// Keys and the query are numbers ("1.5", or a vector "1 0 2") or words. When every key and the query are
// numbers they are scored as vectors (all of one width: a score needs d_q = d_k); otherwise all of them are
// words, scored as one-hot vectors over the table's words and the query (qkv_source.h onehot), so a word
// matches only itself and an unknown word is equally far from every key.
#pragma once
#include <string>
#include <vector>

#include "sandbox/config.h"
#include "base/status.h"

namespace attnviz {

struct SoftDictionary {
  std::vector<std::string> keys;           // words ("a") or numbers ("2", "1 0")
  std::vector<std::vector<float>> values;  // one per key, all of one width d_v
};

struct DictionaryLookup {
  bool words = false;                          // keys compared as words (one-hot), not as numbers
  std::vector<std::vector<float>> key_vectors;  // [n_keys][d_k] as the score sees them
  std::vector<float> query_vector;              // [d_k]
  std::vector<float> scores;                    // [n_keys] score(query, key_j)
  std::vector<float> weights;                   // [n_keys] softmax(scores / temperature), sum 1
  std::vector<float> blended;                   // [d_v] sum_j weights[j] * values[j]
  int best = 0;                                 // the key with the largest weight (the first of ties)
  std::vector<int> tied;                        // every key whose weight equals the best's (within kTieTolerance)
};

// Weights closer than this to the best one are a tie: no key is "the best" then.
constexpr float kTieTolerance = 1e-4f;

// Errors name the key or the query and the widths (a score needs d_q = d_k; every value one width).
// temperature: kMinTemperature..kMaxTemperature. score: any but additive (it needs trained weights);
// neg-distance is what makes numbers match by closeness (2.4 is nearest 2).
Result<DictionaryLookup> LookUpSoftly(const SoftDictionary& dictionary, const std::string& query, float temperature,
                                      ScoreKind score = ScoreKind::kNegDistance);

// A table written like a Python dict: "{'a': 1, 'b': 2, 'c': 3}", "a: 1, b: 2" or "'x': [1, 0], 'y': [0, 1]".
// Errors name the entry and the byte offset.
Result<SoftDictionary> ParseDictionary(const std::string& text);
// The same table written back: "{'a': 1, 'b': [1, 0]}".
std::string FormatDictionary(const SoftDictionary& dictionary);
// "1.5" or "1 0 2" or "[1, 0, 2]" -> the numbers; an error for anything else (a word).
Result<std::vector<float>> ParseNumberList(const std::string& text);

}  // namespace attnviz
