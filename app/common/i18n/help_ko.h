// The help texts of attnviz-cli and attnviz in the language of --lang: the Korean ones live in help_ko.cpp, the
// English ones next to their commands and options; a help without a Korean text is shown in English.
#pragma once

namespace attnviz {

// kAppHead: attnviz --help's first lines; kAppOptions: its own options after the shared kInputOptions.
enum class Help { kUsage, kCompute, kInputOptions, kSweep, kExport, kModel, kAppHead, kAppOptions };
// The Korean text of `help` under --lang ko, else `english`.
const char* HelpText(Help help, const char* english);

}  // namespace attnviz
