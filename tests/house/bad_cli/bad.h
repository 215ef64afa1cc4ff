// A CLI file that breaks the rule, for house.cli_check_catches_a_gui_include: state.h lives in app/gui.
#include "state.h"
