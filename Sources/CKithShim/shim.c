#define _GNU_SOURCE
#include "kith_shim.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

const uint32_t KITH_EPOLLIN = EPOLLIN;
const uint32_t KITH_EPOLLOUT = EPOLLOUT;
const uint32_t KITH_EPOLLRDHUP = EPOLLRDHUP;
const uint32_t KITH_EPOLLHUP = EPOLLHUP;
const uint32_t KITH_EPOLLERR = EPOLLERR;
const uint32_t KITH_EPOLLET = EPOLLET;
const int KITH_EPOLL_CTL_ADD = EPOLL_CTL_ADD;
const int KITH_EPOLL_CTL_MOD = EPOLL_CTL_MOD;
const int KITH_EPOLL_CTL_DEL = EPOLL_CTL_DEL;

int kith_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

int kith_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t data) {
    struct epoll_event ev;
    memset(&ev, 0, sizeof ev);
    ev.events = events;
    ev.data.u64 = data;
    return epoll_ctl(epfd, op, fd, &ev);
}

int kith_epoll_wait(int epfd, uint64_t *out, int max, int timeout_ms) {
    struct epoll_event events[256];
    if (max > 256) max = 256;
    int n;
    do {
        n = epoll_wait(epfd, events, max, timeout_ms);
    } while (n < 0 && errno == EINTR);
    for (int i = 0; i < n; i++) {
        out[2 * i] = events[i].data.u64;
        out[2 * i + 1] = events[i].events;
    }
    return n;
}

int kith_eventfd(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

int kith_eventfd_signal(int fd) {
    uint64_t one = 1;
    ssize_t n;
    do {
        n = write(fd, &one, sizeof one);
    } while (n < 0 && errno == EINTR);
    // EAGAIN means the counter is already huge: the loop is awake anyway.
    return (n == sizeof one || errno == EAGAIN) ? 0 : -1;
}

int kith_eventfd_drain(int fd) {
    uint64_t value;
    return read(fd, &value, sizeof value) == sizeof value ? 0 : -1;
}

static void signal_set(sigset_t *set) {
    sigemptyset(set);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGHUP);
}

int kith_signals_block_and_ignore_pipe(void) {
    signal(SIGPIPE, SIG_IGN);
    sigset_t set;
    signal_set(&set);
    return pthread_sigmask(SIG_BLOCK, &set, NULL);
}

int kith_signalfd(void) {
    sigset_t set;
    signal_set(&set);
    return signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

int kith_signalfd_read(int fd) {
    struct signalfd_siginfo info;
    ssize_t n = read(fd, &info, sizeof info);
    if (n == sizeof info) return (int)info.ssi_signo;
    if (n < 0 && errno == EAGAIN) return 0;
    return -1;
}

int kith_listen_tcp(const char *host, int port, int backlog, int reuseport, int *bound_port) {
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    char portText[16];
    snprintf(portText, sizeof portText, "%d", port);
    int rc = getaddrinfo(host, portText, &hints, &res);
    if (rc != 0) { errno = EINVAL; return -1; }
    int fd = -1;
    for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0) continue;
        int one = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (reuseport) setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one);
        if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, backlog) == 0) break;
        int saved = errno;
        close(fd);
        fd = -1;
        errno = saved;
    }
    freeaddrinfo(res);
    if (fd >= 0 && bound_port) {
        struct sockaddr_storage addr;
        socklen_t len = sizeof addr;
        if (getsockname(fd, (struct sockaddr *)&addr, &len) == 0) {
            if (addr.ss_family == AF_INET) *bound_port = ntohs(((struct sockaddr_in *)&addr)->sin_port);
            else *bound_port = ntohs(((struct sockaddr_in6 *)&addr)->sin6_port);
        }
    }
    return fd;
}

