#include "model/json_limits.h"

#include <utility>
#include <vector>

namespace attnviz::model {
namespace {

using json = nlohmann::json;

struct TooDeep {};

// A string as JSON text, at most about kMaxQuotedChars characters of it (the rest is cut later anyway).
std::string QuotedPrefix(const std::string& s) {
  const size_t keep = std::min(s.size(), kMaxQuotedChars * 4);
  return json(s.substr(0, keep)).dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace

bool ParseJsonWithinDepth(const char* begin, const char* end, json* out) {
  // The callback sees each container open with the number of containers around it.
  auto depth_check = [](int depth, json::parse_event_t event, json&) {
    if ((event == json::parse_event_t::object_start || event == json::parse_event_t::array_start) &&
        depth >= kMaxJsonDepth)
      throw TooDeep{};
    return true;
  };
  try {
    *out = json::parse(begin, end, depth_check);
  } catch (const TooDeep&) {
    *out = json();
    return false;
  }
  return true;
}

Status ParseJsonBounded(const char* begin, const char* end, const std::string& where, json* out) {
  try {
    if (!ParseJsonWithinDepth(begin, end, out))
      return Status::ErrorAt(where, MsgId::kJsonNestsTooDeep, {std::to_string(kMaxJsonDepth)});
  } catch (const json::parse_error& e) {
    return Status::ErrorAt(where, MsgId::kJsonInvalidAtByte, {std::to_string(e.byte), CappedJsonError(e.what())});
  } catch (const json::exception& e) {  // e.g. a number beyond double's range (out_of_range 406)
    return Status::ErrorAt(where, MsgId::kJsonInvalid, {CappedJsonError(e.what())});
  }
  return Status::Ok();
}

std::string JsonValueText(const json& value) {
  const size_t stop = kMaxQuotedChars * 4;  // bytes: enough for kMaxQuotedChars characters of any script
  std::string out;
  std::vector<std::pair<const json*, json::const_iterator>> open;  // the containers being written
  const json* next = &value;
  while (out.size() < stop) {
    if (next) {
      const json& v = *next;
      next = nullptr;
      if (v.is_object() || v.is_array()) {
        out += v.is_object() ? '{' : '[';
        open.emplace_back(&v, v.cbegin());
      } else if (v.is_string()) {
        out += QuotedPrefix(v.get_ref<const std::string&>());
      } else {
        out += v.dump();  // a number, bool or null: no recursion
      }
      continue;
    }
    if (open.empty()) return CappedValue(out);
    auto& [container, it] = open.back();
    if (it == container->cend()) {
      out += container->is_object() ? '}' : ']';
      open.pop_back();
      continue;
    }
    if (it != container->cbegin()) out += ',';
    if (container->is_object()) out += QuotedPrefix(it.key()) + ":";
    next = &*it;
    ++it;
  }
  // Cut: kMaxQuotedChars characters (never half a UTF-8 sequence), then "...".
  size_t cut = 0;
  for (size_t chars = 0; cut < out.size() && chars < kMaxQuotedChars; ++chars) {
    ++cut;
    while (cut < out.size() && ((unsigned char)out[cut] & 0xC0) == 0x80) ++cut;
  }
  return CappedValue(out.substr(0, cut)) + "...";
}

}  // namespace attnviz::model
