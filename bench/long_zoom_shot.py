#!/usr/bin/python3
"""The README's zoomed 4096-token map: starts attnviz under Xvfb (tests/gui/e2e_test.py's AppSession) on 4096
words from a 12-word vocabulary, 16 heads, d_model 1024, d_k 256, unscaled, causal; shows head 0 enlarged, zooms
with the mouse wheel into the top-left corner (early rows see few keys, so their weights are large) to about
40 x 40 exact cells, hovers a cell and
saves the window as PNG.  usage: /usr/bin/python3 bench/long_zoom_shot.py BUILD_DIR OUT.png"""
import os
import random
import struct
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "gui"))
import e2e_test  # noqa: E402


def write_png(path, width, height, rgb):
    rows = b"".join(b"\0" + rgb[y * width * 3:(y + 1) * width * 3] for y in range(height))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)) +
                chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b""))


def shoot(args, drive, out):
    """Starts attnviz (e2e_test.APP) with ARGS under Xvfb, lets DRIVE(session) bring the window to the picture
    wanted, and saves the window as the PNG OUT."""
    s = e2e_test.AppSession(args)
    try:
        drive(s)
        s.wait_frames(3)
        width, height, rgb = s.snapshot()
        write_png(out, width, height, rgb)
    finally:
        s.close()
        s.cleanup()


def main():
    build, out = sys.argv[1], sys.argv[2]
    e2e_test.APP = os.path.join(build, "attnviz")
    rng = random.Random(7)
    vocab = ["".join(rng.choice("abcdefghijklmnop") for _ in range(rng.randint(2, 6))) for _ in range(12)]
    text = " ".join(rng.choice(vocab) for _ in range(4096))
    args = ["--no-settings", "--text", text, "--heads", "16", "--d-model", "1024", "--dk", "256", "--no-scale",
            "--mask", "causal"]

    def drive(s):
        s.wait_for(lambda w: not w["fields"]["computing"], timeout=600, what="the maps, twin and z")
        s.click("heads.view_enlarged")
        name = "heads.enlarged"
        s.wait_for(lambda w: name in w["widgets"], what="the enlarged map")
        x0, y0, x1, y1 = s.widget(name)["rect"]
        s.zoom_to(name, 0.005, 0.008, 40)  # the top-left corner: early rows see few keys
        s.wait_for(lambda w: w["widgets"][name]["value"]["level"] == -1, timeout=60, what="exact cells")
        s.move(x0 + (x1 - x0) * 0.3, y0 + (y1 - y0) * 0.6)
        s.wait_for(lambda w: name + ".hover" in w["widgets"], timeout=60, what="the hover")
        print("window", s.widget(name)["value"]["window"])

    shoot(args, drive, out)

if __name__ == "__main__":
    main()
