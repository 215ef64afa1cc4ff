// The app's settings.txt (ParseSettings): any bytes give a state or a message naming the line; a state
// read survives a save and a second read unchanged.
#include "fuzz_util.h"
#include "settings.h"

using namespace attnviz;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto state = ParseSettings(fuzz::AsText(data, size));
  if (!state) {
    FUZZ_EXPECT(!state.message().empty());
    return 0;
  }
  const std::string saved = SerializeSettings(*state);
  auto again = ParseSettings(saved);
  if (!again) std::fprintf(stderr, "saved settings do not read back: %s\n", again.message().c_str());
  FUZZ_EXPECT(again.ok());
  FUZZ_EXPECT(SerializeSettings(*again) == saved);
  return 0;
}
