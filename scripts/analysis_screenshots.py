#!/usr/bin/python3
"""The screenshots of docs/analysis.md ("In the app"): the real app on the bundled model (`--model tiny`) under Xvfb,
driven with xdotool through the e2e helpers (tests/gui/e2e_test.py), one PNG per view into assets/readme/:

  analysis_predictions.png   a token's top next tokens pinned, the loss line
  analysis_ablation.png      a head ablated from its Overview menu: crossed out, loss before -> after
  analysis_scan.png          "ablate each head once": the ranked table, the Overview coloured by delta loss
  analysis_neuron.png        the neuron view of a clicked cell
  analysis_rollout.png       the rollout map kind (Heads panel and Overview)
  analysis_value_weighted.png  the value-weighted map kind
  analysis_token_loss.png    the tokens coloured by their loss change with an induction head ablated
  analysis_lens.png          the Overview's logit lens, a cell hovered
  analysis_attribution.png   the Overview's direct logit attribution of the last position
  analysis_patching.png      activation patching: "mat" against "hat", the heads and the residual stream

  python3 scripts/analysis_screenshots.py --app build/attnviz [--source .] [--out assets/readme]
"""
import argparse
import os
import struct
import sys
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "gui"))
import e2e_test  # noqa: E402
from e2e_model_test import ModelE2E  # noqa: E402  (reveal, right_click, hover_cell)

TEXT = "The cat sat on the mat. The cat sat on the mat."  # repeated: the induction heads have work to do


