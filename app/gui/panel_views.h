// What each panel remembers between frames that is neither a persisted setting (settings.h) nor a computed result
// (AppResults): what is typed, picked or shown there. One struct per panel, all owned by the App; never saved.
#pragma once
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "heads_panel_view.h"
#include "i18n/ui_message.h"
#include "lessons.h"
#include "lessons/dot_variance.h"
#include "lessons/pipeline_numbers.h"
#include "model/run.h"
#include "model/seq2seq_run.h"  // Seq2SeqAblatedHead
#include "sandbox/text.h"

namespace attnviz {

class App;
struct PanelContext;
struct ModelResult;
namespace model {
struct NeuronView;
}

// The Sentences panel: the loaded sentence file and its "open file" field.
struct SentencesPanelView {
  std::vector<SentenceItem> items;  // the loaded sentence file
  int selected = -1;
  std::string path_input;           // the "open file" field
  UiMessage message;                // load result (ok or error)
  bool error = false;
};

// The Export panel: its file field and what the last export said.
struct ExportPanelView {
  UiMessage message;
  bool ok = false;
  std::string path_written;
  std::string file_name, last_default;  // the file field, and the default name it was last filled with
  std::string default_dir;              // DefaultExportDir(), found once: the folder when the field is empty
  // What the last figure could not do as asked: annotate with cells too small (the cell size, and the size the
  // weights need). The export job fills `pending` off the UI thread; App::Update moves it to `note` when the job is
  // done. `key`: the settings it was for (the note is shown only while they hold).
  struct CellNote {
    int cell = 0, annotate_needs_cell = 0;
    std::string key;
  };
  std::shared_ptr<CellNote> pending;
  CellNote note;
};

// The Model panel's path field, the ablated heads (a what-if sent with every model request, not saved) and the
// token whose predictions are pinned.
// The Model panel's token chips, laid out once per text and width (a long text has thousands: each frame then
// submits only the lines in sight). What they were laid out for is kept beside them, to know when to lay out again.
struct TokenChips {
  struct Chip {
    std::string label;     // the group's characters as ShownText writes them ("·Pluto", "##ing", "\\n")
    size_t first = 0, count = 0;  // the group's tokens
    bool special = false;
  };
  const void* folder = nullptr;  // ChipText::owner and text (token_chips.h): what the chips are of
  std::string text;
  float width = 0, font_size = 0;  // the panel's content width and the font they were measured with
  std::vector<Chip> chips;
  std::vector<size_t> line_start;  // chips[line_start[l]] begins line l
  std::string joined_json;         // "a | b | ..." as a JSON string (the widgets dump's model_tokens)
};

// What the Model panel's chips are coloured by (token_loss.h).
enum class ChipColor { kNone, kLoss, kLossChange };

struct ModelPanelView {
  TokenChips chips;
  ChipColor chip_color = ChipColor::kNone;
  std::string path_input;
  std::vector<model::AblatedHead> ablated;
  model::AblateMode ablate_mode = model::AblateMode::kZero;  // what every ablated head outputs (sent with them)
  int pinned_position = -1;      // the token position whose predictions stay shown; -1 = none
  // Positions whose top tokens a chip showed this frame while the run's predictions are still to come (the App
  // asks the session for them: a few rows through the LM head); cleared after each update.
  std::vector<int> top_wanted;
  bool color_by_delta = false;   // the Overview's cells coloured by the ablation scan's delta loss
  std::string scan_at;           // the scan's loss positions as typed ("" = every position)
  UiMessage scan_at_error;       // why the last Start refused them
};

// The Dictionary tab's table (seed g): rows of key and value text, a query and a temperature.
struct DictionaryView {
  std::vector<std::pair<std::string, std::string>> rows = {{"a", "1"}, {"b", "2"}, {"c", "3"}};
  std::string query = "b";
  float temperature = 1.0f;
};

// The Numbers tab's rows, made once per result (panel_numbers.cpp).
struct NumbersCache {
  uint64_t generation = ~uint64_t(0);
  FusedSplit split;
  LinearsCheck check;
  Tensor merged_q;  // [1, n_q, n_head*d_k]
  bool loaded = false;  // the weights are the --weights files (else the random init the run drew)
  int query = 0;    // the query row read out of the values
};

// The Shapes · learn window: the open tab, the lesson shown, and the tabs' own data.
struct LearnPanelView {
  LearnTab tab = LearnTab::kShapes;
  int tab_requested = 0;  // frames left to bring `tab` to the front
  Lesson lesson = Lesson::kA;
  LessonPart part = LessonPart::kMain;  // the part last shown: its words come first beside the evidence
  bool lesson_beside = false;  // a lesson was shown: its words stay beside the evidence tab until closed
  bool scroll_to_top = false;  // a lesson was just shown: its words and its tab start at the top, not where the last one was
  DictionaryView dictionary;                     // the Dictionary tab
  std::shared_ptr<const DotVariance> variance;   // the Variance tab's samples (at one d_k)
  // The Variance tab's sampling, off the UI thread (it grows with d_k); valid while it runs.
  std::future<std::shared_ptr<const DotVariance>> variance_job;
  NumbersCache numbers;                          // the Numbers tab
};

// The neuron view (panel_neuron.cpp): which (layer, head, query, key) it shows, in model positions (a click's
// display indices mapped back past hidden special tokens), and the view computed for the model result it names.
struct NeuronPanelView {
  bool open = false;
  int stack = 0;  // an encoder-decoder model's (Seq2SeqStackIndex)
  int layer = 0, head = 0, i = 0, j = 0;
  uint64_t generation = ~uint64_t(0);          // the model result `view` was computed from (a new run: again)
  std::shared_ptr<const model::NeuronView> view;
  UiMessage error;
};
// The neuron panel, and what a click on a Heads panel cell calls: opens it for head `head` of the layer shown at
// the display cell (display_i, display_j).
void DrawNeuronPanel(PanelContext& ctx);
void OpenNeuronView(PanelContext& ctx, int head, int display_i, int display_j);
// The Heads panel's map kind choice in model mode (panel_map_kind.cpp).
void DrawMapKindChoice(PanelContext& ctx);
// The Overview's logit lens, drawn in place of its maps (panel_lens.cpp).
void DrawLensView(PanelContext& ctx);
// For a view drawn in the Overview's place (lens, attribution, patching): the shown run once it is complete, after
// the view's one-sentence explanation; null, with a line saying what is awaited, before.
const ModelResult* CompleteRunWithExplanation(PanelContext& ctx, Str explain);
// The Overview's direct logit attribution and activation patching (panel_attribution.cpp, panel_patching.cpp).
void DrawAttributionView(PanelContext& ctx);
// The attribution's parts of no head in one row below its grid: the embeddings, the attention biases together, the
// final norm's bias; colours over +-range (the grid's).
void DrawAttributionParts(PanelContext& ctx, const double (&parts)[3], double range);
void DrawPatchingView(PanelContext& ctx);
// The patching view's inputs (both model kinds): the clean text (`shown` the first time, to be edited into the clean
// one), the metric's tokens A and B as `read_token` reads them (an id, or -1 with *error set; empty text: -1, no
// error), Run (disabled until both read and while busy) and, while busy, the progress and Cancel.
struct PatchInputs {
  int a = -1, b = -1;
  std::string error;
  bool run = false, cancel = false;  // pressed this frame
};
PatchInputs DrawPatchInputs(PanelContext& ctx, Str clean_label, const std::string& shown, bool busy,
                            const JobProgress& progress, const std::string& progress_text,
                            const std::function<int(const std::string&, Str, std::string*)>& read_token);
// A map kind's name in the UI (the kinds themselves: core/session/map_kind.h MapKinds()).

// When the Overview first drew a model run's first layer and its every layer, in the app's t_s (seconds since the
// process started) of the frames that drew them: the --widgets-json dump's overview_t_s, what
// bench/model/open_to_overview.sh times. A watcher reading the dump every so often would see a later frame's t_s when
// frames come faster than it reads (it would read them late), so the app stamps the moments itself.
struct OverviewPanelView {
  uint64_t generation = ~uint64_t(0);  // the model result (ModelResult::generation) the times are of
  double first_layer_t_s = -1, all_layers_t_s = -1;  // -1: not drawn yet
  bool first_layer_drawn = false, all_layers_drawn = false;  // drawn by the frame being made, stamped when written
  // What the panel shows: the maps, or instead of them the logit lens (panel_lens.cpp), the direct logit
  // attribution (panel_attribution.cpp) or activation patching (panel_patching.cpp).
  enum class View { kMaps, kLens, kAttribution, kPatching };
  View view = View::kMaps;
  // Which of patching's two grids a PNG, SVG or PDF export draws (the CSV holds both): the heads, or the residual
  // stream (ExportGrids' `figure_grid`).
  enum class PatchingFigure { kHeads, kResidual };
  PatchingFigure patching_figure = PatchingFigure::kHeads;
  int lens_first = 0;  // the lens window's first position
  // The lens grid's words, made once per lens result (not per cell per frame): the column heads, then each cell's
  // top token, row-major ([count] + [rows * count]).
  const void* lens_text_of = nullptr;  // the lens (LensGridInput::made_by) the words are of
  uint64_t lens_text_generation = ~uint64_t(0);
  std::vector<std::string> lens_text;
  // The attribution's position (-1: the last, whatever the text) and the target token as typed ("": the default).
  int attrib_position = -1;
  std::string attrib_target;
  // Patching: the clean text (filled with the shown text the first time, to be edited into the clean one) and the
  // metric's tokens as typed.
  std::string patch_clean, patch_a, patch_b;
  bool patch_clean_filled = false;
  // The panel drew result `generation` with `layers_shown` of `n_layer` layers (a new result starts again).
  void Drew(uint64_t result_generation, int layers_shown, int n_layer) {
    if (result_generation != generation) {
      generation = result_generation;
      first_layer_t_s = all_layers_t_s = -1;
    }
    first_layer_drawn = first_layer_t_s < 0 && layers_shown >= 1;
    all_layers_drawn = all_layers_t_s < 0 && layers_shown >= n_layer;
  }
  // The frame is written at t_s: what it drew first gets that time.
  void Stamp(double t_s) {
    if (first_layer_drawn) first_layer_t_s = t_s;
    if (all_layers_drawn) all_layers_t_s = t_s;
    first_layer_drawn = all_layers_drawn = false;
  }
};

// The Model panel on an encoder-decoder model: the target text, the Translate button's request and its outcome, and
// which of the three stacks (seq2seq_session.h Seq2SeqStackIndex) the Heads panel shows.
struct Seq2SeqPanelView {
  std::string target_text;       // the decoder's text (forced)
  int stack = 2;                 // kEncoderStack, kDecoderStack, kCrossStack: cross-attention first
  bool translate = false;        // Translate was pressed: the App starts a generation on its next submit
  std::vector<int> generated_ids;  // the last finished generation's new ids (ending with eos when it stopped there)
  // Heads of any stack ablated in the forced runs (Translate runs the model as trained), and how.
  std::vector<model::Seq2SeqAblatedHead> ablated;
  model::AblateMode ablate_mode = model::AblateMode::kZero;
  // The target's tokens as chips (token_chips.h): their layout, what they are coloured by, the pinned position.
  TokenChips chips;
  ChipColor chip_color = ChipColor::kNone;
  int pinned_position = -1;
  // "Ablate each head once": asked for (the App starts it on its next update) or stopped (the heads done kept), and
  // whether the Overview's cells are tinted by its loss changes.
  bool scan_start = false, scan_stop = false;
  bool color_by_delta = true;
  std::string scan_at;            // the scan's loss positions as typed ("" = every decoder position)
  UiMessage scan_at_error;        // why the last Start refused them
  std::vector<int> scan_loss_at;  // what the last Start asked for

  // The Overview's readouts (panel_seq2seq_readouts.cpp), asked each frame they are shown (the App starts a job
  // when the run or the request changed): the lens; the attribution at `attrib_position` of `attrib_target` (-1: the
  // last position; its label); patching started (of the shown run, from `patch_clean` with tokens A, B) or stopped
  // (the cells done kept).
  bool lens_wanted = false, attribution_wanted = false;
  int attrib_position = -1, attrib_target = -1;
  bool patch_start = false, patch_stop = false;
  int patch_a = -1, patch_b = -1;
};

struct PanelViews {
  SentencesPanelView sentences;
  ExportPanelView export_panel;
  ModelPanelView model;
  LearnPanelView learn;
  HeadsPanelView heads;  // the Heads panel's zoom windows and composed views
  NeuronPanelView neuron;
  OverviewPanelView overview;
  Seq2SeqPanelView seq2seq;
};

}  // namespace attnviz
