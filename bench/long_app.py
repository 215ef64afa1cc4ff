#!/usr/bin/python3
"""Long inputs in the desktop app itself (issue 8's targets), driven as a person would under Xvfb
(tests/gui/e2e_test.py's AppSession): 4096 words (N), 16 heads, d_model 1024. Prints one markdown row:
  window  seconds from the process start to the first drawn frame (the app is ready)
  maps    seconds from that first frame to every head's map on screen (the first published result)
  sweep   seconds from that first frame to the d_k sweep on screen
  toggle  a new temperature typed into its slider, and the scaling checkbox (a swap with the precomputed twin):
          the worker's seconds from the request to its first published step (every head's map); median of 3
  peak RSS of the app (VmHWM), after all of the above
Each wall time is on this machine as it is; the load average is printed with it.
usage: /usr/bin/python3 bench/long_app.py BUILD_DIR [N]"""
import os
import random
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "gui"))
import e2e_test  # noqa: E402


def vm_hwm_mib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def main():
    build = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 4096
    e2e_test.APP = os.path.join(build, "attnviz")
    rng = random.Random(7)
    vocab = ["".join(rng.choice("abcdefghijklmnop") for _ in range(rng.randint(2, 6))) for _ in range(512)]
    text = " ".join(rng.choice(vocab) for _ in range(n))
    t0 = time.time()
    s = e2e_test.AppSession(["--no-settings", "--text", text, "--heads", "16", "--d-model", "1024"], wait_ready=False)
    try:
        s.wait_for(lambda w: w["frame"] >= 1, timeout=120, what="the first frame")
        t_window = time.time()
        s.wait_for(lambda w: w["fields"].get("result") and w["fields"]["result"]["n_q"] == n, timeout=600,
                   what="the first maps")
        t_maps = time.time()
        s.wait_for(lambda w: int(w["fields"]["sweep_points"]) > 0, timeout=600, what="the sweep")
        t_sweep = time.time()
        s._find_window()
        s.wait_idle(timeout=600)

        def shown_after(action, what):
            # The worker's own time for the first published step of the new request (maps and figures): from
            # the request's start to its maps, as SandboxExtras::seconds says; the frame that draws it follows.
            before = int(s.widgets()["fields"]["submitted"])
            action()
            first = None
            deadline = time.time() + 600
            while time.time() < deadline:
                f = s.widgets()["fields"]
                r = f.get("result")
                if r and int(r["generation"]) > before and int(r["generation"]) == int(f["submitted"]):
                    if first is None:
                        first = float(r["seconds"])
                    if not f["computing"]:
                        break
                time.sleep(0.005)
            if first is None:
                raise AssertionError("timed out waiting for " + what)
            s.wait_idle(timeout=600)
            return first

        temps, scales = [], []
        for t in ("0.5", "2", "1"):
            temps.append(shown_after(lambda: s.type_into_slider("controls.temperature", t), "temperature " + t))
        for _ in range(3):
            scales.append(shown_after(lambda: s.click("controls.scale"), "the scaling toggle"))
        rss = vm_hwm_mib(s.proc.pid)
    finally:
        s.close()
        s.cleanup()
    load = open("/proc/loadavg").read().split()[0]
    print("app, %d tokens x 16 heads, d_model 1024, %d cores, load average %s" % (n, os.cpu_count(), load))
    print("| n | window s | first maps s | sweep s | temperature toggle s (median of 3) | scaling toggle s | peak RSS MiB |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    print("| %d | %.2f | %.2f | %.2f | %.2f | %.2f | %.0f |" % (n, t_window - t0, t_maps - t_window, t_sweep - t_window,
                                                        statistics.median(temps), statistics.median(scales), rss))


if __name__ == "__main__":
    main()
