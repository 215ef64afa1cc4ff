// The help texts of attnviz-cli and attnviz in the language of --lang: the Korean ones live in help_ko.cpp, the
// English ones next to their commands and options; a help without a Korean text is shown in English.
#pragma once
#include <string>

namespace attnviz {

// kAppHead: attnviz --help's first lines; kAppOptions: its own options after the shared kInputOptions.
enum class Help { kUsage, kCompute, kInputOptions, kSweep, kExport, kModel, kSeq2Seq, kAppHead, kAppOptions };
// The Korean text of `help` under --lang ko, else `english`.
const char* HelpText(Help help, const char* english);
// `text` with {model_types} and {gguf_types} replaced by the supported lists (core/model/arch/family.h) and
// {map_kinds} by the map kinds (core/session/map_kind.h), so a help names what the build reads and writes.
std::string WithModelTypes(std::string text);

}  // namespace attnviz
