#!/usr/bin/env python3
"""The screenshots of docs/app.md ("Encoder-decoder models") and docs/models.md (the bundled encoder-decoder model):
the real app under Xvfb showing the three stacks of maps in the Overview and a cross-attention head clicked --
model_seq2seq_stacks.png on the Marian fixture (tests/fixtures/seq2seq/marian, its reference source and target typed
in), model_tiny_seq2seq_stacks.png on the bundled tiny-seq2seq ("March 3, 1999", Translate, layer 1 head 3).

  python3 scripts/seq2seq_screenshot.py --app build/attnviz [--source .] [--out assets/readme]
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "tests", "gui"))
import e2e_test  # noqa: E402
from analysis_screenshots import save  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--app", required=True)
    parser.add_argument("--source", default=os.path.join(HERE, ".."))
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    e2e_test.APP = os.path.abspath(args.app)
    e2e_test.SOURCE = os.path.abspath(args.source)
    out = args.out or os.path.join(e2e_test.SOURCE, "assets", "readme")
    fixture = os.path.join(e2e_test.SOURCE, "tests", "fixtures", "seq2seq", "marian")
    with open(os.path.join(fixture, "reference", "tokens.json"), encoding="utf-8") as f:
        ref = json.load(f)
    n_tgt = len(ref["decoder_input_ids"])
    s = e2e_test.AppSession(["--model", fixture, "--text", ref["source_text"], "--lang", "en"])
    try:
        s.wait_for(lambda w: "overview.cross" in w["widgets"], timeout=120, what="the three stacks")
        s.click("model.target_text")
        s.paste(ref["target_text"])
        s.wait_for(lambda w: w["widgets"]["overview.cross"]["value"]["n_q"] == n_tgt, timeout=120,
                   what="the run of the target")
        s.click("overview.cross.1.0")
        s.wait_for(lambda w: w["fields"].get("seq2seq_shapes", {}).get("stack") == "cross", what="a cross head shown")
        s.wait_idle()
        save(s, out, "model_seq2seq_stacks.png")
    finally:
        s.close()
    s = e2e_test.AppSession(["--model", "tiny-seq2seq", "--text", "March 3, 1999", "--lang", "en"])
    try:
        s.wait_for(lambda w: "overview.cross" in w["widgets"], timeout=120, what="the three stacks")
        s.wait_idle()
        s.click("model.translate")
        s.wait_for(lambda w: len(w["fields"].get("seq2seq_generated_ids", [])) > 0, timeout=120, what="the translation")
        s.wait_for(lambda w: w["widgets"]["overview.cross"]["value"]["n_q"] == 11, timeout=120,
                   what="the run of the translation")
        s.click("overview.cross.1.3")
        s.wait_for(lambda w: w["fields"].get("seq2seq_shapes", {}).get("stack") == "cross", what="a cross head shown")
        s.wait_idle()
        save(s, out, "model_tiny_seq2seq_stacks.png")
    finally:
        s.close()


if __name__ == "__main__":
    main()
