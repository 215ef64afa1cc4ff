#!/usr/bin/python3
"""End-to-end tests of the app on the bundled encoder-decoder model (assets/models/tiny-seq2seq: dates written out
-> ISO 8601): the real attnviz binary under Xvfb, driven with xdotool. A typed source date is translated (greedy),
a cross-attention head clicked in the Overview, a hovered cell's weight compared with attnviz-cli's dump of the same
run; Translate pressed while the folder is still opening; lesson (b)'s second part (trained weights). The session
helpers (Xvfb, widgets JSON, clicks, typing, snapshots) are e2e_test.py's.

  python3 tests/gui/e2e_seq2seq_test.py --app build/attnviz --source . [--keep] [Seq2SeqE2E.test_name ...]
"""
import json
import os
import shutil
import struct
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e_test  # noqa: E402
from e2e_test import AppSession, colour_spread, region  # noqa: E402

DATE = "March 3, 1999"
ISO = "1999-03-03"


def model_dir():
    return os.path.join(e2e_test.SOURCE, "assets", "models", "tiny-seq2seq")


def read_npy_f32(path):
    """A little-endian float32 .npy (C order): its shape and values."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:6] == b"\x93NUMPY", path
    header_len = struct.unpack("<H", data[8:10])[0]
    header = data[10:10 + header_len].decode("latin1")
    assert "'<f4'" in header and "'fortran_order': False" in header, header
    shape = tuple(int(d) for d in header.split("'shape': (")[1].split(")")[0].split(",") if d.strip())
    count = 1
    for d in shape:
        count *= d
    return shape, struct.unpack("<%df" % count, data[10 + header_len:10 + header_len + 4 * count])


def cli_cross_attention(tmp, source, target):
    """attnviz-cli's cross-attention of the bundled model on `source` with `target` forced: shape
    [n_layer, n_head, n_tgt, n_src] and the values."""
    cli = os.path.join(os.path.dirname(e2e_test.APP), "attnviz-cli")
    out = os.path.join(tmp, "cli_dump")
    subprocess.run([cli, "model", "--model", model_dir(), "--text", source, "--target-text", target, "--dump", out],
                   check=True, capture_output=True, timeout=120)
    return read_npy_f32(os.path.join(out, "cross_attention.npy"))


def translated(text):
    """The translation is done and the forced run of it shown (the cross stack has one row per target token)."""
    def done(w):
        f = w["fields"]
        target = w["widgets"].get("model.target_text", {}).get("value")
        return (target == text and f.get("ready") and f.get("seq2seq_generated_ids")
                and "overview.cross.1.3" in w["widgets"])
    return done


class Seq2SeqE2E(unittest.TestCase):
    def start(self, *args, **kwargs):
        session = AppSession(args, **kwargs)
        self.addCleanup(session.cleanup)
        self.addCleanup(session.close)
        return session

    def test_tiny_seq2seq_type_date_translate_click_cross_head_and_hover(self):
        """--model tiny-seq2seq: a date typed into the Source field, Translate, the ISO date in the Target field; a
        click on cross-attention layer 1 head 3 shows it in the Heads panel (rows: target tokens, columns: source
        tokens, n_q != n_k); a hovered cell's weight is attnviz-cli's for the same source and target."""
        s = self.start("--model", "tiny-seq2seq", "--lang", "en")
        s.wait_for(lambda w: "overview.cross" in w["widgets"], timeout=120, what="the three stacks")
        s.replace_text("model.source_text", DATE)
        s.wait_for(lambda w: w["widgets"]["model.source_text"]["value"] == DATE, what="the typed date")
        s.wait_for(lambda w: w["fields"].get("ready"), timeout=120, what="the run of the typed date")
        s.click("model.translate")
        w = s.wait_for(translated(ISO), timeout=120, what="the translation")
        self.assertEqual(w["fields"]["seq2seq_error"], "")
        s.click("overview.cross.1.3")
        w = s.wait_for(lambda w: w["fields"].get("seq2seq_shapes", {}).get("stack") == "cross"
                       and w["fields"]["seq2seq_shapes"]["layer"] == 1 and w["fields"]["selected_head"] == 3
                       and "heads.enlarged" in w["widgets"], what="cross-attention layer 1 head 3 in the Heads panel")
        self.assertTrue(w["widgets"]["overview.cross.1.3"]["value"]["selected"])
        shapes = w["fields"]["seq2seq_shapes"]
        self.assertEqual(shapes["q_from"], "decoder")
        self.assertEqual(shapes["kv_from"], "encoder")
        self.assertEqual(shapes["k"], shapes["v"])  # keys and values in pairs, one per source token
        n_q, n_k = shapes["q"][0], shapes["k"][0]
        self.assertNotEqual(n_q, n_k)
        self.assertEqual(n_q, len(ISO) + 1)  # the start token, then every character but the last (shift_right)
        # The CLI's run of the same source and target: [n_layer, n_head, n_tgt, n_src].
        shape, values = cli_cross_attention(s.tmp, DATE, ISO)
        self.assertEqual(shape[2:], (n_q, n_k))
        n_head = shape[1]

        def want(i, j):
            return values[((1 * n_head + 3) * n_q + i) * n_k + j]
        # The strongest cell of the row that writes the month's last digit (row i writes the target's character i),
        # and a weak one in another row.
        row = 6
        strongest = max(range(n_k), key=lambda j: want(row, j))
        for i, j in ((row, strongest), (1, (strongest + 1) % n_k)):
            hover = e2e_test.hover_cell(s, "heads.enlarged", n_q, n_k, i, j)
            self.assertAlmostEqual(hover["prob"], want(i, j), delta=1e-5, msg=(i, j, hover))
        self.assertGreater(want(row, strongest), 0.5)
        s.wait_frames(2)
        image = s.snapshot()
        self.assertGreater(colour_spread(region(image, s.widget("heads.enlarged")["rect"], inset=2)), 2)
        if e2e_test.KEEP:
            shutil.copy(s.snapshot_path, os.path.join(s.tmp, "tiny_seq2seq_cross_hover.ppm"))

    def test_translate_pressed_while_the_folder_opens(self):
        """Translate pressed as soon as the button is drawn, while the folder is still opening and running: the
        press is kept, and the translation arrives."""
        s = self.start("--model", "tiny-seq2seq", "--text", DATE, "--lang", "en", wait_ready=False)
        w = s.wait_for(lambda w: "model.translate" in w["widgets"], timeout=60, what="the Translate button")
        while_opening = w["widgets"]["model.translate"]["rect"]
        s._find_window()
        s.click("model.translate")
        w = s.wait_for(translated(ISO), timeout=120, what="the translation asked for while opening")
        # The folder's description arrived below the button: it stayed where the press found it.
        self.assertEqual(w["widgets"]["model.translate"]["rect"], while_opening)
        self.assertTrue(w["fields"]["model_description"])

    def test_lens_of_the_translation(self):
        """After Translate: the Overview's Lens shows the decoder's layers by decoder positions, a cell's value the
        probability attnviz-cli's --logit-lens gives the target's next character there, and a cell hovers. (Patching
        is driven headless: test_seq2seq_readouts_app.cpp.)"""
        s = self.start("--model", "tiny-seq2seq", "--text", DATE, "--lang", "en")
        s.wait_for(lambda w: "model.translate" in w["widgets"] and w["fields"].get("ready"), timeout=120,
                   what="the bundled model's first run")
        s.click("model.translate")
        s.wait_for(translated(ISO), timeout=120, what="the translation")
        s.click("overview.show_lens")
        w = s.wait_for(lambda w: w["fields"].get("lens", {}).get("count") == len(ISO) + 1, timeout=120,
                       what="the lens grid over the decoder positions")
        cells = w["fields"]["lens"]["cells"]
        cli = os.path.join(os.path.dirname(e2e_test.APP), "attnviz-cli")
        out = subprocess.run([cli, "model", "--model", model_dir(), "--text", DATE, "--target-text", ISO,
                              "--logit-lens", "5", "--json"], check=True, capture_output=True, timeout=120)
        layers = json.loads(out.stdout)["layers"]
        self.assertEqual(len(cells), len(layers))
        for layer in (0, len(layers) - 1):
            for i in (0, 4):
                want = layers[layer]["positions"][i]
                self.assertEqual(cells[layer][i][0], want["top"][0]["id"], (layer, i))
                self.assertAlmostEqual(cells[layer][i][1], want["next_prob"], delta=1e-5, msg=(layer, i))
        last = len(layers) - 1
        s.move(*s.center("lens.cell.%d.4" % last))
        s.wait_for(lambda w: w["widgets"].get("lens.cell.%d.4" % last, {}).get("hovered"), what="a hovered cell")

    def take_lesson_b_trained_part(self, lang, date):
        """Lesson (b)'s second part under --lang LANG: its button opens the bundled encoder-decoder model on DATE,
        translates it, and shows cross-attention layer 1 head 3 in the Heads panel, the part's words beside the
        Shapes tab. Returns the session."""
        s = self.start("--lang", lang)
        s.click("learn.tab.lessons")
        s.wait_for(lambda w: "lessons.pick.b" in w["widgets"], what="the Lessons tab")
        s.click("lessons.pick.b")
        s.wait_for(lambda w: "lessons.show.b.second" in w["widgets"], what="lesson (b)'s second part")
        s.scroll_into_view("lessons.show.b.second", "panel.Shapes")
        s.click("lessons.show.b.second")
        s.wait_for(translated(ISO), timeout=120, what="the lesson's translation")
        w = s.wait_for(lambda w: w["fields"].get("seq2seq_shapes", {}).get("stack") == "cross"
                       and "heads.enlarged" in w["widgets"], what="the cross stack in the Heads panel")
        self.assertEqual(w["widgets"]["model.source_text"]["value"], date)
        self.assertEqual(w["fields"]["seq2seq_shapes"]["layer"], 1)
        self.assertEqual(w["fields"]["selected_head"], 3)
        self.assertTrue(w["widgets"]["overview.cross.1.3"]["value"]["selected"])
        self.assertNotEqual(w["fields"]["seq2seq_shapes"]["q"][0], w["fields"]["seq2seq_shapes"]["k"][0])
        s.wait_frames(2)
        image = s.snapshot()
        self.assertGreater(colour_spread(region(image, s.widget("heads.enlarged")["rect"], inset=2)), 2)
        if e2e_test.KEEP:
            shutil.copy(s.snapshot_path, os.path.join(s.tmp, "lesson_b_trained_%s.ppm" % lang))
        return s

    def test_lesson_b_trained_weights(self):
        """Lesson (b)'s part with trained weights, in English: "March 3, 1999" -> 1999-03-03."""
        s = self.take_lesson_b_trained_part("en", DATE)
        self.assertIn("trained weights", s.widget("lessons.second_text")["value"])  # beside the Shapes tab

    def test_lesson_b_trained_weights_korean(self):
        """The same part in the Korean UI: a Korean date, and the part's words in Korean beside the Shapes tab."""
        s = self.take_lesson_b_trained_part("ko", "1999년 3월 3일")
        self.assertIn("학습된 가중치", s.widget("lessons.second_text")["value"])


if __name__ == "__main__":
    e2e_test.main()  # --app, --source, --keep; runs this module's tests