int kith_accept(int listen_fd) {
    return accept4(listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

int kith_set_nodelay(int fd) {
    int one = 1;
    return setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

ssize_t kith_send(int fd, const void *buf, size_t len) {
    ssize_t n;
    do {
        n = send(fd, buf, len, MSG_NOSIGNAL);
    } while (n < 0 && errno == EINTR);
    return n;
}

ssize_t kith_sendfile(int out_fd, int in_fd, int64_t *offset, size_t count) {
    off_t off = (off_t)*offset;
    ssize_t n;
    do {
        n = sendfile(out_fd, in_fd, &off, count);
    } while (n < 0 && errno == EINTR);
    *offset = (int64_t)off;
    return n;
}

int kith_shutdown_write(int fd) { return shutdown(fd, SHUT_WR); }

void kith_peer_address(int fd, char *buf, size_t len) {
    struct sockaddr_storage addr;
    socklen_t alen = sizeof addr;
    buf[0] = 0;
    if (getpeername(fd, (struct sockaddr *)&addr, &alen) != 0) return;
    if (addr.ss_family == AF_INET) {
        inet_ntop(AF_INET, &((struct sockaddr_in *)&addr)->sin_addr, buf, (socklen_t)len);
    } else if (addr.ss_family == AF_INET6) {
        inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&addr)->sin6_addr, buf, (socklen_t)len);
    }
}

int kith_raise_nofile_limit(uint64_t *soft_out) {
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0) return -1;
    rl.rlim_cur = rl.rlim_max;
    int rc = setrlimit(RLIMIT_NOFILE, &rl);
    getrlimit(RLIMIT_NOFILE, &rl);
    if (soft_out) *soft_out = (uint64_t)rl.rlim_cur;
    return rc;
}

uint64_t kith_process_cpu_micros(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

uint64_t kith_monotonic_nanos(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int64_t kith_rss_bytes(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f) return -1;
    long pages = 0, resident = 0;
    int ok = fscanf(f, "%ld %ld", &pages, &resident);
    fclose(f);
    if (ok != 2) return -1;
    return (int64_t)resident * sysconf(_SC_PAGESIZE);
}

int kith_trim_heap(void) {
    return malloc_trim(0);
}

/* Start-up runs code that never runs again (migrations, precompressing
 * Public/, configuration), and the kernel maps code around every page that
 * faults, so a server that has just started holds megabytes of code pages it
 * will not touch. This lets go of the process's mappings of its read-only
 * file pages, code and constant data (the pages stay in the page cache,
 * shared, and fault back in on use), so resident memory counts the code
 * the server actually runs, and marks them random-access so a fault reads no
 * more from disk than it needs. (The kernel still maps up to 64 KiB of
 * neighbours already in the page cache around each fault: idle work brings
 * back more than its own pages.) Mappings with copied-on-write
 * pages (a debugger's breakpoint) are left alone: those would be lost. Returns
 * the bytes released, or -1 when /proc/self/smaps cannot be read. */
long kith_release_startup_code(void) {
    FILE *smaps = fopen("/proc/self/smaps", "r");
    if (!smaps) return -1;
    char line[512];
    unsigned long start = 0, end = 0;
    int candidate = 0;
    long released = 0;
    unsigned long rss = 0;
    while (fgets(line, sizeof line, smaps)) {
        unsigned long a, b;
        char perms[5];
        if (sscanf(line, "%lx-%lx %4s", &a, &b, perms) == 3) {
            start = a;
            end = b;
            /* Code and read-only data; relocated read-only data has
             * copied-on-write pages and is skipped below. */
            candidate = perms[0] == 'r' && perms[1] == '-' && perms[3] == 'p' && strchr(line, '/') != NULL;
            rss = 0;
            continue;
        }
        unsigned long kib;
        if (sscanf(line, "Rss: %lu kB", &kib) == 1) rss = kib;
        /* Anonymous, not Private_Dirty: a binary just written is dirty in
         * the page cache, yet shared and safe to drop; copied-on-write
         * pages are what would be lost. */
        if (candidate && sscanf(line, "Anonymous: %lu kB", &kib) == 1) {
            candidate = 0;
            if (kib != 0) continue;
            if (madvise((void *)start, end - start, MADV_DONTNEED) == 0) released += (long)rss * 1024;
            madvise((void *)start, end - start, MADV_RANDOM);
        }
    }
    fclose(smaps);
    return released;
}
