"""Process helpers of the benchmark scripts: CPU time from /proc and free loopback ports."""

import os
import socket

CLK_TCK = os.sysconf("SC_CLK_TCK")


def cpu_times(pid):
    """(user, system) CPU seconds of pid, all threads (fields 14 and 15 of stat(5))."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) / CLK_TCK, int(fields[12]) / CLK_TCK


def cpu_seconds(pid):
    return sum(cpu_times(pid))


def free_ports(n):
    """n distinct free TCP ports on 127.0.0.1."""
    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


def thread_cpu(pid):
    """CPU seconds of pid's threads summed by thread name (comm, e.g. bsf-engine), from
    schedstat (nanoseconds on a CPU; stat's ticks are too coarse for short runs)."""
    out = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/comm") as f:
                name = f.read().strip()
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                ns = int(f.read().split()[0])
        except OSError:
            continue
        out[name] = out.get(name, 0.0) + ns / 1e9
    return out


def thread_cpu_delta(before, after):
    return {k: after.get(k, 0.0) - before.get(k, 0.0) for k in after}


def wait_ready(ops, timeout=120.0, poll=0.05):
    """Waits until bsfd's ops listener on 127.0.0.1:`ops` answers /health/ready with 200;
    returns the seconds since this call (httpx's import, here, is not in them: time a start
    from before the Popen). Raises TimeoutError after `timeout`."""
    import time

    import httpx
    t0 = time.monotonic()
    while time.monotonic() - t0 < timeout:
        try:
            if httpx.get(f"http://127.0.0.1:{ops}/health/ready").status_code == 200:
                return time.monotonic() - t0
        except httpx.HTTPError:
            pass
        time.sleep(poll)
    raise TimeoutError(f"bsfd not ready after {timeout} s")
