/* proc_open.h — see proc_open.c: the clubhouse executable's open(2) wrapper that answers
 * libdispatch's /proc/<tid>/stat in a sandboxed runner. */
#ifndef CLUBHOUSE_PROC_OPEN_H
#define CLUBHOUSE_PROC_OPEN_H

/* Linked into the clubhouse executable only for its open/open64 definitions; nothing to call. */
int clubhouse_proc_open_linked(void);

#endif
