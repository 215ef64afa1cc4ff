#!/usr/bin/python3
"""GUI monkey test: thousands of random clicks, drags, wheel turns, keys, typing, pastes (Hangul, emoji, a 10 KB
word) and window resizes on the real attnviz under Xvfb, for a bounded time. The app must keep drawing frames (the
--widgets-json frame counter advances), never exit, quit cleanly with Ctrl+Q, and start again from the settings it
saved (a second launch with the same XDG_CONFIG_HOME gets its first results and draws frames).

  python3 tests/gui/monkey_test.py --app build/attnviz --source . [--seconds 60] [--seed N]

MONKEY_SECONDS and MONKEY_SEED in the environment do the same (`MONKEY_SECONDS=1800 ctest -R monkey`); the seed is
printed, so a failure can be replayed. Actions go to xdotool in batches (one process per batch), which is what
makes thousands of them fit in a minute. The session helpers (Xvfb, the widgets JSON, the clipboard) are
e2e_test.py's.
"""
import argparse
import os
import random
import shutil
import signal
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e_test  # noqa: E402
from e2e_test import AppSession, _die_with_parent  # noqa: E402

import subprocess  # noqa: E402

WIDTH, HEIGHT = 1280, 800
MENU_BAR = 30  # pixels at the top of the window the pointer keeps off
# Keys a person might press anywhere; no Ctrl+Q (quits: the end of the run does that on purpose).
KEYS = ["Left", "Right", "Up", "Down", "Tab", "Return", "BackSpace", "Delete", "Home", "End", "Escape", "space",
        "Page_Up", "Page_Down", "s", "a", "z", "1", "9", "0", "minus", "period", "comma", "bar", "F1", "F5",
        "ctrl+a", "ctrl+c", "ctrl+x", "ctrl+z", "ctrl+y", "shift+Tab", "shift+Left", "shift+End", "ctrl+Left"]
TYPED = ["I go home.", "the cat sat", "0", "4096", "-1", "1e30", "nan", "|||", "a ||| b", "#", "  ", "x" * 200,
         "9999999999999999999", "0x10", "/dev/zero", "/", "..", "tests/fixtures/models_e2e/gpt2"]
PASTES = ["학교에 갑니다", "나는 사과를 먹었다 ||| I eat", "😀🎉 emoji 👍🏽", "e\u0301\u200b\u202e", "\t\n\n",
          "w" * 10240, ("가" * 3000) + " end"]


