// A core file that breaks the family-in-one-file rule with families newer than the check's first list, for
// house.family_check_catches_a_new_family.
#include <string>

bool SoftCapped(const std::string& model_type) { return model_type == "gemma3_text"; }
const char* kSupported = "supported: qwen3, olmo2";