def save(s, out, name, keep_pointer=False):
    """The window as drawn now, as PNG (the app's snapshot is PPM; pnmtopng/convert may be absent: python writes it)."""
    if not keep_pointer:
        x0, y0, x1, y1 = s.widget("panel.Sentences")["rect"]
        s.move(x0 + 10, y1 - 10)  # no tooltip over the view
    s.wait_frames(3)
    width, height, pixels = s.snapshot()
    rows = b"".join(b"\x00" + bytes(pixels[y * width * 3:(y + 1) * width * 3]) for y in range(height))
    chunk = lambda kind, data: (struct.pack(">I", len(data)) + kind + data +
                                struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
    png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)) +
           chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b""))
    path = os.path.join(out, name)
    with open(path, "wb") as f:
        f.write(png)
    print("wrote", path)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--app", required=True)
    parser.add_argument("--source", default=os.path.join(HERE, ".."))
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    e2e_test.APP = os.path.abspath(args.app)
    e2e_test.SOURCE = os.path.abspath(args.source)
    out = args.out or os.path.join(e2e_test.SOURCE, "assets", "readme")
    helpers = ModelE2E()
    s = e2e_test.AppSession(["--model", "tiny", "--text", TEXT, "--lang", "en"])
    try:
        def loss_ready(w):
            o = w["fields"].get("overview")
            return o and o["layers_shown"] == o["n_layer"] and w["fields"].get("loss", {}).get("value") is not None
        w = s.wait_for(loss_ready, timeout=120, what="the bundled model's overview and loss")
        n_layer, n_head = w["fields"]["overview"]["n_layer"], w["fields"]["overview"]["n_head"]
        # 1. Predictions: the chip of "sat" (its second time) pinned.
        chips = sorted((k for k in w["widgets"] if k.startswith("model.token.")), key=lambda k: int(k.split(".")[-1]))
        chip = chips[len(chips) * 3 // 4]
        helpers.reveal(s, chip)
        s.click(chip)
        s.wait_for(lambda w: w["fields"]["predictions"]["pinned_text"] != "", what="pinned predictions")
        save(s, out, "analysis_predictions.png", keep_pointer=True)  # the chip's tooltip: its top next tokens
        # 2. Ablation: layer 1's first induction head from its Overview menu.
        helpers.right_click(s, "overview.map.%d.0" % (n_layer - 1))
        s.wait_for(lambda w: "menu.ablate_head" in w["widgets"], what="the head's menu")
        s.click("menu.ablate_head")
        s.wait_for(lambda w: w["fields"]["ablated"] and not w["fields"]["loss"].get("plain")
                   and w["fields"]["loss"].get("value") is not None and loss_ready(w), timeout=120,
                   what="the ablated run's loss")
        save(s, out, "analysis_ablation.png")
        helpers.reveal(s, "model.restore_all")
        s.click("model.restore_all")
        s.wait_for(lambda w: w["fields"]["ablated"] == [] and w["fields"]["loss"].get("plain") and loss_ready(w),
                   timeout=120, what="the plain run again")
        # 3. The scan, and the Overview coloured by it.
        helpers.reveal(s, "model.scan")
        s.click("model.scan")
        s.wait_for(lambda w: "model.scan_color" in w["widgets"] and not w["fields"]["ablation_scan"]["busy"],
                   timeout=300, what="the scan")
        helpers.reveal(s, "model.scan_color")
        s.click("model.scan_color")
        save(s, out, "analysis_scan.png")
        s.click("model.scan_color")
        # 4, 5. The other map kinds, then attention again.
        for kind, name in (("rollout", "analysis_rollout.png"), ("value_weighted", "analysis_value_weighted.png")):
            s.click("heads.kind_" + kind)
            s.wait_for(lambda w: w["fields"]["map_kind"]["kind"] == kind and w["fields"]["overview"]["kind"] == kind,
                       what=kind)
            save(s, out, name)
        s.click("heads.kind_attention")
        s.wait_for(lambda w: w["fields"]["map_kind"]["kind"] == "attention", what="attention")
        # 6. The tokens coloured by their loss change with layer 1's head 2 (an induction head) ablated.
        helpers.right_click(s, "overview.map.%d.2" % (n_layer - 1))
        s.wait_for(lambda w: "menu.ablate_head" in w["widgets"], what="the head's menu")
        s.click("menu.ablate_head")
        s.wait_for(lambda w: w["fields"]["ablated"] and not w["fields"]["loss"].get("plain") and loss_ready(w),
                   timeout=120, what="the ablated run")
        helpers.reveal(s, "model.chip_color_delta")
        s.click("model.chip_color_delta")
        s.wait_for(lambda w: w["fields"].get("token_loss", {}).get("mode") == "change", what="chips by loss change")
        helpers.reveal(s, chips[-1])  # the coloured chips in sight, their legend above them
        save(s, out, "analysis_token_loss.png")
        helpers.reveal(s, "model.restore_all")
        s.click("model.restore_all")
        s.wait_for(lambda w: w["fields"]["ablated"] == [] and loss_ready(w), timeout=120, what="the plain run again")
        # 7, 8. The logit lens (a cell hovered: its top 5) and the attribution of the last position.
        s.click("overview.show_lens")
        s.wait_for(lambda w: "lens.cell.1.4" in w["widgets"], timeout=60, what="the lens")
        s.move(*s.center("lens.cell.1.4"))
        s.wait_for(lambda w: w["widgets"]["lens.cell.1.4"]["hovered"], what="a hovered lens cell")
        save(s, out, "analysis_lens.png", keep_pointer=True)
        s.click("overview.show_attribution")
        s.wait_for(lambda w: "attribution" in w["fields"] and "attrib.cell.1.2" in w["widgets"], timeout=60,
                   what="the attribution grid")
        save(s, out, "analysis_attribution.png")
        # 9. Patching: the shown text says "mat", the clean one "hat"; the metric logit(" m") - logit(" h").
        s.click("overview.show_maps")
        s.replace_text("sentences.kv_text", "The cat sat on the mat. The cat sat on the")
        s.wait_for(lambda w: loss_ready(w) and w["fields"]["model_tokens"].endswith("\u00b7the"), timeout=120, what="the corrupted text's run")
        s.click("overview.show_patching")
        s.wait_for(lambda w: "patch.clean" in w["widgets"], what="the patching view")
        s.replace_text("patch.clean", "The cat sat on the hat. The cat sat on the")
        s.replace_text("patch.a", " m")
        s.replace_text("patch.b", " h")
        s.click("patch.run")
        s.wait_for(lambda w: "patching" in w["fields"] and "patch.heads.cell.1.2" in w["widgets"]
                   and "patch.progress" not in w["widgets"], timeout=120, what="the patching result")
        save(s, out, "analysis_patching.png")
        s.click("overview.show_maps")
        # 10. The neuron view (last: its window takes the Overview's place): a cell of head 0 of the layer shown, in the grid.
        s.click("heads.view_grid")
        w = s.wait_frames(2)
        n = w["fields"]["result"]["n_q"]
        helpers.hover_cell(s, "heads.map.0", n, n - 2, n // 2 - 1)
        s.xdotool("mousedown", "1")
        s.wait_frames(2)
        s.xdotool("mouseup", "1")
        s.wait_for(lambda w: w["fields"]["neuron"]["open"] and "prob" in w["fields"]["neuron"], what="the neuron view")
        save(s, out, "analysis_neuron.png")
    finally:
        s.close()
        s.cleanup()


if __name__ == "__main__":
    main()
