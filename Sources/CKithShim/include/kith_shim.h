#ifndef KITH_SHIM_H
#define KITH_SHIM_H

// The Linux calls Kith's engine needs that Swift's Glibc module does not export,
// or exports in a shape Swift cannot use (variadic, macros, unions).

#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>

// epoll
int kith_epoll_create(void);
int kith_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t data);
// Writes up to `max` (fd-data, events) pairs into `out` as [data0, events0, data1, ...].
int kith_epoll_wait(int epfd, uint64_t *out, int max, int timeout_ms);

extern const uint32_t KITH_EPOLLIN;
extern const uint32_t KITH_EPOLLOUT;
extern const uint32_t KITH_EPOLLRDHUP;
extern const uint32_t KITH_EPOLLHUP;
extern const uint32_t KITH_EPOLLERR;
extern const uint32_t KITH_EPOLLET;
extern const int KITH_EPOLL_CTL_ADD;
extern const int KITH_EPOLL_CTL_MOD;
extern const int KITH_EPOLL_CTL_DEL;

// eventfd: wakes an event loop from another thread.
int kith_eventfd(void);
int kith_eventfd_signal(int fd);
int kith_eventfd_drain(int fd);

// signals: block SIGTERM/SIGINT/SIGHUP in every thread (call before any thread
// starts), ignore SIGPIPE, and read the blocked ones through a signalfd.
int kith_signals_block_and_ignore_pipe(void);
int kith_signalfd(void);
// Returns the signal number read, 0 if none is pending, -1 on error.
int kith_signalfd_read(int fd);

// sockets
int kith_listen_tcp(const char *host, int port, int backlog, int reuseport, int *bound_port);
int kith_accept(int listen_fd);
int kith_set_nodelay(int fd);
ssize_t kith_send(int fd, const void *buf, size_t len);
ssize_t kith_sendfile(int out_fd, int in_fd, int64_t *offset, size_t count);
int kith_shutdown_write(int fd);
// Peer address as text into buf (IPv4 or IPv6), or "" when unknown.
void kith_peer_address(int fd, char *buf, size_t len);

// resource limits
int kith_raise_nofile_limit(uint64_t *soft_out);

// thread CPU time in microseconds (for the benchmark's server CPU per request).
uint64_t kith_process_cpu_micros(void);
uint64_t kith_monotonic_nanos(void);
int64_t kith_rss_bytes(void);
// malloc_trim(0): hands freed heap pages back to the kernel.
int kith_trim_heap(void);
long kith_release_startup_code(void);

#endif
