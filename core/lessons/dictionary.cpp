#include "lessons/dictionary.h"

#include <algorithm>
#include <cstdio>

#include "attention/attention.h"
#include "base/parse_number.h"
#include "sandbox/score.h"

namespace attnviz {
namespace {

std::string Trim(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

std::string Unquote(const std::string& s) {
  if (s.size() >= 2 && (s.front() == '\'' || s.front() == '"') && s.back() == s.front()) return s.substr(1, s.size() - 2);
  return s;
}

std::string FormatNumber(float v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", (double)v);
  return buf;
}

}  // namespace

Result<std::vector<float>> ParseNumberList(const std::string& text) {
  std::string t = Trim(text);
  if (t.size() >= 2 && t.front() == '[' && t.back() == ']') t = t.substr(1, t.size() - 2);
  for (char& c : t)
    if (c == ',') c = ' ';
  std::vector<float> numbers;
  size_t pos = 0;
  while ((pos = t.find_first_not_of(" \t", pos)) != std::string::npos) {
    const size_t end = std::min(t.find_first_of(" \t", pos), t.size());
    Result<double> v = ParseReal(t.substr(pos, end - pos), -1e30, 1e30);
    if (!v) return Status::Error(MsgId::kDictNotNumbers, {Trim(text)});
    numbers.push_back((float)*v);
    pos = end;
  }
  if (numbers.empty()) return Status::Error(MsgId::kDictNoNumber, {Trim(text)});
  return numbers;
}

Result<SoftDictionary> ParseDictionary(const std::string& text) {
  std::string t = Trim(text);
  size_t base = text.find_first_not_of(" \t\r\n");
  if (!t.empty() && t.front() == '{') {
    if (t.back() != '}') return Status::Error(MsgId::kDictUnclosedBrace, {});
    t = t.substr(1, t.size() - 2);
    base += 1;
  }
  SoftDictionary d;
  // Entries are separated by commas outside brackets.
  size_t start = 0;
  int depth = 0;
  for (size_t i = 0; i <= t.size(); ++i) {
    if (i < t.size() && t[i] == '[') ++depth;
    if (i < t.size() && t[i] == ']') --depth;
    if (i < t.size() && (t[i] != ',' || depth > 0)) continue;
    const std::string entry = Trim(t.substr(start, i - start));
    const size_t lead = t.find_first_not_of(" \t\r\n", start);
    const std::string where = std::to_string(base + std::min(lead, i));  // the entry's byte offset
    start = i + 1;
    if (entry.empty()) {
      if (i == t.size() && !d.keys.empty()) break;  // a trailing comma
      return Status::Error(MsgId::kDictEntryEmpty, {where});
    }
    const size_t colon = entry.find(':');
    if (colon == std::string::npos) return Status::Error(MsgId::kDictEntryNoColon, {where, entry});
    const std::string key = Unquote(Trim(entry.substr(0, colon)));
    if (key.empty()) return Status::Error(MsgId::kDictEntryEmptyKey, {where, entry});
    if (std::find(d.keys.begin(), d.keys.end(), key) != d.keys.end())
      return Status::Error(MsgId::kDictEntryKeyTwice, {where, key});
    Result<std::vector<float>> value = ParseNumberList(entry.substr(colon + 1));
    if (!value) return Status::Prefixed(MsgId::kPrefixDictEntryValue, {where, key}, value.status());
    d.keys.push_back(key);
    d.values.push_back(*value);
  }
  if (d.keys.empty()) return Status::Error(MsgId::kDictNoEntry, {});
  return d;
}

std::string FormatDictionary(const SoftDictionary& d) {
  std::string out = "{";
  for (size_t i = 0; i < d.keys.size(); ++i) {
    out += (i ? ", '" : "'") + d.keys[i] + "': ";
    const std::vector<float>& v = d.values[i];
    if (v.size() == 1) {
      out += FormatNumber(v[0]);
      continue;
    }
    out += "[";
    for (size_t c = 0; c < v.size(); ++c) out += (c ? ", " : "") + FormatNumber(v[c]);
    out += "]";
  }
  return out + "}";
}

Result<DictionaryLookup> LookUpSoftly(const SoftDictionary& d, const std::string& query, float temperature,
                                      ScoreKind score) {
  const size_t n = d.keys.size();
  if (n == 0) return Status::Error(MsgId::kDictNoKey, {});
  if (d.values.size() != n) return Status::Error(MsgId::kDictKeysButValues,
                                                 {std::to_string(n), std::to_string(d.values.size())});
  if (score == ScoreKind::kAdditive)
    return Status::Error(MsgId::kDictAdditive, {});
  if (!(temperature >= kMinTemperature && temperature <= kMaxTemperature))
    return Status::Error(MsgId::kDictTemperature, {FormatNumber(temperature), FormatNumber(kMinTemperature),
                                                     FormatNumber(kMaxTemperature)});
  const size_t d_v = d.values[0].size();
  for (size_t j = 0; j < n; ++j)
    if (d.values[j].size() != d_v)
      return Status::Error(MsgId::kDictValueWidths, {d.keys[j], std::to_string(d.values[j].size()), d.keys[0],
                                                     std::to_string(d_v)});
  DictionaryLookup out;
  // Numbers if every key and the query are numbers, else words.
  Result<std::vector<float>> q = ParseNumberList(query);
  std::vector<Result<std::vector<float>>> keys;
  bool numbers = (bool)q;
  for (const std::string& key : d.keys) {
    keys.push_back(ParseNumberList(key));
    numbers = numbers && (bool)keys.back();
  }
  if (numbers) {
    out.query_vector = *q;
    for (size_t j = 0; j < n; ++j) {
      if (keys[j]->size() != q->size())
        return Status::Error(MsgId::kDictWidthMismatch, {Trim(query), std::to_string(q->size()), d.keys[j],
                                                         std::to_string(keys[j]->size())});
      out.key_vectors.push_back(*keys[j]);
    }
  } else {
    out.words = true;
    std::vector<std::string> vocab = d.keys;
    const std::string word = Trim(query);
    const auto at = std::find(vocab.begin(), vocab.end(), word);
    const size_t query_index = (size_t)(at - vocab.begin());
    if (at == vocab.end()) vocab.push_back(word);
    auto one_hot = [&](size_t index) {
      std::vector<float> v(vocab.size(), 0.0f);
      v[index] = 1.0f;
      return v;
    };
    for (size_t j = 0; j < n; ++j) out.key_vectors.push_back(one_hot(j));
    out.query_vector = one_hot(query_index);
  }
  // The engine's own score and softmax: q [1, 1, d_k], k [1, n, d_k] -> scores, probs [1, 1, n].
  const size_t d_k = out.query_vector.size();
  Tensor qt, kt, scores, logits, probs;
  qt.Resize({1, 1, d_k});
  qt.data = out.query_vector;
  kt.Resize({1, n, d_k});
  for (size_t j = 0; j < n; ++j) std::copy(out.key_vectors[j].begin(), out.key_vectors[j].end(), kt.data.begin() + j * d_k);
  ScoreMatrix(score, qt, kt, nullptr, &scores);
  AttentionConfig config;
  config.score = score;
  config.temperature = temperature;
  LogitsSoftmax(scores, config.logit_multiplier((int)d_k), MaskKind::kNone, &logits, &probs);
  out.scores = scores.data;
  out.weights = probs.data;
  out.blended.assign(d_v, 0.0f);
  for (size_t j = 0; j < n; ++j)
    for (size_t c = 0; c < d_v; ++c) out.blended[c] += out.weights[j] * d.values[j][c];
  out.best = (int)(std::max_element(out.weights.begin(), out.weights.end()) - out.weights.begin());
  for (size_t j = 0; j < n; ++j)
    if (out.weights[(size_t)out.best] - out.weights[j] <= kTieTolerance) out.tied.push_back((int)j);
  return out;
}

}  // namespace attnviz
