#!/usr/bin/python3
"""End-to-end tests of the app's model mode: the real attnviz binary under Xvfb, driven with xdotool, on the model
folders of tests/fixtures/models_e2e (gpt2, bert, llama with grouped-query attention 6:2). The session helpers
(Xvfb, widgets JSON, clicks, typing, snapshots) are e2e_test.py's.

  python3 tests/gui/e2e_model_test.py --app build/attnviz --source . [--keep] [ModelE2E.test_name ...]
"""
import json
import math
import os
import re
import shutil
import signal
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e_test  # noqa: E402
from e2e_test import AppSession, colour_spread, png_pixels, png_size, region  # noqa: E402


def fixture(name):
    return os.path.join(e2e_test.SOURCE, "tests", "fixtures", "models_e2e", name)


def overview_ready(n_layer, n_head):
    """The overview of a finished run with every map on screen."""
    def ready(w):
        o = w["fields"].get("overview")
        return (o and o["n_layer"] == n_layer and o["n_head"] == n_head
                and all("overview.map.%d.%d" % (l, h) in w["widgets"] for l in range(n_layer) for h in range(n_head)))
    return ready


def write_random_llama(folder, n_layer=8, d_model=256, n_head=8, n_kv_head=2, d_ff=512, positions=4096):
    """A random llama checkpoint (F32 safetensors) large enough that each layer over ~2000 tokens takes frames, with
    the e2e llama fixture's tokenizer. Written by the test: nothing big is committed."""
    import array
    import json
    import random
    import struct
    os.makedirs(folder, exist_ok=True)
    shutil.copy(os.path.join(fixture("llama"), "tokenizer.json"), folder)
    vocab = 590
    d_head = d_model // n_head
    config = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": d_model,
              "intermediate_size": d_ff, "num_hidden_layers": n_layer, "num_attention_heads": n_head,
              "num_key_value_heads": n_kv_head, "head_dim": d_head, "hidden_act": "silu",
              "max_position_embeddings": positions, "rms_norm_eps": 1e-5, "rope_theta": 10000.0,
              "tie_word_embeddings": True, "vocab_size": vocab, "bos_token_id": 1, "eos_token_id": 2,
              "torch_dtype": "float32"}
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(config, f)
    shapes = [("model.embed_tokens.weight", [vocab, d_model], 1.0), ("model.norm.weight", [d_model], 0)]
    for l in range(n_layer):
        p = "model.layers.%d." % l
        shapes += [(p + "input_layernorm.weight", [d_model], 0), (p + "post_attention_layernorm.weight", [d_model], 0),
                   (p + "self_attn.q_proj.weight", [n_head * d_head, d_model], 0.2),
                   (p + "self_attn.k_proj.weight", [n_kv_head * d_head, d_model], 0.2),
                   (p + "self_attn.v_proj.weight", [n_kv_head * d_head, d_model], 0.06),
                   (p + "self_attn.o_proj.weight", [d_model, n_head * d_head], 0.06),
                   (p + "mlp.gate_proj.weight", [d_ff, d_model], 0.06), (p + "mlp.up_proj.weight", [d_ff, d_model], 0.06),
                   (p + "mlp.down_proj.weight", [d_model, d_ff], 0.04)]
    header, offset, blobs = {}, 0, []
    rng = random.Random(7)
    for name, shape, scale in shapes:
        count = 1
        for d in shape:
            count *= d
        values = array.array("f", [1.0] * count) if scale == 0 else \
            array.array("f", [scale * (rng.random() * 2 - 1) for _ in range(count)])
        header[name] = {"dtype": "F32", "shape": shape, "data_offsets": [offset, offset + 4 * count]}
        offset += 4 * count
        blobs.append(values.tobytes())
    text = json.dumps(header).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(os.path.join(folder, "model.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text)
        for b in blobs:
            f.write(b)


def selected(widget):
    """An overview map's value: true/false, or an object with "selected"."""
    v = widget["value"]
    return v["selected"] if isinstance(v, dict) else v


class ModelE2E(unittest.TestCase):
    def start(self, *args, **kwargs):
        session = AppSession(args, **kwargs)
        self.addCleanup(session.cleanup)
        self.addCleanup(session.close)
        return session

    def test_gguf_file_positional(self):
        """attnviz FILE.gguf (issue 26; a llama whose token embedding is q4_K): the model opens from the positional
        argument, the overview fills, and the Model panel says what the file held."""
        path = os.path.join(e2e_test.SOURCE, "tests", "fixtures", "gguf", "probe", "q4_K.gguf")
        s = self.start(path, "--text", "The cat sat on the mat.")

        def ready(w):
            o = w["fields"].get("overview")
            return bool(o and o.get("n_layer") and o.get("layers_shown") == o["n_layer"] and w["fields"].get("model_gguf"))
        w = s.wait_for(ready, timeout=120, what="the GGUF model's overview")
        self.assertEqual(w["fields"]["model_open_error"], "")
        self.assertIn("GGUF file: architecture llama, tensor types F32, Q4_K, ", w["fields"]["model_gguf"])
        self.assertIn("%d bytes on disk" % os.path.getsize(path), w["fields"]["model_gguf"])
        self.assertTrue(w["widgets"]["model.source_model"]["value"])
        self.assertTrue(w["fields"]["model_tokens"])  # the probe's small vocabulary: pieces of the words

    def test_overview_click_opens_head(self):
        """attnviz --model DIR: the overview shows layers x heads; a click on one opens it in the Heads panel."""
        s = self.start("--model", fixture("gpt2"), "--text", "The quick brown fox jumps over the lazy dog.")
        w = s.wait_for(overview_ready(3, 4), timeout=120, what="the gpt2 overview")
        self.assertEqual(w["fields"]["overview"]["n_kv_head"], 4)
        self.assertTrue(w["widgets"]["model.source_model"]["value"])
        self.assertEqual(w["fields"]["model_open_error"], "")
        self.assertIn("quick", w["fields"]["model_tokens"])
        # Pixels: every overview map is drawn (many colours), not a blank rectangle.
        s.wait_frames(3)
        image = s.snapshot()
        for name in ("overview.map.0.0", "overview.map.2.3"):
            self.assertGreater(colour_spread(region(image, s.widget(name)["rect"], inset=1)), 2, name)
        # Click layer 2, head 1.
        s.click("overview.map.2.1")
        w = s.wait_for(lambda w: w["widgets"]["model.layer"]["value"] == 2 and w["fields"]["selected_head"] == 1
                       and "heads.enlarged" in w["widgets"], what="layer 2 head 1 in the Heads panel")
        self.assertTrue(selected(w["widgets"]["overview.map.2.1"]))  # marked as the selected map
        self.assertFalse(selected(w["widgets"]["overview.map.0.0"]))
        # Another one: layer 0, head 3.
        s.click("overview.map.0.3")
        s.wait_for(lambda w: w["widgets"]["model.layer"]["value"] == 0 and w["fields"]["selected_head"] == 3,
                   what="layer 0 head 3")
        if e2e_test.KEEP:
            shutil.copy(s.snapshot_path, os.path.join(s.tmp, "overview_gpt2.ppm"))

    def hover_cell(self, s, name, n, i, j):
        """Display cell (i, j) of map `name` (n x n, whole window) hovered: its hover (e2e_test.hover_cell)."""
        return e2e_test.hover_cell(s, name, n, n, i, j)

    def press_here(self, s):
        """A click where the pointer is, held for two frames as a person's is."""
        s.wait_frames(2)
        s.xdotool("mousedown", "1")
        s.wait_frames(2)
        s.xdotool("mouseup", "1")

    def test_click_cell_opens_neuron_view(self):
        """A click on a Heads map cell (special tokens hidden) opens the neuron view of that (layer, head, query, key)
        in model positions; its probability is the clicked cell's value; q, k, before RoPE and the product are drawn
        per dimension."""
        s = self.start("--model", fixture("llama"), "--text", "The cat sat on the mat.")
        s.wait_for(overview_ready(2, 6), timeout=120, what="the llama overview")
        self.assertFalse(s.field("neuron")["open"])
        s.click("heads.view_grid")
        s.click("model.hide_special")  # <s> (position 0) leaves the maps: display index d is model position d + 1
        w = s.wait_for(lambda w: w["widgets"]["model.hide_special"]["value"] and "<s>" not in
                       w["fields"]["result"]["query_tokens"] and "heads.map.2" in w["widgets"], what="<s> hidden")
        n = w["fields"]["result"]["n_q"]
        self.assertGreater(n, 3)
        layer = w["widgets"]["model.layer"]["value"]
        hover = self.hover_cell(s, "heads.map.2", n, n - 1, 1)
        self.assertGreater(hover["prob"], 0)
        self.press_here(s)
        w = s.wait_for(lambda w: w["fields"]["neuron"]["open"] and "prob" in w["fields"]["neuron"],
                       what="the neuron view")
        v = w["fields"]["neuron"]
        self.assertEqual((v["layer"], v["head"], v["i"], v["j"]), (layer, 2, n, 2))  # model positions: +1 for <s>
        self.assertEqual(v["prob"], hover["prob"])  # the map's own cell
        self.assertFalse(v["masked"])
        self.assertTrue(v["rope"])
        self.assertEqual(v["d_head"], 16)
        self.assertAlmostEqual(v["logit"], v["score"] * v["scale"], places=5)
        self.assertEqual(v["query"], w["fields"]["result"]["query_tokens"][n - 1])
        for strip in ("neuron.q", "neuron.k", "neuron.product", "neuron.q_before_rope", "neuron.k_before_rope"):
            self.assertEqual(w["widgets"][strip]["value"]["d"], 16, strip)
        image = s.snapshot()
        self.assertGreater(colour_spread(region(image, w["widgets"]["neuron.product"]["rect"], inset=1)), 1)
        if e2e_test.KEEP:
            shutil.copy(s.snapshot_path, os.path.join(s.tmp, "neuron_llama.ppm"))
        # A masked cell (causal: key after the query): probability 0, said so.
        s.click("heads.view_grid")
        w = s.wait_for(lambda w: "heads.map.0" in w["widgets"], what="the grid again")
        hover = self.hover_cell(s, "heads.map.0", n, 0, n - 1)
        self.press_here(s)
        w = s.wait_for(lambda w: w["fields"]["neuron"]["j"] == n and w["fields"]["neuron"]["head"] == 0,
                       what="the masked cell's neuron view")
        self.assertTrue(w["fields"]["neuron"]["masked"])
        self.assertEqual(w["fields"]["neuron"]["prob"], 0)

    def test_map_kind_rollout_and_value_weighted(self):
        """The map kind choice: rollout draws one map per layer (Heads and Overview), value-weighted one per head, each
        with its sentence; back to attention restores the heads."""
        s = self.start("--model", fixture("gpt2"), "--text", "The quick brown fox jumps over the lazy dog.")
        w = s.wait_for(overview_ready(3, 4), timeout=120, what="the gpt2 overview")
        self.assertEqual(w["fields"]["map_kind"]["kind"], "attention")
        self.assertEqual(w["fields"]["overview"]["maps_per_layer"], 4)
        s.click("heads.view_grid")
        s.click("heads.kind_rollout")
        w = s.wait_for(lambda w: w["fields"]["map_kind"]["kind"] == "rollout" and w["fields"]["result"]["n_head"] == 1,
                       what="the rollout maps")
        self.assertEqual(w["fields"]["map_kind"]["refusal"], "")
        self.assertEqual(w["fields"]["overview"]["kind"], "rollout")
        self.assertEqual(w["fields"]["overview"]["maps_per_layer"], 1)
        self.assertIn("heads.map.0", w["widgets"])
        self.assertNotIn("heads.map.1", w["widgets"])
        rollout_max = w["fields"]["result"]["mean_max_weight"]
        s.click("heads.kind_value_weighted")
        w = s.wait_for(lambda w: w["fields"]["map_kind"]["kind"] == "value_weighted"
                       and w["fields"]["result"]["n_head"] == 4, what="the value-weighted maps")
        self.assertEqual(w["fields"]["overview"]["kind"], "value_weighted")
        self.assertEqual(w["fields"]["overview"]["maps_per_layer"], 4)
        n = w["fields"]["result"]["n_q"]
        weighted = self.hover_cell(s, "heads.map.1", n, n - 1, 0)
        s.click("heads.kind_attention")
        w = s.wait_for(lambda w: w["fields"]["map_kind"]["kind"] == "attention" and w["fields"]["result"]["n_head"] == 4,
                       what="the attention maps again")
        plain = self.hover_cell(s, "heads.map.1", n, n - 1, 0)
        self.assertNotAlmostEqual(weighted["prob"], plain["prob"], places=6)  # weighed by the value norm
        self.assertIsNotNone(rollout_max)

    def test_type_model_path_then_grouped_query(self):
        """A new folder typed into the Model panel's path + Enter opens it (no drop); a llama with 6 query heads
        on 2 kv heads: the overview reports the grouping, the Shapes panel q against k and v."""
        s = self.start("--model", fixture("bert"), "--text", "I go home.")
        w = s.wait_for(overview_ready(2, 4), timeout=120, what="the bert overview")
        self.assertIn("[CLS]", w["fields"]["model_tokens"])
        s.replace_text("model.path", fixture("llama"))
        s.key("Return")
        llama = lambda w: overview_ready(2, 6)(w) and "<s>" in w["fields"]["model_tokens"]
        w = s.wait_for(llama, timeout=120, what="the llama overview")
        self.assertEqual(w["fields"]["overview"]["n_kv_head"], 2)
        self.assertEqual(w["widgets"]["model.path"]["value"], os.path.realpath(fixture("llama")))
        self.assertIn("<s>", w["fields"]["model_tokens"])
        # I go home. -> <s> + pieces; n from the probs row.
        shapes = {k[len("shapes.model."):]: v["value"] for k, v in w["widgets"].items() if k.startswith("shapes.model.")}
        q = shapes["q = x W_q"]
        k = shapes["k = x W_k"]
        v = shapes["v = x W_v"]
        n = int(q.split(",")[1])
        self.assertGreater(n, 1)
        self.assertTrue(q.startswith("[6, %d, 16]" % n), q)
        self.assertTrue(k.startswith("[2, %d, 16]" % n), k)
        self.assertTrue(v.startswith("[2, %d, 16]" % n), v)
        probs = [val for key, val in shapes.items() if key.startswith("probs")][0]
        self.assertTrue(probs.startswith("[6, %d, %d]" % (n, n)), probs)
        # The recent models offer the first folder again.
        recent = [v["value"] for k, v in w["widgets"].items() if k.startswith("model.recent.")]
        self.assertIn(os.path.realpath(fixture("bert")), recent)
        # Heads of the second kv group: query head 4 reads kv head 4 // 3 = 1; clicking it opens it.
        s.click("overview.map.1.4")
        s.wait_for(lambda w: w["widgets"]["model.layer"]["value"] == 1 and w["fields"]["selected_head"] == 4,
                   what="layer 1 head 4")
        image = s.snapshot()
        # The group gap: between head 2 (kv 0) and head 3 (kv 1) more space than between heads 0 and 1.
        r0, r1, r2, r3 = (s.widget("overview.map.0.%d" % h)["rect"] for h in range(4))
        self.assertGreater(r3[0] - r2[2], r1[0] - r0[2])
        self.assertGreater(colour_spread(region(image, r3, inset=1)), 2)

    def test_bad_folder_then_good(self):
        """A folder that is not a model: the error is shown, the app lives, a good folder opens after it."""
        tmp = tempfile.mkdtemp(prefix="attnviz-e2e-badmodel-")
        self.addCleanup(shutil.rmtree, tmp, True)
        for f in os.listdir(fixture("gpt2")):
            shutil.copy(os.path.join(fixture("gpt2"), f), tmp)
        with open(os.path.join(tmp, "config.json"), "w") as f:
            f.write('{"model_type": "gpt5"}')
        s = self.start("--model", fixture("gpt2"))
        s.wait_for(overview_ready(3, 4), timeout=120, what="the gpt2 overview")
        s.replace_text("model.path", tmp)
        s.key("Return")
        w = s.wait_for(lambda w: "gpt5" in w["fields"]["model_open_error"], timeout=60, what="the open error")
        self.assertIsNone(s.proc.poll())
        s.replace_text("model.path", fixture("llama"))
        s.key("Return")
        s.wait_for(lambda w: overview_ready(2, 6)(w) and "<s>" in w["fields"]["model_tokens"], timeout=120,
                   what="the llama overview after the error")
        self.assertEqual(s.field("model_open_error"), "")

    def test_gemma2_soft_cap_what_if_and_neuron_view(self):
        """A gemma2 checkpoint (tests/fixtures/models/gemma2 with a word-level tokenizer written here): the Model panel
        offers "no attention soft cap" and no q/k-norm what-if; clicked, the run changes; a click on a Heads map cell
        opens the neuron view with the uncapped logit, the cap and the scale from query_pre_attn_scalar."""
        tmp = tempfile.mkdtemp(prefix="attnviz-e2e-gemma2-")
        self.addCleanup(shutil.rmtree, tmp, True)
        src = os.path.join(e2e_test.SOURCE, "tests", "fixtures", "models", "gemma2")
        for f in ("config.json", "model.safetensors"):
            shutil.copy(os.path.join(src, f), tmp)
        vocab = json.load(open(os.path.join(src, "config.json")))["vocab_size"]
        with open(os.path.join(tmp, "tokenizer.json"), "w") as f:
            json.dump({"version": "1.0", "added_tokens": [], "normalizer": None,
                       "pre_tokenizer": {"type": "WhitespaceSplit"}, "post_processor": None, "decoder": None,
                       "model": {"type": "WordLevel", "unk_token": "w0",
                                 "vocab": {"w%d" % i: i for i in range(vocab)}}}, f)
        s = self.start("--model", tmp, "--text", "w5 w9 w2 w17 w33 w8 w41 w12 w3 w27 w19")
        w = s.wait_for(overview_ready(3, 4), timeout=120, what="the gemma2 overview")
        self.assertIn("model.no_softcap", w["widgets"])
        self.assertNotIn("model.no_qk_norm", w["widgets"])
        generation = int(w["fields"]["model_run_generation"])
        s.click("model.no_softcap")
        s.wait_for(lambda w: w["widgets"]["model.no_softcap"]["value"] and
                   int(w["fields"].get("model_run_generation", 0)) > generation, what="the uncapped run")
        s.click("model.no_softcap")
        w = s.wait_for(lambda w: not w["widgets"]["model.no_softcap"]["value"], what="the cap back")
        s.click("heads.view_grid")
        w = s.wait_for(lambda w: "heads.map.1" in w["widgets"], what="the grid")
        n = w["fields"]["result"]["n_q"]
        self.hover_cell(s, "heads.map.1", n, n - 1, n - 3)
        self.press_here(s)
        w = s.wait_for(lambda w: w["fields"]["neuron"]["open"] and "prob" in w["fields"]["neuron"],
                       what="the neuron view")
        v = w["fields"]["neuron"]
        self.assertEqual(v["softcap"], 2)
        self.assertEqual(v["scale_source"], "query_pre_attn_scalar")
        self.assertAlmostEqual(v["scale"], 24 ** -0.5, places=6)
        self.assertAlmostEqual(v["logit"], 2 * math.tanh(v["uncapped_logit"] / 2), places=5)
        if e2e_test.KEEP:
            s.wait_frames(3)
            s.snapshot()
            shutil.copy(s.snapshot_path, os.path.join(s.tmp, "neuron_gemma2.ppm"))

    def test_screenshot_of_overview(self):
        """--model DIR --screenshot FILE --frames 1: the first frame with the overview on screen, saved, exit 0."""
        tmp = tempfile.mkdtemp(prefix="attnviz-e2e-modelshot-")
        self.addCleanup(shutil.rmtree, tmp, True)
        out = os.path.join(tmp, "overview.png")
        s = AppSession(["--model", fixture("llama"), "--screenshot", out, "--frames", "1"], wait_ready=False)
        self.addCleanup(s.cleanup)
        code = s.close(expect_exit=True)
        self.assertEqual(code, 0, s.app_log())
        self.assertEqual(png_size(out), (1280, 800))
        w, h, ch, rows = png_pixels(out)
        # The Overview panel sits top right: the maps give it many colours.
        right = [r[int(w * 0.72) * ch:w * ch] for r in rows[60:int(h * 0.6):4]]
        self.assertGreater(colour_spread([bytes(b for i, b in enumerate(r) if ch == 3 or i % 4 != 3) for r in right]), 30)
        if e2e_test.KEEP:
            shutil.copy(out, os.path.join(s.tmp, "overview_llama.png"))

    def test_long_input_fills_overview_layer_by_layer(self):
        """A long input on a model whose layers take frames: the Overview fills in layer by layer (layers_shown
        rises through the values between 0 and n_layer while t_s goes on), the maps are streamed (pooled), and the
        Heads panel shows layer 0 before the last layer is done."""
        tmp = tempfile.mkdtemp(prefix="attnviz-e2e-long-model-")
        self.addCleanup(shutil.rmtree, tmp, True)
        folder = os.path.join(tmp, "llama_long")
        n_layer = 16
        write_random_llama(folder, n_layer=n_layer)
        text_file = os.path.join(tmp, "text.txt")
        with open(text_file, "w") as f:
            # ~3200 tokens: streamed, and a run of a few seconds (layer frames wait for their turn: frame_pacer.h)
            f.write("The cat sat on the mat and looked at the dog. " * 140)
        s = self.start("--model", folder, "--text-file", text_file, wait_ready=False)
        seen = []  # (t_s, layers_shown, heads panel has a map)
        frames = []  # (t_s, frame) at the same moments
        deadline = time.time() + 240
        while time.time() < deadline:
            try:
                w = s.widgets()
            except e2e_test.NotReady:
                time.sleep(0.02)
                continue
            o = w["fields"].get("overview")
            if o:
                heads_map = any(k.startswith("heads.map.") or k == "heads.enlarged" for k in w["widgets"])
                if not seen or seen[-1][1] != o["layers_shown"]:
                    seen.append((w["t_s"], o["layers_shown"], heads_map))
                    frames.append((w["t_s"], w["frame"]))
                if o["layers_shown"] == o["n_layer"]:
                    break
            time.sleep(0.01)
        print("layers shown over time:", seen, file=sys.stderr)
        self.assertTrue(seen, "the overview never drew")
        self.assertEqual(seen[-1][1], n_layer, seen)
        partial = [v for _, v, _ in seen if 0 < v < n_layer]
        self.assertGreaterEqual(len(partial), 2, "the overview should fill in layer by layer: %s" % seen)
        times = [t for t, _, _ in seen]
        self.assertEqual(times, sorted(times))
        self.assertEqual([v for _, v, _ in seen], sorted(v for _, v, _ in seen), "layers_shown only rises")
        # While the run went on with no input, frames came only when a layer arrived (one or two each) and a few a
        # second for the progress bar (frame_pacer.h), not at a steady rate: drawing (llvmpipe draws on the CPU)
        # leaves the cores to the run.
        (t0, f0), (t1, f1) = frames[0], frames[-1]
        self.assertLessEqual(f1 - f0, 3 * (len(seen) - 1) + 3 * (t1 - t0) + 4, frames)
        # The Heads panel (layer 0 chosen) had its maps before the run was done.
        self.assertTrue(any(m for _, v, m in seen if 0 < v < n_layer), seen)
        # overview_t_s: the app's own stamps of the frames that first drew the first layer and every layer, between
        # the frames this test saw on either side (it reads now and then), kept as more frames come.
        s.wait_frames(2)
        stamps = s.widgets()["fields"]["overview_t_s"]
        before_all = max(t for t, v, _ in seen if v < n_layer)
        self.assertGreater(stamps["all_layers"], before_all, (stamps, seen))
        self.assertLessEqual(stamps["all_layers"], seen[-1][0] + 1e-6, (stamps, seen))
        self.assertLessEqual(stamps["first_layer"], min(t for t, v, _ in seen if v >= 1) + 1e-6, (stamps, seen))
        self.assertGreaterEqual(stamps["first_layer"], w["fields"]["window_t_s"] - 1e-6, (stamps, seen))
        # Opened from the command line, the model ran once: the request was not sent again when the open counted as
        # finished (that restarted the run a moment after it began).
        self.assertEqual(w["fields"].get("model_run_generation"), 1, w["fields"].get("model_run_generation"))
        # Streamed: the Shapes/Model fields say the tokens; the thumbnails drew real maps.
        s.wait_frames(2)
        image = s.snapshot()
        # (the deepest layer in sight: many layers make the grid scroll rather than shrink)
        bottom = s.widget("panel.Overview")["rect"][3]
        shown = max(l for l in range(n_layer) if s.widget("overview.map.%d.0" % l)["rect"][3] <= bottom)
        self.assertGreater(shown, 0)
        self.assertGreater(colour_spread(region(image, s.widget("overview.map.%d.0" % shown)["rect"], inset=1)), 2)

    def reveal(self, s, name, container="panel.Model", timeout=20):
        """Turns the wheel over `container` (down or up, by where `name` is) until the app reports `name` visible."""
        deadline = time.time() + timeout

        def in_sight():  # visible and whole, clear of the container's bottom edge (its padding takes no clicks)
            top, bottom = s.widget(name)["rect"][1], s.widget(name)["rect"][3]
            y0, y1 = s.widget(container)["rect"][1], s.widget(container)["rect"][3]
            return s.widget(name).get("visible", True) and y0 <= top and bottom <= y1 - 10

        while not in_sight():
            if time.time() > deadline:
                raise AssertionError(name + " never scrolled into view")
            above = s.widget(name)["rect"][1] < s.widget(container)["rect"][1]
            x0, y0, x1, y1 = s.widget(container)["rect"]
            s.move((x0 + x1) / 2, y0 + 30)  # the panel's top: the folder hint, no widget that takes the wheel
            s.xdotool("click", "4" if above else "5")
            s.wait_frames(2)

    def right_click(self, s, name):
        x, y = s.center(name)
        s.move(x, y)
        s.wait_frames(2)
        s.xdotool("mousedown", "3")
        s.wait_frames(2)
        s.xdotool("mouseup", "3")
        s.wait_frames(2)

    def test_ablate_head_from_its_menu_changes_the_loss(self):
        """Right-click an Overview cell -> "Ablate head L H": the head is listed and crossed out, the run reruns and
        the Model panel's loss changes beside the baseline (the plain run's loss); "restore all" brings it back. A
        chip's hover shows the top next tokens; a click pins them."""
        s = self.start("--model", fixture("gpt2"), "--text", "The quick brown fox jumps over the lazy dog.")
        w = s.wait_for(lambda w: overview_ready(3, 4)(w) and w["fields"].get("loss", {}).get("value") is not None,
                       timeout=120, what="the gpt2 overview with its loss")
        plain = w["fields"]["loss"]["value"]
        self.assertTrue(w["fields"]["loss"]["has_lm_head"])
        self.assertEqual(w["fields"]["loss"]["baseline"], plain)
        self.assertEqual(w["fields"]["ablated"], [])
        self.assertGreater(w["fields"]["predictions"]["positions"], 0)
        # A click on a token chip pins its guesses.
        self.reveal(s, "model.token.1")
        s.click("model.token.1")
        w = s.wait_for(lambda w: w["fields"]["predictions"]["pinned_text"] != "", what="pinned predictions")
        self.assertEqual(w["fields"]["predictions"]["pinned"], w["widgets"]["model.token.1"]["value"])
        # Ablate layer 1, head 2 from its Overview cell's menu.
        self.right_click(s, "overview.map.1.2")
        s.wait_for(lambda w: "menu.ablate_head" in w["widgets"], what="the head's menu")
        self.assertIn("L1 H2", s.widget("menu.ablate_head")["value"])
        s.click("menu.ablate_head")

        def ablated(w):
            loss = w["fields"].get("loss", {})
            return (w["fields"]["ablated"] == [[1, 2]] and loss.get("value") is not None
                    and not loss.get("plain") and overview_ready(3, 4)(w))
        w = s.wait_for(ablated, timeout=120, what="the ablated run's loss")
        self.assertNotEqual(w["fields"]["loss"]["value"], plain)
        self.assertEqual(w["fields"]["loss"]["baseline"], plain)
        self.assertTrue(w["widgets"]["overview.map.1.2"]["value"]["ablated"])
        self.assertFalse(w["widgets"]["overview.map.1.1"]["value"]["ablated"])
        # "restore all" (beside the what-ifs) brings the plain run back.
        self.reveal(s, "model.restore_all")
        s.click("model.restore_all")
        w = s.wait_for(lambda w: w["fields"]["ablated"] == [] and w["fields"]["loss"].get("plain")
                       and w["fields"]["loss"].get("value") is not None, timeout=120, what="the plain run again")
        self.assertEqual(w["fields"]["loss"]["value"], plain)


    def test_loss_colours_lens_and_attribution_on_the_repeated_sentence(self):
        """The bundled model on a sentence said twice: the chips coloured by the loss change under an ablated
        induction head (layer 1, head 2) change most in the second saying, where that head predicts the repeat; then
        the Overview's logit lens and attribution grids draw, and a hovered cell shows its tooltip."""
        s = self.start("--model", "tiny", "--text", "The cat sat on the mat. The cat sat on the mat.", "--lang", "en")
        s.wait_for(lambda w: overview_ready(2, 4)(w) and w["fields"].get("loss", {}).get("value") is not None,
                   timeout=120, what="the bundled model's overview and loss")
        self.right_click(s, "overview.map.1.2")
        s.wait_for(lambda w: "menu.ablate_head" in w["widgets"], what="the head's menu")
        s.click("menu.ablate_head")
        s.wait_for(lambda w: w["fields"]["ablated"] == [[1, 2]] and not w["fields"]["loss"].get("plain")
                   and w["fields"]["loss"].get("value") is not None, timeout=120, what="the ablated run")
        self.reveal(s, "model.chip_color_delta")
        s.click("model.chip_color_delta")
        w = s.wait_for(lambda w: w["fields"].get("token_loss", {}).get("mode") == "change", what="chips by loss change")
        deltas = [d for d in w["fields"]["token_loss"]["deltas"] if d is not None]
        half = len(deltas) // 2
        first, second = sum(deltas[:half]) / half, sum(deltas[half:]) / (len(deltas) - half)
        self.assertGreater(second, first + 0.3, deltas)  # the induction head matters where the text repeats
        # The logit lens: a grid of (layers + 1) rows; a hovered cell records its hover.
        s.click("overview.show_lens")
        w = s.wait_for(lambda w: "lens" in w["fields"] and "lens.cell.2.3" in w["widgets"], timeout=60, what="the lens")
        s.move(*s.center("lens.cell.2.3"))
        s.wait_for(lambda w: w["widgets"]["lens.cell.2.3"]["hovered"], what="a hovered lens cell")
        # Attribution: a layers x (heads + MLP) grid whose cells hover with their signed value.
        s.click("overview.show_attribution")
        w = s.wait_for(lambda w: "attribution" in w["fields"] and "attrib.cell.1.2" in w["widgets"], timeout=60,
                       what="the attribution grid")
        self.assertEqual(w["fields"]["attrib"]["rows"], 2)
        s.move(*s.center("attrib.cell.1.2"))
        w = s.wait_for(lambda w: w["widgets"]["attrib.cell.1.2"]["hovered"]
                       and "tip" in w["widgets"]["attrib.cell.1.2"]["value"], what="a hovered attribution cell")
        cell = w["widgets"]["attrib.cell.1.2"]["value"]
        shown = [float(t) for t in re.findall(r"[+-]\d+(?:\.\d+)?(?:e[+-]?\d+)?", cell["tip"])]
        self.assertTrue(any(abs(v - cell["value"]) <= 1e-3 * max(1.0, abs(cell["value"])) for v in shown), cell)

def main():
    import argparse
    parser = argparse.ArgumentParser()
    parser.add_argument("--app", required=True)
    parser.add_argument("--source", default=os.path.join(os.path.dirname(__file__), "..", ".."))
    parser.add_argument("--keep", action="store_true", help="keep temp dirs (screenshots, logs)")
    args, rest = parser.parse_known_args()
    e2e_test.APP = os.path.abspath(args.app)
    e2e_test.SOURCE = os.path.abspath(args.source)
    e2e_test.KEEP = args.keep
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    sys.exit(e2e_test.run_tests(rest))


if __name__ == "__main__":
    main()
