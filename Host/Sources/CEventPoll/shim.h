// epoll(7) for serve's event loop (ServeTransport.swift): Swift's Glibc module does not include <sys/epoll.h>.
#include <sys/epoll.h>
