// The one strict number parser: every option, settings value and file field that holds a number
// goes through it. Strict means the whole text is the number, written plainly in decimal:
// no surrounding spaces, no '+', no hex (0x10, 0x1p-3), no inf/nan, no trailing junk. A number out of
// range names the range. Messages name neither the option nor the file: the caller adds that.
#pragma once
#include <cstdint>
#include <string>

#include "base/status.h"

namespace attnviz {

// Decimal integer in [lo, hi]: "-12", "4096". "'x' is not a whole number (allowed lo..hi)".
Result<long long> ParseInteger(const std::string& text, long long lo, long long hi);
// Unsigned decimal up to 2^64-1 (seeds): no sign at all.
Result<uint64_t> ParseUnsigned64(const std::string& text);
// Decimal real in [lo, hi]: "0.5", "-1e-3", "2". Finite only.
Result<double> ParseReal(const std::string& text, double lo, double hi);

}  // namespace attnviz
