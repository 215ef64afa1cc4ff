// A CLI file that breaks the rule, for house.cli_check_catches_a_gui_include: settings.h lives in app/gui.
#include "settings.h"
