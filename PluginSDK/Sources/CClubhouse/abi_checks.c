/* The ABI is header-only: nothing here is linked into anything. SwiftPM builds a C target from at
 * least one source file, so this one checks at compile time what the header promises. */
#include "clubhouse.h"

_Static_assert(sizeof(clubhouse_status) == 4, "clubhouse_status is a 32-bit integer");
_Static_assert(CLUBHOUSE_ABI_MAJOR == 1, "this SDK describes ABI 1.x");
