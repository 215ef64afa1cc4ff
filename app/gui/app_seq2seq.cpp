// The App on an encoder-decoder folder (t5, bart, marian): opening it on the Seq2SeqSession (seq2seq_session.h),
// submitting the source and target texts with the ablated heads (or a Translate: greedy generation of the model as
// trained), and presenting the stack, layer and head picked in the Overview as `results.shown`, which the Heads panel
// draws with that stack's token labels (or the map kind's maps of it), and the analyses of the result shown
// (seq2seq_jobs.h): the neuron view of a clicked cell, the map kind's stacks, the scan.
#include <algorithm>
#include <utility>

#include "app.h"

namespace attnviz {

void App::OpenSeq2Seq(const std::string& dir) {
  results.seq2seq_dir = dir;
  results.seq2seq = nullptr;
  results.seq2seq_error.clear();
  results.model = nullptr;  // the decoder-only panels' result: none while an encoder-decoder model is shown
  results.model_error.clear();
  scans->Cancel();
  lenses->Cancel();
  attributions->Cancel();
  patchings->Cancel();
  views.seq2seq.generated_ids.clear();
  views.seq2seq.ablated.clear();
  views.seq2seq.pinned_position = -1;
  seq2seq_jobs->CancelAll();
  seq2seq_readouts->CancelAll();
  seq2seq_neuron_asked_ = {};
  seq2seq_kind_asked_ = {};
  seq2seq_lens_asked_ = {};
  seq2seq_attribution_asked_ = {};
  views.neuron.open = false;
  seq2seq_view_ = Seq2SeqView{};
  SetSource(Source::kModel);
}

void App::SubmitSeq2SeqIfChanged() {
  Seq2SeqRequest r;
  r.dir = results.seq2seq_dir;
  r.source_text = settings.kv_text;
  r.target_text = views.seq2seq.target_text;
  if (views.seq2seq.translate) {  // the Translate button: the model's own target, made by greedy generation
    views.seq2seq.translate = false;
    r.target_text.clear();
    r.generate = kTranslateMaxTokens;
    seq2seq_generate_pending_ = seq2seqs->Submit(r);
    last_seq2seq_request_ = r;
    seq2seq_submitted_ = true;
    return;
  }
  for (model::Seq2SeqAblatedHead a : views.seq2seq.ablated) {  // every head in the mode chosen
    a.mode = views.seq2seq.ablate_mode;
    r.ablate.push_back(a);
  }
  // A generation not yet ended in the UI: only another folder or source stops it (its text becomes the target when
  // UpdateSeq2Seq sees it end). !! Not the queue's busy(): between the worker finishing and the UI applying its text,
  // the queue is idle and the target still empty, and a forced run of the empty target would replace the text.
  if (seq2seq_generate_pending_ && r.dir == last_seq2seq_request_.dir &&
      r.source_text == last_seq2seq_request_.source_text)
    return;
  if (!seq2seq_submitted_ || r != last_seq2seq_request_) {
    seq2seq_generate_pending_ = 0;
    seq2seqs->Submit(r);
    last_seq2seq_request_ = r;
    seq2seq_submitted_ = true;
  }
}

void App::UpdateSeq2Seq() {
  results.model = nullptr;
  // busy() before latest(): the worker publishes a result before it counts the run finished, so an idle queue seen
  // here means `now` below is that run's result or a newer one.
  results.seq2seq_busy = seq2seqs->busy();
  results.seq2seq_progress = seq2seqs->progress();
  // 1. The latest result (or a generation's latest step).
  std::shared_ptr<const Seq2SeqResult> now = seq2seqs->latest();
  // The pending Translate ended: its last step is here, or the queue is idle without it (cancelled).
  if (seq2seq_generate_pending_ &&
      (now && now->generation >= seq2seq_generate_pending_ ? !now->generating : !results.seq2seq_busy))
    seq2seq_generate_pending_ = 0;
  if (now && now != results.seq2seq && now->request.dir == results.seq2seq_dir &&
      (!results.seq2seq || now->generation >= results.seq2seq->generation)) {
    if (now->status.ok()) {
      const bool first_of_folder = !results.seq2seq;
      results.seq2seq = now;
      results.seq2seq_error.clear();
      std::string text;
      for (const tokenize::Token& t : now->source_tokens) text += t.display;
      for (const tokenize::Token& t : now->decoder_tokens) text += t.display;
      fonts.AddText(text + now->generated_text);
      if (first_of_folder) settings.AddRecentModel(now->request.dir);
      // A finished generation: its text is the target from now on (the next submit runs it forced).
      if (now->request.generate > 0 && !now->generating && now->generation != seq2seq_generation_applied_) {
        seq2seq_generation_applied_ = now->generation;
        views.seq2seq.target_text = now->generated_text;
        views.seq2seq.generated_ids = now->generated_ids;
      }
    } else if (!now->status.cancelled()) {
      results.seq2seq_error = now->status;
    }
  }
  UpdateSeq2SeqAnalyses();
  // 2. What the Heads panel shows: the picked layer of the picked stack, of the map kind when it is made.
  if (!results.seq2seq || !results.seq2seq->stacks) {
    results.shown = nullptr;
    return;
  }
  const int stack = std::clamp(views.seq2seq.stack, 0, (int)results.seq2seq->stacks->size() - 1);
  const bool kind_made = results.seq2seq_kind && results.seq2seq_kind->status.ok() &&
                         Seq2SeqKindRefusal(views.heads.kind, stack).ok();
  const std::shared_ptr<const std::vector<LayerStack>>& shown_stacks =
      kind_made ? results.seq2seq_kind->stacks : results.seq2seq->stacks;
  const std::vector<LayerStack>& stacks = *shown_stacks;
  const LayerStack& st = stacks[(size_t)stack];
  const int layer = std::clamp(settings.model_layer, 0, std::max(0, st.n_layer() - 1));
  const Seq2SeqView view{&stacks, stack, layer};
  if (view == seq2seq_view_ && results.shown) return;
  seq2seq_view_ = view;
  if (!st.layer(layer)) {
    results.shown = nullptr;
    return;
  }
  auto shown = std::make_shared<attnviz::Shown>();
  shown->generation = ++view_generation_;
  shown->stacks = shown_stacks;
  shown->kind = kind_made ? views.heads.kind : MapKind::kAttention;
  shown->stack = stack;
  shown->layer = layer;
  shown->maps = st.layers[(size_t)layer];
  results.shown = std::move(shown);
}

void App::UpdateSeq2SeqAnalyses() {
  const std::shared_ptr<const Seq2SeqResult>& run = results.seq2seq;
  const bool complete = run && run->complete();
  // The neuron view of the cell clicked last, again for each new run.
  const NeuronPanelView& n = views.neuron;
  if (complete && n.open) {
    const Seq2SeqNeuronRequest want{run, n.stack, n.layer, n.head, n.i, n.j};
    if (!want.Same(seq2seq_neuron_asked_)) seq2seq_jobs->Neuron(seq2seq_neuron_asked_ = want);
  }
  std::shared_ptr<const Seq2SeqNeuronResult> neuron = seq2seq_jobs->neuron();
  results.seq2seq_neuron = neuron && neuron->request.Same(seq2seq_neuron_asked_) ? neuron : nullptr;
  // The map kind's stacks, made once per run and kind.
  const MapKind kind = views.heads.kind;
  if (complete && kind != MapKind::kAttention && (seq2seq_kind_asked_.run != run || seq2seq_kind_asked_.kind != kind))
    seq2seq_jobs->Kind(seq2seq_kind_asked_ = Seq2SeqKindRequest{run, kind});
  std::shared_ptr<const Seq2SeqKindResult> made = seq2seq_jobs->kind();
  results.seq2seq_kind_busy = seq2seq_jobs->kind_busy();
  results.seq2seq_kind = made && made->request.run == run && made->request.kind == kind &&
                                 kind != MapKind::kAttention
                             ? made
                             : nullptr;
  // The scan: started and stopped from the Model panel; shown while its request is the result's.
  if (std::exchange(views.seq2seq.scan_start, false) && complete) seq2seq_jobs->Scan(Seq2SeqScanRequest{run, views.seq2seq.scan_loss_at});
  if (std::exchange(views.seq2seq.scan_stop, false)) seq2seq_jobs->StopScan();
  std::shared_ptr<const Seq2SeqScanResult> scan = seq2seq_jobs->scan();
  results.seq2seq_scan = scan && scan->request.run && run && scan->request.run->request == run->request ? scan : nullptr;
  results.seq2seq_scan_busy = seq2seq_jobs->scan_busy();
  results.seq2seq_scan_progress = seq2seq_jobs->scan_progress();
  UpdateSeq2SeqReadouts();
}

void App::UpdateSeq2SeqReadouts() {
  const std::shared_ptr<const Seq2SeqResult>& run = results.seq2seq;
  const bool complete = run && run->complete();
  Seq2SeqPanelView& v = views.seq2seq;
  // The lens and the attribution: asked by the Overview each frame it shows them, made once per run (and request).
  if (std::exchange(v.lens_wanted, false) && complete && seq2seq_lens_asked_.run != run)
    seq2seq_readouts->Lens(seq2seq_lens_asked_ = Seq2SeqLensRequest{run});
  std::shared_ptr<const Seq2SeqLensResult> lens = seq2seq_readouts->lens();
  results.seq2seq_lens = lens && lens->request.run == run ? lens : nullptr;
  results.seq2seq_lens_busy = seq2seq_readouts->lens_busy();
  results.seq2seq_lens_progress = seq2seq_readouts->lens_progress();
  if (std::exchange(v.attribution_wanted, false) && complete) {
    const Seq2SeqAttributionRequest want{run, v.attrib_position, v.attrib_target};
    if (!want.Same(seq2seq_attribution_asked_)) seq2seq_readouts->Attribution(seq2seq_attribution_asked_ = want);
  }
  std::shared_ptr<const Seq2SeqAttributionResult> a = seq2seq_readouts->attribution();
  results.seq2seq_attribution = a && a->request.Same(seq2seq_attribution_asked_) && a->request.run == run ? a : nullptr;
  results.seq2seq_attribution_busy = seq2seq_readouts->attribution_busy();
  // Patching: started and stopped by the Overview's buttons; shown while it is of the folder shown.
  if (std::exchange(v.patch_start, false) && complete && v.patch_a >= 0 && v.patch_b >= 0)
    seq2seq_readouts->Patching(Seq2SeqPatchingRequest{run, views.overview.patch_clean, v.patch_a, v.patch_b});
  if (std::exchange(v.patch_stop, false)) seq2seq_readouts->StopPatching();
  std::shared_ptr<const Seq2SeqPatchingResult> p = seq2seq_readouts->patching();
  results.seq2seq_patching = p && p->request.run && run && p->request.run->folder == run->folder ? p : nullptr;
  results.seq2seq_patching_busy = seq2seq_readouts->patching_busy();
  results.seq2seq_patching_progress = seq2seq_readouts->patching_progress();
}

}  // namespace attnviz
