// The app's settings start and exit without a window: loads settings.txt as main.cpp does (the notice
// goes to stderr), reads the restored sentence file as the App does, then saves on exit unless the load
// said the file must be kept. The catalogue (run_catalogue.py) runs it on hostile settings files.
#include <cstdio>
#include <string>

#include "settings.h"
#include "sandbox/text.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fputs("usage: settings_probe SETTINGS_FILE\n", stderr);
    return 2;
  }
  const std::string path = argv[1];
  attnviz::LoadedSettings loaded = attnviz::LoadSettings(path);
  if (!loaded.message.empty()) std::fprintf(stderr, "attnviz: %s\n", loaded.message.Render().c_str());
  if (!loaded.settings.sentence_file.empty()) {
    auto items = attnviz::LoadSentenceFile(loaded.settings.sentence_file);
    if (!items) std::fprintf(stderr, "attnviz: %s\n", items.message().c_str());
  }
  if (!loaded.keep_file) {
    attnviz::Status st = attnviz::SaveSettings(path, loaded.settings);
    if (!st.ok()) std::fprintf(stderr, "attnviz: could not save settings: %s\n", st.message().c_str());
  }
  std::printf("restored=%d keep_file=%d\n", loaded.restored ? 1 : 0, loaded.keep_file ? 1 : 0);
  return 0;
}
