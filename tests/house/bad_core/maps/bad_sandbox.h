// A maps file that breaks the rule, for house.sandbox_check_catches_an_include.
#include "sandbox/config.h"
