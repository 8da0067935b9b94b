// The kernel contract is the header alone; SwiftPM needs one source file in a C target.
#include "workbench_kernel.h"
