// The one way a token is written for a person: the maps' labels, the token chips and their tooltips, the
// predictions and attnviz-cli's tables all call ShownText on a Token's `display` (token.h).
#pragma once
#include <string>

namespace attnviz::tokenize {

// `display` (the bytes read back: never the vocabulary's "Ġ", "Ċ" or "▁"; a loose byte as <0xNN>, never U+FFFD) with
// its leading spaces made visible as a middle dot ("·Pluto", so " Pluto" and "Pluto" differ) and its control
// characters written out ("\n", "\t", "\r", else <0xNN>).
std::string ShownText(const std::string& display);

}  // namespace attnviz::tokenize

namespace attnviz {
using tokenize::ShownText;
}  // namespace attnviz
