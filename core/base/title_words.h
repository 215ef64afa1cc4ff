// The words every title and description is made of, below the sandbox and the maps that both write them.
#pragma once
#include <string>

namespace attnviz {

// A number in a title or a description: %g ("0.5", "1e-06"). Title words are joined by kTitleDot.
std::string ShortNumber(double v);
constexpr const char* kTitleDot = " \u00B7 ";

}  // namespace attnviz
