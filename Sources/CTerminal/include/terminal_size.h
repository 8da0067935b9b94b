// The terminal's width, which only ioctl (variadic, so out of Swift's reach) tells.
#ifndef WORKBENCH_TERMINAL_SIZE_H
#define WORKBENCH_TERMINAL_SIZE_H

// Columns of the terminal on `fd`, or 0 when it is not a terminal or does not say.
int wb_terminal_columns(int fd);

#endif
