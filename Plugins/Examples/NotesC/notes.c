#include "clubhouse.h"
