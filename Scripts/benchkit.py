"""What Kith's benchmark scripts share: ports, processes and their figures."""
import os
import re
import shutil
import signal
import socket
import subprocess
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(port, timeout=20):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listening on {port}")


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def start(command, port, env=None, log=None):
    """Starts a server from the repository's root, its output discarded (its
    errors to `log` if given), and returns once `port` accepts connections."""
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=log or subprocess.DEVNULL,
                               env=env, cwd=ROOT)
    try:
        wait_for(port)
    except RuntimeError:
        process.kill()
        raise
    return process


def cpu_ticks(pid):
    """User plus system time of a process, in clock ticks."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def cpu_ticks_tree(pid):
    """`cpu_ticks` of a process and its live children (nginx's workers)."""
    total = cpu_ticks(pid)
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            children = [int(child) for child in f.read().split()]
    except OSError:
        children = []
    for child in children:
        try:
            total += cpu_ticks(child)
        except OSError:
            pass
    return total


def cpu_seconds(pid):
    return cpu_ticks(pid) / os.sysconf("SC_CLK_TCK")


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def print_targets(title, rows):
    """Prints one table of figures beside the issue's targets, the shape every
    part of `make bench` shares. `rows` are (figure, value text, target text,
    met) where met is True, False or None (no target, or not comparable)."""
    print(f"\n{title}\n")
    width = max([len("figure")] + [len(r[0]) for r in rows])
    print(f"| {'figure':<{width}} | {'value':>22} | {'target':>16} | met |")
    print(f"|{'-' * (width + 2)}|{'-' * 24}|{'-' * 18}|-----|")
    for figure, value, target, met in rows:
        mark = "—" if met is None else ("yes" if met else "NO")
        print(f"| {figure:<{width}} | {value:>22} | {target:>16} | {mark:>3} |")


def stop_all(processes, timeout=20):
    """SIGTERM to every process, then waits for each (killing one that lingers)."""
    for process in processes:
        process.send_signal(signal.SIGTERM)
    for process in processes:
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.kill()


def stop(process, scratch=None):
    """Stops one server the way its operator would and removes its scratch
    data directory."""
    stop_all([process], timeout=30)
    if scratch:
        shutil.rmtree(scratch, ignore_errors=True)


def start_kith(kith, data, *options):
    """Starts `kith serve` on a port of its choosing and returns the process
    and the port its start-up banner names."""
    proc = subprocess.Popen([kith, "serve", "--port", "0", "--data", data, "--quiet", *options],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    deadline = time.time() + 30
    banner = ""
    while time.time() < deadline:
        banner += proc.stdout.readline()
        m = re.search(r"(?:listening on [^:\s]+:|http://127\.0\.0\.1:)(\d+)", banner)
        if m:
            return proc, int(m.group(1))
    proc.kill()
    raise RuntimeError("kith did not start: " + banner)
