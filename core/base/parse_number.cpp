#include "base/parse_number.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace attnviz {
namespace {

std::string Range(double lo, double hi) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g..%g", lo, hi);
  return buf;
}

// Digits with an optional leading '-' (when allowed), nothing else.
bool PlainInteger(const std::string& t, bool allow_minus) {
  size_t i = (allow_minus && !t.empty() && t[0] == '-') ? 1 : 0;
  if (i >= t.size()) return false;
  for (; i < t.size(); ++i)
    if (t[i] < '0' || t[i] > '9') return false;
  return true;
}

// [-]digits[.digits][(e|E)[-|+]digits], at least one digit in the mantissa.
bool PlainReal(const std::string& t) {
  size_t i = 0, n = t.size(), digits = 0;
  if (i < n && t[i] == '-') ++i;
  while (i < n && t[i] >= '0' && t[i] <= '9') ++i, ++digits;
  if (i < n && t[i] == '.') {
    ++i;
    while (i < n && t[i] >= '0' && t[i] <= '9') ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < n && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    if (i < n && (t[i] == '-' || t[i] == '+')) ++i;
    size_t exp_digits = 0;
    while (i < n && t[i] >= '0' && t[i] <= '9') ++i, ++exp_digits;
    if (exp_digits == 0) return false;
  }
  return i == n;
}

}  // namespace

Result<long long> ParseInteger(const std::string& text, long long lo, long long hi) {
  if (!PlainInteger(text, true))
    return Status::Error(MsgId::kNotWholeNumber, {CappedValue(text), std::to_string(lo), std::to_string(hi)});
  errno = 0;
  long long v = std::strtoll(text.c_str(), nullptr, 10);
  if (errno == ERANGE || v < lo || v > hi)
    return Status::Error(MsgId::kNumberOutOfRange, {CappedValue(text), std::to_string(lo) + ".." + std::to_string(hi)});
  return v;
}

Result<uint64_t> ParseUnsigned64(const std::string& text) {
  if (!PlainInteger(text, false))
    return Status::Error(MsgId::kNotWholeNumber, {CappedValue(text), "0", "18446744073709551615"});
  errno = 0;
  unsigned long long v = std::strtoull(text.c_str(), nullptr, 10);
  if (errno == ERANGE) return Status::Error(MsgId::kNumberOutOfRange, {CappedValue(text), "0..18446744073709551615"});
  return (uint64_t)v;
}

Result<double> ParseReal(const std::string& text, double lo, double hi) {
  if (!PlainReal(text)) return Status::Error(MsgId::kNotANumber, {CappedValue(text), Range(lo, hi)});
  errno = 0;
  double v = std::strtod(text.c_str(), nullptr);
  if (!std::isfinite(v) || v < lo || v > hi) return Status::Error(MsgId::kNumberOutOfRange, {CappedValue(text), Range(lo, hi)});
  return v;
}

}  // namespace attnviz
