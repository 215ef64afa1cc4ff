// attnviz-cli's help texts in the language of --lang: the Korean ones live in cli_help_ko.cpp, the English ones
// next to their commands; a help without a Korean text is shown in English.
#pragma once

namespace attnviz {

enum class Help { kUsage, kCompute, kInputOptions, kSweep, kExport, kModel };
// The Korean text of `help` under --lang ko, else `english`.
const char* HelpText(Help help, const char* english);

}  // namespace attnviz
