// attnviz-cli subcommands. Each takes the arguments after its name and returns the exit code:
// 0 success, 2 bad usage or input (a one-line reason on stderr).
#pragma once
#include <string>
#include <vector>

namespace attnviz {

int RunCompute(const std::vector<std::string>& args);  // cli_compute.cpp
int RunSweep(const std::vector<std::string>& args);    // cli_sweep.cpp
int RunExport(const std::vector<std::string>& args);   // cli_export.cpp (figure library)
int RunModelCommand(const std::vector<std::string>& args);  // cli_model.cpp (a trained model)
// cli_seq2seq.cpp: `model` on an encoder-decoder folder (RunModelCommand hands it over).
int RunSeq2SeqCommand(const std::vector<std::string>& args);

}  // namespace attnviz