class Monkey:
    def __init__(self, session, rng):
        self.s = session
        self.rng = rng
        self.actions = 0
        self.counts = {}

    def point(self):
        # Mostly inside the window as it is now (it may have been resized), sometimes anywhere on the screen.
        # Never on the main menu bar (its File > Quit ends the app on purpose, as Ctrl+Q does).
        w, h = self.size
        if self.rng.random() < 0.9:
            return self.rng.randrange(0, max(1, w)), self.rng.randrange(MENU_BAR, max(MENU_BAR + 1, h))
        return self.rng.randrange(-50, WIDTH + 50), self.rng.randrange(MENU_BAR, HEIGHT + 50)

    def count(self, kind):
        self.counts[kind] = self.counts.get(kind, 0) + 1
        self.actions += 1

    def press(self, chord, hold=0.03):
        """keydown, hold past a frame (imgui 1.86 loses shorter presses), keyup, in reverse order."""
        keys = chord.split("+")
        return (sum((["keydown", k] for k in keys), []) + ["sleep", str(hold)] +
                sum((["keyup", k] for k in reversed(keys)), []))

    @staticmethod
    def click(button):
        # xdotool's own `click` waits ~0.1 s after each; the GLFW backend sees a press shorter than a frame.
        return ["mousedown", button, "sleep", "0.01", "mouseup", button]

    def batch(self, n):
        """n random actions as one xdotool command line."""
        wid = self.s.wid
        actions = []
        for _ in range(n):
            cmd = []
            r = self.rng.random()
            if r < 0.35:
                x, y = self.point()
                button = self.rng.choice(["1", "1", "1", "3"])
                cmd += ["mousemove", "--window", wid, str(x), str(y)] + self.click(button)
                self.count("click")
            elif r < 0.5:
                (xa, ya), (xb, yb) = self.point(), self.point()
                cmd += ["mousemove", "--window", wid, str(xa), str(ya), "mousedown", "1"]
                steps = self.rng.randrange(2, 6)
                for i in range(1, steps + 1):
                    cmd += ["sleep", "0.01", "mousemove", "--window", wid,
                            str(xa + (xb - xa) * i // steps), str(ya + (yb - ya) * i // steps)]
                cmd += ["sleep", "0.02", "mouseup", "1"]
                self.count("drag")
            elif r < 0.6:
                x, y = self.point()
                cmd += ["mousemove", "--window", wid, str(x), str(y)]
                cmd += self.click(self.rng.choice(["4", "5"])) * self.rng.randrange(1, 6)
                self.count("wheel")
            elif r < 0.8:
                cmd += self.press(self.rng.choice(KEYS))
                self.count("key")
            elif r < 0.9:
                cmd += ["type", "--delay", "1", self.rng.choice(TYPED)]
                self.count("type")
            else:
                x, y = self.point()
                cmd += ["mousemove", "--window", wid, str(x), str(y), "sleep", "0.02"] + self.click("1") + \
                    ["sleep", "0.02"] + self.press("ctrl+a") + ["type", "--delay", "1", self.rng.choice(TYPED)]
                self.count("select+type")
            actions.append(cmd)
        if os.environ.get("MONKEY_DEBUG"):
            for cmd in actions:
                t = time.time()
                self.s.xdotool(*cmd, check=False, timeout=120)
                print("monkey: %.2f s: %s" % (time.time() - t, " ".join(cmd)[:150]), flush=True)
        else:
            # `type` takes every argument after it as text: it ends a command line.
            line = []
            for cmd in actions:
                line += cmd
                if "type" in cmd:
                    self.s.xdotool(*line, check=False, timeout=120)
                    line = []
            if line:
                self.s.xdotool(*line, check=False, timeout=120)

    def paste(self):
        x, y = self.point()
        self.s.xdotool("mousemove", "--window", self.s.wid, str(x), str(y), *self.click("1"), check=False)
        text = self.rng.choice(PASTES)
        if self.s.clipboard and self.s.clipboard.poll() is None:
            self.s.clipboard.terminate()
            self.s.clipboard.wait()
        self.s.clipboard = subprocess.Popen(["xclip", "-selection", "clipboard", "-quiet"], stdin=subprocess.PIPE,
                                            env=self.s.env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                            preexec_fn=_die_with_parent)
        self.s.clipboard.stdin.write(text.encode("utf-8"))
        self.s.clipboard.stdin.close()
        time.sleep(0.05)
        self.s.xdotool(*self.press("ctrl+v", hold=0.08), check=False)
        self.count("paste")

    def resize(self):
        w = self.rng.choice([self.rng.randrange(1, 200), self.rng.randrange(200, WIDTH + 1), WIDTH])
        h = self.rng.choice([self.rng.randrange(1, 150), self.rng.randrange(150, HEIGHT + 1), HEIGHT])
        self.s.xdotool("windowsize", self.s.wid, str(w), str(h), check=False)
        self.size = (w, h)
        self.count("resize")


def drawing(session, timeout):
    """The frame counter advances (by 2) within `timeout` seconds; returns the frame seen."""
    start = session.widgets()["frame"]
    w = session.wait_for(lambda w: w["frame"] >= start + 2, timeout=timeout, what="new frames (a hung app?)")
    return w["frame"]


def run(seconds, seed):
    rng = random.Random(seed)
    print("monkey: seed %d, %d s" % (seed, seconds), flush=True)
    xdg = tempfile.mkdtemp(prefix="attnviz-monkey-xdg-")
    work = tempfile.mkdtemp(prefix="attnviz-monkey-cwd-")
    os.chdir(work)  # exports land here (the default export folder is ".")
    try:
        monkey_then_restart(rng, seconds, seed, xdg)
    finally:
        os.chdir("/")
        shutil.rmtree(xdg, ignore_errors=True)
        shutil.rmtree(work, ignore_errors=True)


def monkey_then_restart(rng, seconds, seed, xdg):
    sample = os.path.join(e2e_test.SOURCE, "assets", "sentences.txt")
    s = AppSession(["--text-file", sample], xdg=xdg)
    try:
        monkey = Monkey(s, rng)
        monkey.size = (WIDTH, HEIGHT)
        deadline = time.time() + seconds
        checks = 0
        while time.time() < deadline:
            r = rng.random()
            if r < 0.08:
                monkey.paste()
            elif r < 0.14:
                monkey.resize()
            else:
                monkey.batch(rng.randrange(5, 25))
            t_act = time.time()
            # Still alive and drawing: a hang (a frame that never ends) fails here, a crash in wait_for.
            drawing(s, timeout=60)
            if os.environ.get("MONKEY_DEBUG"):
                print("monkey: %d actions, %.2f s to see 2 frames" % (monkey.actions, time.time() - t_act), flush=True)
            checks += 1
        # Release anything a batch may have left held, give the window its size back, then quit as a person.
        for k in ("ctrl", "shift", "alt"):
            s.xdotool("keyup", k, check=False)
        s.xdotool("mouseup", "1", check=False)
        s.xdotool("windowsize", s.wid, str(WIDTH), str(HEIGHT), check=False)
        drawing(s, timeout=60)
        print("monkey: %d actions (%s), %d frame checks" %
              (monkey.actions, ", ".join("%s %d" % kv for kv in sorted(monkey.counts.items())), checks), flush=True)
        code = s.quit_with_ctrl_q()
        if code != 0:
            raise AssertionError("attnviz exited with %s after the monkey (seed %d):\n%s" % (code, seed, s.app_log()))
    except BaseException:
        print("monkey: FAILED with seed %d; app log:\n%s" % (seed, s.app_log()[-4000:]), flush=True)
        raise
    finally:
        s.close()
        s.cleanup()
    settings = os.path.join(xdg, "attnviz", "settings.txt")
    if not os.path.exists(settings):
        raise AssertionError("no settings saved at " + settings)
    # Second launch from what the first one saved: first results, then frames.
    s2 = AppSession([], xdg=xdg)
    try:
        drawing(s2, timeout=60)
        log = s2.app_log()
        if os.path.exists(settings + ".corrupt") or "corrupt" in log:
            raise AssertionError("the saved settings did not read back (seed %d):\n%s" % (seed, log))
        code = s2.quit_with_ctrl_q()
        if code != 0:
            raise AssertionError("second launch exited with %s (seed %d):\n%s" % (code, seed, s2.app_log()))
    finally:
        s2.close()
        s2.cleanup()
    print("monkey: ok; the second launch restored the saved settings and drew frames", flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--app", required=True)
    parser.add_argument("--source", default=os.path.join(os.path.dirname(__file__), "..", ".."))
    parser.add_argument("--seconds", type=float, default=float(os.environ.get("MONKEY_SECONDS", "60")))
    parser.add_argument("--seed", type=int, default=int(os.environ.get("MONKEY_SEED", str(int(time.time())))))
    args = parser.parse_args()
    e2e_test.APP = os.path.abspath(args.app)
    e2e_test.SOURCE = os.path.abspath(args.source)
    # ctest's timeout sends SIGTERM: turn it into an exception so every cleanup (processes, temp dirs) runs.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    run(args.seconds, args.seed)


if __name__ == "__main__":
    main()
