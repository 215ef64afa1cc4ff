// The current language, the lookup and the {0} filler over the two tables.
#include "i18n/ui_strings.h"

#include "base/messages.h"

#include <atomic>
#include <cstdlib>

namespace attnviz {

extern const StringEntry* const kStringsEn;
extern const StringEntry* const kStringsKo;

namespace {
std::atomic<int> g_lang{(int)Lang::kEn};
}

const char* ToString(Lang lang) { return lang == Lang::kKo ? "ko" : "en"; }

const char* LangName(Lang lang) { return lang == Lang::kKo ? "\xED\x95\x9C\xEA\xB5\xAD\xEC\x96\xB4" : "English"; }

bool ParseLang(const std::string& text, Lang* lang) {
  if (text == "en" || text == "english" || text == "English") *lang = Lang::kEn;
  else if (text == "ko" || text == "korean" || text == "Korean" || text == "\xED\x95\x9C\xEA\xB5\xAD\xEC\x96\xB4")
    *lang = Lang::kKo;
  else return false;
  return true;
}

Lang LangFromEnvironment() {
  // The first set one of these decides, as for setlocale(LC_MESSAGES, "").
  for (const char* name : {"LC_ALL", "LC_MESSAGES", "LANG"}) {
    const char* value = std::getenv(name);
    if (value && *value) return (value[0] == 'k' && value[1] == 'o') ? Lang::kKo : Lang::kEn;
  }
  return Lang::kEn;
}

void SetLang(Lang lang) { g_lang = (int)lang; }
Lang CurrentLang() { return (Lang)g_lang.load(); }

const StringEntry* StringTable(Lang lang) { return lang == Lang::kKo ? kStringsKo : kStringsEn; }

const char* Tr(Str id, Lang lang) { return StringTable(lang)[(int)id].text; }
const char* Tr(Str id) { return Tr(id, CurrentLang()); }

std::string Trf(Str id, const std::vector<std::string>& args) { return FillTemplate(Tr(id), args); }

}  // namespace attnviz
